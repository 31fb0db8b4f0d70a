"""The State: layout, read-only views, and every invalidation rule of seed 002."""

import numpy as np
import pytest

from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.system import Stage, State, Subsystem, System


class Probe(Subsystem):
    """Allocates a little of everything and records which hooks ran."""

    def __init__(self, system, nq=2, nu=2, nz=1, name=None):
        self.sizes = (nq, nu, nz)
        self.calls = []
        super().__init__(system, name)

    def realize_topology(self, state):
        nq, nu, nz = self.sizes
        self.iq = self.allocate_q(state, np.arange(1.0, nq + 1))
        self.iu = self.allocate_u(state, np.zeros(nu))
        self.iz = self.allocate_z(state, np.full(nz, 7.0))
        self.d_instance = self.allocate_discrete_variable(state, Stage.INSTANCE, 1.0)
        self.d_dynamics = self.allocate_discrete_variable(state, Stage.DYNAMICS, 2.0)
        self.d_report = self.allocate_discrete_variable(state, Stage.REPORT, "label")

    def _record(self, stage):
        self.calls.append(stage)

    def realize_instance(self, state):
        self._record(Stage.INSTANCE)

    def realize_time(self, state):
        self._record(Stage.TIME)

    def realize_position(self, state):
        self._record(Stage.POSITION)

    def realize_velocity(self, state):
        self._record(Stage.VELOCITY)

    def realize_dynamics(self, state):
        self._record(Stage.DYNAMICS)

    def realize_acceleration(self, state):
        self._record(Stage.ACCELERATION)

    def realize_report(self, state):
        self._record(Stage.REPORT)


@pytest.fixture
def setup():
    system = System()
    a = Probe(system, name="a")
    b = Probe(system, nq=3, nu=1, nz=2, name="b")
    state = system.realize_topology()
    return system, a, b, state


def test_default_state_is_realized_through_model_with_packed_y(setup):
    system, a, b, state = setup
    assert state.get_system_stage() == Stage.MODEL
    assert (state.get_num_q(), state.get_num_u(), state.get_num_z()) == (5, 3, 3)
    # y = [q_a q_b | u_a u_b | z_a z_b], contiguous
    np.testing.assert_array_equal(state.get_y(), [1, 2, 1, 2, 3, 0, 0, 0, 7, 7, 7])
    np.testing.assert_array_equal(b.get_q(state), [1, 2, 3])
    np.testing.assert_array_equal(b.get_z(state), [7, 7])
    assert np.shares_memory(state.get_q(), state.get_y())


def test_get_views_are_read_only(setup):
    system, a, b, state = setup
    for view in (state.get_q(), state.get_u(), state.get_z(), state.get_y(), a.get_q(state)):
        with pytest.raises(ValueError):
            view[0] = 1.0
    system.realize(state, Stage.ACCELERATION)
    for view in (state.get_q_dot(), state.get_u_dot(), state.get_y_dot()):
        with pytest.raises(ValueError):
            view[0] = 1.0


def test_upd_returns_writable_view_and_set_copies(setup):
    system, a, b, state = setup
    state.upd_q()[0] = 10.0
    assert state.get_q()[0] == 10.0
    a.upd_u(state)[1] = 3.0
    assert state.get_u()[1] == 3.0
    values = np.array([9.0, 8.0, 7.0, 6.0, 5.0])
    state.set_q(values)
    values[0] = -1.0  # set_ copied: later edits of the caller's array do not leak in
    assert state.get_q()[0] == 9.0
    with pytest.raises(InvalidArgumentError, match="expected 3 values"):
        state.set_u([1.0, 2.0])


