"""Assembler: closing a four-bar linkage (Pins closed by a Ball) from a bad guess. Asserted:
the position errors end within the tolerance; without goals the result is the assembled
configuration nearest the guess (its change is orthogonal to the constraint manifold, by
a finite-difference Jacobian of perr); locked mobilizers keep their q; restrict_q bounds
hold; PrescribedMotion is followed frame by frame by track; QValue as error and goal;
scalar-goal and error-only custom conditions (finite-difference Jacobians) agree with
their analytic twins; the constraints as a weighted goal give ½ w |perr|²; and a closure
that cannot be met raises naming the constraint."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, KinetreeError

TOL = 1e-10
LINK = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))


def four_bar(prescribe=None):
    """Crank (0.5 m) and rocker (0.6 m) on Ground 1 m apart, a 0.9 m coupler, closed by a
    Ball between the coupler's end and a station of the rocker chosen so that
    q_true = (0.3, -0.4, 0.2) is assembled. Returns (system, matter, crank, coupler,
    rocker, q_true)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), LINK,
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Pin(crank, kt.Transform(), LINK, kt.Transform([-0.9, 0, 0]))
    rocker = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]), LINK,
                                  kt.Transform([0, 0.6, 0]))
    s = system.realize_topology()
    s.set_q([0.3, -0.4, 0.2])
    system.realize(s, kt.Stage.POSITION)
    p2 = rocker.get_body_transform(s).invert() @ coupler.find_station_location_in_ground(
        s, [0, 0, 0])
    kt.Constraint.Ball(coupler, [0, 0, 0], rocker, p2)
    if prescribe is not None:
        kt.Constraint.PrescribedMotion(matter, prescribe, crank, 0)
    return system, matter, crank, coupler, rocker, np.array([0.3, -0.4, 0.2])


def perr_at(system, matter, q, t=0.0):
    s = system.realize_topology()
    s.set_time(t)
    s.set_q(q)
    system.realize(s, kt.Stage.POSITION)
    return np.array(matter.get_q_err(s))


def fd_perr_jacobian(system, matter, q, h=1e-6):
    return np.column_stack([(perr_at(system, matter, q + h * e)
                             - perr_at(system, matter, q - h * e)) / (2 * h)
                            for e in np.eye(q.size)])


def guess_state(system, q):
    s = system.realize_topology()
    s.set_q(q)
    return s


def test_four_bar_from_a_bad_guess_lands_on_the_nearest_assembled_configuration():
    system, matter, *_, q_true = four_bar()
    q_guess = q_true + np.array([0.15, 0.6, -0.5])
    assert np.max(np.abs(perr_at(system, matter, q_guess))) > 0.1
    state = guess_state(system, q_guess)
    assembler = kt.Assembler(system).set_tolerance(TOL)
    goal = assembler.assemble(state)
    q = np.array(state.get_q())
    assert goal == 0.0
    assert np.max(np.abs(perr_at(system, matter, q))) <= TOL
    # Nearest: q - q_guess has no component along the manifold (the null space of Pq).
    Pq = fd_perr_jacobian(system, matter, q)
    _, sv, Vt = np.linalg.svd(Pq)
    rank = int(np.sum(sv > 1e-8 * sv[0]))
    tangent = Vt[rank:]
    assert tangent.shape[0] == 1                    # a four-bar has one degree of freedom
    assert np.max(np.abs(tangent @ (q - q_guess))) < 1e-7
    assert np.linalg.norm(q - q_guess) <= np.linalg.norm(q_true - q_guess)
    assert assembler.get_num_assembly_steps() == 1


def test_locked_mobilizer_keeps_its_q_and_the_others_close_the_loop():
    system, matter, crank, coupler, rocker, q_true = four_bar()
    q_guess = q_true + np.array([0.1, 0.5, -0.4])
    state = guess_state(system, q_guess)
    assembler = kt.Assembler(system).set_tolerance(TOL)
    assembler.lock_mobilizer(crank)
    assembler.assemble(state)
    assert crank.get_one_q(state, 0) == q_guess[0]
    assert np.max(np.abs(perr_at(system, matter, state.get_q()))) <= TOL
    assert assembler.get_num_free_qs() == 2
    assert assembler.get_free_q_index_of_q(0) is None
    assembler.unlock_mobilizer(crank)
    assert assembler.get_num_free_qs() == 3


