"""Reversed mobilizers (MobilizedBody.Direction.REVERSE): the q and u of the kind describe
the inboard frame F moving in the outboard frame M. Checked against the kind's own forward
transform inverted, against finite differences of X_FM (check_mobilizer: H, HDot, N and
the fits of every kind), and by conservation of energy."""

import numpy as np
import pytest

import kinetree as kt

REVERSE = kt.MobilizedBody.Direction.REVERSE
KINDS = ["Pin", "Slider", "Universal", "Cylinder", "Screw", "Planar", "Gimbal", "Ball", "Free",
         "Translation", "Bushing", "BendStretch", "SphericalCoords", "LineOrientation",
         "FreeLine", "Ellipsoid", "Scapulothoracic", "CantileverFreeBeam"]
EXTRA = {"Screw": (0.13,), "Ellipsoid": ((0.5, 0.3, 0.2),), "CantileverFreeBeam": (0.8,),
         "Scapulothoracic": ((0.07, 0.15, 0.08), (-0.01, 0.025), 0.4)}
X_PF = kt.Transform(kt.Rotation.about_y(0.4), [0.1, 0.2, 0.3])
X_BM = kt.Transform(kt.Rotation.about_z(0.2), [0.3, -0.1, 0.2])


def build(kind, euler=False, seed=0):
    """``kind`` twice on a moving Pin base, forward and reversed, same frames, same q:
    (system, matter, forward, reversed, state)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.3], kt.Inertia(1.0)))
    base = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(kt.Rotation.about_x(0.3),
                                                              [0, 1, 0]),
                                body, kt.Transform([0.2, 0, 0]))
    cls = getattr(kt.MobilizedBody, kind)
    forward = cls(base, X_PF, body, X_BM, *EXTRA.get(kind, ()))
    reverse = cls(base, X_PF, body, X_BM, *EXTRA.get(kind, ()), REVERSE)
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1.0, 1.0, forward.get_num_q(state))
    if kind == "BendStretch":
        q[1] = 0.7
    if forward.get_num_q(state) > forward.get_num_u(state) and kind not in ("FreeLine",
                                                                            "LineOrientation"):
        q[:4] /= np.linalg.norm(q[:4])
    forward.set_q(state, q)
    reverse.set_q(state, q)
    state.set_u(rng.uniform(-1.0, 1.0, len(state.get_u())))
    return system, matter, forward, reverse, state


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_reversed_kind_is_consistent_with_its_transform(kind, euler):
    for seed in range(2):
        system, _, forward, reverse, state = build(kind, euler, seed)
        assert reverse.is_reversed() and not forward.is_reversed()
        system.realize(state, kt.Stage.POSITION)
        X_f = forward.get_mobilizer_transform(state).to_mat44()
        X_r = reverse.get_mobilizer_transform(state).to_mat44()
        assert np.allclose(X_r, np.linalg.inv(X_f), atol=1e-13)
        report = kt.check_mobilizer(reverse, state, seed=seed)
        report.assert_ok()
        for e in report.entries:
            assert e.discrepancy <= 1e-3 * e.tolerance, e.message()


def test_a_reversed_pin_is_the_forward_pin_turning_the_other_way():
    """Rz(q)⁻¹ = Rz(-q): the same pendulum with q and u negated, u̇ negated."""
    runs = []
    for direction in (kt.MobilizedBody.Direction.FORWARD, REVERSE):
        system = kt.MultibodySystem()
        matter = kt.SimbodyMatterSubsystem(system)
        forces = kt.GeneralForceSubsystem(system)
        kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
        com = [0, -0.5, 0.1]
        body = kt.Body.Rigid(kt.MassProperties(
            2.0, com, kt.Inertia(0.7, 0.2, 0.6).shift_from_mass_center(com, 2.0)))
        pin = kt.MobilizedBody.Pin(matter.Ground(), X_PF, body, X_BM, direction=direction)
        state = system.realize_topology()
        sign = 1.0 if direction == kt.MobilizedBody.Direction.FORWARD else -1.0
        pin.set_one_q(state, 0, 0.6 * sign)
        pin.set_one_u(state, 0, -1.3 * sign)
        system.realize(state, kt.Stage.ACCELERATION)
        runs.append((pin.get_body_transform(state).to_mat44(), pin.get_one_u_dot(state, 0),
                     pin.get_body_velocity(state)))
    assert np.allclose(runs[0][0], runs[1][0], atol=1e-14)
    assert np.allclose(runs[0][2], runs[1][2], atol=1e-14)
    assert runs[1][1] == pytest.approx(-runs[0][1], rel=1e-13)


def test_a_chain_of_reversed_joints_conserves_energy():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    com = [0.05, -0.3, 0.02]
    body = kt.Body.Rigid(kt.MassProperties(
        1.5, com, kt.Inertia(0.3, 0.2, 0.25).shift_from_mass_center(com, 1.5)))
    parent = matter.Ground()
    for kind in ("Ball", "Universal", "Gimbal", "Pin", "Free"):
        parent = getattr(kt.MobilizedBody, kind)(
            parent, kt.Transform([0.1, -0.6, 0.05]), body, kt.Transform([0, 0.4, 0]), REVERSE)
    state = system.realize_topology()
    rng = np.random.default_rng(3)
    state.set_u(rng.uniform(-1, 1, len(state.get_u())))
    system.realize(state, kt.Stage.DYNAMICS)
    e0 = system.calc_energy(state)
    integrator = kt.RungeKuttaMersonIntegrator(system)
    integrator.set_accuracy(1e-9)
    stepper = kt.TimeStepper(system, integrator)
    stepper.initialize(state)
    stepper.step_to(1.5)
    end = integrator.get_state()
    system.realize(end, kt.Stage.DYNAMICS)
    assert system.calc_energy(end) == pytest.approx(e0, rel=1e-7)


def test_fits_of_a_reversed_mobilizer_give_back_the_transform_and_velocity():
    system, matter, forward, reverse, state = build("Free", seed=5)
    X = kt.Transform(kt.Rotation.about_x(0.8), [0.3, -0.2, 1.1])
    reverse.set_q_to_fit_transform(state, X)
    V = np.array([0.3, -0.1, 0.4, 1.0, 2.0, -0.5])
    system.realize(state, kt.Stage.POSITION)
    assert reverse.get_mobilizer_transform(state).is_same_transform(X, 1e-13)
    reverse.set_u_to_fit_velocity(state, V)
    system.realize(state, kt.Stage.VELOCITY)
    assert np.allclose(reverse.get_mobilizer_velocity(state), V, atol=1e-13)


def test_a_custom_reversed_mobilizer_is_consistent():
    f = kt.Function.Linear([1.0, 0.0])
    zero = kt.Function.Constant(0.0, 0)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0.2, 0.3], kt.Inertia(1.0)))
    knee = kt.MobilizedBody.FunctionBased(
        matter.Ground(), X_PF, body, X_BM, 1,
        [f, zero, zero, kt.Function.Linear([0.2, 0.05]), zero, zero],
        [[0], [], [], [0], [], []], direction=REVERSE)
    state = system.realize_topology()
    knee.set_one_q(state, 0, 0.4)
    knee.set_one_u(state, 0, -0.7)
    kt.check_mobilizer(knee, state).assert_ok()