@pytest.mark.parametrize(
    "change, backs_up_to",
    [
        (lambda st, a: st.set_time(1.0), Stage.INSTANCE),
        (lambda st, a: st.set_q(np.ones(5)), Stage.TIME),
        (lambda st, a: st.upd_q(), Stage.TIME),
        (lambda st, a: st.set_u(np.ones(3)), Stage.POSITION),
        (lambda st, a: st.upd_u(), Stage.POSITION),
        (lambda st, a: st.set_z(np.ones(3)), Stage.VELOCITY),
        (lambda st, a: st.upd_z(), Stage.VELOCITY),
        (lambda st, a: st.upd_y(), Stage.TIME),
        (lambda st, a: a.set_discrete_variable(st, a.d_instance, 5.0), Stage.MODEL),
        (lambda st, a: a.set_discrete_variable(st, a.d_dynamics, 5.0), Stage.VELOCITY),
        (lambda st, a: a.upd_discrete_variable(st, a.d_dynamics), Stage.VELOCITY),
        (lambda st, a: a.set_discrete_variable(st, a.d_report, "x"), Stage.ACCELERATION),
    ],
)
def test_each_invalidation_rule_of_seed_002(setup, change, backs_up_to):
    system, a, b, state = setup
    system.realize(state, Stage.REPORT)
    assert state.get_system_stage() == Stage.REPORT
    change(state, a)
    assert state.get_system_stage() == backs_up_to
    assert a.get_stage(state) == backs_up_to and b.get_stage(state) == backs_up_to
    # Realizing again reruns exactly the stages that were invalidated, for both subsystems.
    a.calls.clear()
    system.realize(state, Stage.REPORT)
    assert a.calls == list(Stage)[backs_up_to + 1:Stage.REPORT + 1]


def test_invalidation_never_raises_the_stage(setup):
    system, a, b, state = setup
    system.realize(state, Stage.POSITION)
    a.set_discrete_variable(state, a.d_report, "later")  # REPORT variable: no effect here
    assert state.get_system_stage() == Stage.POSITION


def test_realize_runs_all_subsystems_stage_by_stage(setup):
    system, a, b, state = setup
    order = []
    a.realize_position = lambda s: order.append(("a", Stage.POSITION))
    b.realize_position = lambda s: order.append(("b", Stage.POSITION))
    a.realize_velocity = lambda s: order.append(("a", Stage.VELOCITY))
    b.realize_velocity = lambda s: order.append(("b", Stage.VELOCITY))
    system.realize(state, Stage.VELOCITY)
    assert order == [("a", Stage.POSITION), ("b", Stage.POSITION),
                     ("a", Stage.VELOCITY), ("b", Stage.VELOCITY)]
    system.realize(state, Stage.VELOCITY)  # already there: nothing reruns
    assert len(order) == 4


def test_derivative_caches_need_their_stage(setup):
    system, a, b, state = setup
    system.realize(state, Stage.POSITION)
    with pytest.raises(StageTooLowError) as err:
        state.get_q_dot()
    assert err.value.needed == Stage.VELOCITY and err.value.held == Stage.POSITION
    assert "State.get_q_dot" in str(err.value)
    for getter in (state.get_u_dot, state.get_z_dot, state.get_q_dot_dot, state.get_y_dot):
        with pytest.raises(StageTooLowError, match="ACCELERATION"):
            getter()


def test_empty_state_refuses_variable_access():
    state = State()
    assert state.get_system_stage() == Stage.EMPTY
    with pytest.raises(StageTooLowError, match="MODEL"):
        state.get_q()


def test_time_must_be_finite(setup):
    state = setup[3]
    with pytest.raises(InvalidArgumentError, match="not finite"):
        state.set_time(float("nan"))


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf")])
def test_variables_must_be_finite_and_a_refused_value_changes_nothing(setup, bad):
    state = setup[3]
    state.set_q(np.arange(5.0))
    for setter, n in ((state.set_q, 5), (state.set_u, 3), (state.set_z, 3)):
        values = np.ones(n)
        values[n - 1] = bad
        with pytest.raises(InvalidArgumentError, match=f"value {n - 1} is"):
            setter(values)
    assert np.array_equal(state.get_q(), np.arange(5.0))
    # Large values are finite too, and accepted.
    state.set_q(np.full(5, 1e300))
    assert np.array_equal(state.get_q(), np.full(5, 1e300))


def test_copy_is_independent(setup):
    system, a, b, state = setup
    state.set_q(np.arange(5.0))
    system.realize(state, Stage.ACCELERATION)
    c = state.copy()
    assert c.get_system_stage() == Stage.ACCELERATION
    np.testing.assert_array_equal(c.get_y(), state.get_y())
    c.set_q(np.zeros(5))
    a.set_discrete_variable(c, a.d_dynamics, -1.0)
    assert state.get_q()[1] == 1.0
    assert a.get_discrete_variable(state, a.d_dynamics) == 2.0
    assert state.get_system_stage() == Stage.ACCELERATION
    assert not np.shares_memory(c.get_y(), state.get_y())