def test_restrict_q_bounds_are_respected():
    system, matter, crank, coupler, rocker, q_true = four_bar()
    q_guess = q_true + np.array([0.1, 0.5, -0.4])
    free = guess_state(system, q_guess)
    kt.Assembler(system).set_tolerance(TOL).assemble(free)
    rocker_free = rocker.get_one_q(free, 0)
    lower, upper = rocker_free + 0.1, rocker_free + 0.4      # excludes the nearest one
    state = guess_state(system, q_guess)
    assembler = kt.Assembler(system).set_tolerance(TOL)
    assembler.restrict_q(rocker, 0, lower, upper)
    assembler.assemble(state)
    assert lower <= rocker.get_one_q(state, 0) <= upper
    assert np.max(np.abs(perr_at(system, matter, state.get_q()))) <= TOL
    assert assembler.get_free_q_bounds(2) == (lower, upper)


def test_track_follows_a_prescribed_crank_through_time():
    motion = kt.Function.Sinusoid(0.4, 2 * np.pi, 0.3)
    system, matter, crank, *_, q_true = four_bar(prescribe=motion)
    state = guess_state(system, q_true)
    assembler = kt.Assembler(system).set_tolerance(TOL)
    assembler.assemble(state)
    for t in np.linspace(0.02, 0.5, 25):
        assembler.track(t)
        assembler.update_from_internal_state(state)
        state.set_time(t)
        assert abs(crank.get_one_q(state, 0) - motion.calc_value([t])) <= TOL
        assert np.max(np.abs(perr_at(system, matter, state.get_q(), t))) <= TOL
    assert assembler.get_num_assembly_steps() == 26


def test_qvalue_as_an_error_fixes_the_mechanism_and_as_a_goal_is_met_exactly():
    system, matter, crank, coupler, rocker, q_true = four_bar()
    state = guess_state(system, q_true + 0.05)
    assembler = kt.Assembler(system).set_tolerance(TOL)
    assembler.adopt_assembly_error(kt.QValue(crank, 0, 0.1))
    assembler.assemble(state)
    assert abs(crank.get_one_q(state, 0) - 0.1) <= TOL
    assert np.max(np.abs(perr_at(system, matter, state.get_q()))) <= TOL

    target = kt.QValue(rocker, 0, 0.25)
    state = guess_state(system, q_true)
    assembler = kt.Assembler(system).set_tolerance(TOL).set_accuracy(1e-12)
    assembler.adopt_assembly_goal(target, 2.0)
    goal = assembler.assemble(state)
    assert abs(rocker.get_one_q(state, 0) - 0.25) < 1e-8       # reachable: goal ~ 0
    assert goal < 1e-14
    target.set_value(0.3)
    assembler.track()
    assert abs(assembler.get_internal_state().get_q()[2] - 0.3) < 1e-8


class CrankGoal(kt.AssemblyCondition):
    """½ (q_crank - value)², given as a scalar goal only: its Jacobian is a finite
    difference of √(2 goal)."""

    def __init__(self, crank, value):
        super().__init__("CrankGoal")
        self.crank, self.value = crank, value

    def calc_goal(self, state):
        return 0.5 * (self.crank.get_one_q(state, 0) - self.value) ** 2


class RockerError(kt.AssemblyCondition):
    """q_rocker - value as an error, no Jacobian: central differences."""

    def __init__(self, rocker, value):
        super().__init__("RockerError")
        self.rocker, self.value = rocker, value

    def calc_errors(self, state):
        return np.array([self.rocker.get_one_q(state, 0) - self.value])


def test_custom_conditions_without_jacobians_match_their_analytic_twins():
    system, matter, crank, coupler, rocker, q_true = four_bar()
    results = []
    for goal, error in ((CrankGoal(crank, 0.35), RockerError(rocker, 0.15)),
                        (kt.QValue(crank, 0, 0.35), kt.QValue(rocker, 0, 0.15))):
        state = guess_state(system, q_true)
        assembler = kt.Assembler(system).set_tolerance(TOL).set_accuracy(1e-12)
        assembler.adopt_assembly_goal(goal)
        assembler.adopt_assembly_error(error)
        results.append((assembler.assemble(state), np.array(state.get_q())))
        assert abs(rocker.get_one_q(state, 0) - 0.15) <= TOL
        assert np.max(np.abs(perr_at(system, matter, state.get_q()))) <= TOL
    (goal_fd, q_fd), (goal_analytic, q_analytic) = results
    assert np.allclose(q_fd, q_analytic, atol=1e-7)
    assert goal_fd == pytest.approx(goal_analytic, rel=1e-6)
    assert goal_analytic > 1e-4                 # crank cannot reach 0.35 with rocker at 0.15


def test_system_constraints_as_a_weighted_goal_or_ignored():
    system, matter, crank, coupler, rocker, q_true = four_bar()
    state = guess_state(system, q_true)
    assembler = kt.Assembler(system).set_accuracy(1e-12)
    assembler.set_system_constraints_weight(0)
    assembler.adopt_assembly_goal(kt.QValue(coupler, 0, 1.0))
    assert assembler.assemble(state) == pytest.approx(0.0, abs=1e-10)
    assert coupler.get_one_q(state, 0) == pytest.approx(1.0, abs=1e-9)
    assert np.max(np.abs(perr_at(system, matter, state.get_q()))) > 0.1   # loop ignored

    w = 50.0
    assembler.set_system_constraints_weight(w)
    assert assembler.get_system_constraints_weight() == w
    state = guess_state(system, q_true)
    goal = assembler.assemble(state)
    perr = perr_at(system, matter, state.get_q())
    expected = w * 0.5 * perr @ perr + 0.5 * (coupler.get_one_q(state, 0) - 1.0) ** 2
    assert goal == pytest.approx(expected, rel=1e-12)
    assert 0 < np.max(np.abs(perr)) < 0.05       # a compromise between the two goals


def test_a_closure_that_cannot_be_met_raises_naming_the_constraint():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), LINK,
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Pin(crank, kt.Transform(), LINK, kt.Transform([-0.9, 0, 0]))
    kt.Constraint.Rod(coupler, [0, 0, 0], matter.Ground(), [1.0, 0, 0], 5.0)
    state = system.realize_topology()
    q_before = np.array(state.get_q())
    with pytest.raises(kt.Assembler.AssembleFailed, match=r"Constraint\.Rod #0") as info:
        kt.Assembler(system).assemble(state)
    assert isinstance(info.value, KinetreeError)
    assert "set_tolerance" in str(info.value)
    assert np.array_equal(state.get_q(), q_before)


def test_bad_input_is_refused_with_a_clear_error():
    system, matter, crank, *_ = four_bar()
    other_system, _, other_crank, *_ = four_bar()
    assembler = kt.Assembler(system)
    with pytest.raises(InvalidArgumentError, match="another system"):
        assembler.lock_mobilizer(other_crank)
    with pytest.raises(InvalidArgumentError, match="empty or a point"):
        assembler.restrict_q(crank, 0, 1.0, 1.0)
    with pytest.raises(InvalidArgumentError, match="AssemblyCondition"):
        assembler.adopt_assembly_goal("markers")
    with pytest.raises(InvalidArgumentError, match=">= 0"):
        assembler.adopt_assembly_goal(kt.QValue(crank, 0, 0.0), -1.0)
    with pytest.raises(InvalidArgumentError, match="accuracy"):
        assembler.set_accuracy(2.0)
    condition = kt.QValue(crank, 0, 0.0)
    assembler.adopt_assembly_goal(condition)
    with pytest.raises(InvalidArgumentError, match="already belongs"):
        kt.Assembler(system).adopt_assembly_goal(condition)
    with pytest.raises(InvalidArgumentError, match="no q 3"):
        bad = kt.Assembler(system)
        bad.adopt_assembly_goal(kt.QValue(crank, 3, 0.0))
        bad.assemble(system.realize_topology())
    with pytest.raises(KinetreeError, match="another System"):
        assembler.assemble(other_system.realize_topology())

    free_system = kt.MultibodySystem()
    free_matter = kt.SimbodyMatterSubsystem(free_system)
    ball = kt.MobilizedBody.Ball(free_matter.Ground(), LINK)
    with pytest.raises(InvalidArgumentError, match="nothing to assemble"):
        kt.Assembler(free_system).assemble(free_system.realize_topology())
    quaternion = kt.Assembler(free_system)
    quaternion.adopt_assembly_goal(kt.QValue(ball, 1, 0.1))
    quaternion.restrict_q(ball, 1, -0.5, 0.5)
    with pytest.raises(InvalidArgumentError, match="quaternion component"):
        quaternion.assemble(free_system.realize_topology())
    with pytest.raises(InvalidArgumentError, match="no calc_errors"):
        errors_only = kt.Assembler(free_system)
        errors_only.adopt_assembly_error(CrankGoal(ball, 0.0))
        errors_only.assemble(free_system.realize_topology())
