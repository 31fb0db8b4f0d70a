"""The actuators that apply their control directly (CoordinateActuator, PointActuator,
TorqueActuator) and the controllers: each gives the u̇ of the force element of the same
force built by hand, and the controls add up as OpenSim's do (defaults, Python
controllers, prescribed Functions of time)."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.actuators import (
    ActuatorSubsystem,
    Controller,
    CoordinateActuator,
    PointActuator,
    PrescribedController,
    TorqueActuator,
)
from kinetree.errors import InvalidArgumentError, KinetreeError

Q, U, T = [0.3, -0.4, 0.2], [0.1, 0.2, -0.3], 0.3


def chain(with_actuators):
    """Three bodies on Pins in a chain under gravity, with the actuators (or nothing)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0, 0], kt.Inertia(0.3, 0.25, 0.2)))
    bodies, parent = [], matter.Ground()
    for k in range(3):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform(kt.Rotation.about_x(0.2 * k)),
                                      body, kt.Transform([0, 1, 0]))
        bodies.append(parent)
    actuators = ActuatorSubsystem(system) if with_actuators else None
    return system, matter, forces, bodies, actuators


def accelerations(system, matter, setup):
    state = system.realize_topology()
    state.set_time(T)
    matter.upd_q(state)[:] = Q
    matter.upd_u(state)[:] = U
    setup(state)
    system.realize(state, kt.Stage.ACCELERATION)
    return matter.get_u_dot(state).copy(), state


def test_each_actuator_applies_the_force_of_its_control():
    system, matter, forces, (b1, b2, b3), actuators = chain(True)
    coordinate = CoordinateActuator("tau", b2, 0, optimal_force=3.0)
    point = PointActuator("push", b3, [0.2, 0.1, 0.0], [1, 2, 0], optimal_force=5.0)
    globally = PointActuator("pull", b1, [0.0, 0.5, 0.1], [0, 0, 2], optimal_force=4.0,
                             point_is_global=True, force_is_global=True)
    torque = TorqueActuator("twist", b1, b3, [0, 1, 1], optimal_force=2.0,
                            torque_is_global=False)
    for a in (coordinate, point, globally, torque):
        actuators.add_actuator(a)
    controls = {"tau": 0.7, "push": -0.4, "pull": 1.3, "twist": 0.9}
    got, state = accelerations(system, matter,
                               lambda s: actuators.set_controls(s, controls))
    assert coordinate.get_actuation(state) == pytest.approx(2.1, rel=1e-15)

    # the same forces by hand, at the same configuration
    s2, m2, f2, (c1, c2, c3), _ = chain(False)
    state2 = s2.realize_topology()
    m2.upd_q(state2)[:] = Q
    s2.realize(state2, kt.Stage.POSITION)
    kt.Force.MobilityConstantForce(f2, c2, 0, 3.0 * 0.7)
    direction = np.array([1, 2, 0]) / np.sqrt(5)
    R3 = c3.get_body_rotation(state2)
    kt.Force.ConstantForce(f2, c3, [0.2, 0.1, 0.0], R3 @ (5.0 * -0.4 * direction))
    X1 = c1.get_body_transform(state2)
    station = X1.shift_base_station_to_frame([0.0, 0.5, 0.1])
    kt.Force.ConstantForce(f2, c1, station, [0, 0, 4.0 * 1.3])
    axis = c1.get_body_rotation(state2) @ (np.array([0, 1, 1]) / np.sqrt(2))
    kt.Force.ConstantTorque(f2, c1, 2.0 * 0.9 * axis)
    kt.Force.ConstantTorque(f2, c3, -2.0 * 0.9 * axis)
    expected, _ = accelerations(s2, m2, lambda s: None)
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


class Reflex(Controller):
    """Adds 2 q + u of the second Pin to the coordinate actuator's control."""

    def __init__(self, mobod):
        super().__init__("reflex")
        self.mobod = mobod

    def compute_controls(self, state, controls):
        controls["tau"] = 2.0 * self.mobod.get_one_q(state, 0) + self.mobod.get_one_u(state, 0)


def test_controls_add_up_as_in_opensim():
    """default + a Python controller + a prescribed Function of time."""
    system, matter, forces, (b1, b2, b3), actuators = chain(True)
    tau = CoordinateActuator("tau", b2, 0, optimal_force=1.5)
    actuators.add_actuator(tau)
    actuators.add_controller(Reflex(b2))
    actuators.add_controller(PrescribedController(
        "ramp", {"tau": kt.Function.Linear([2.0, 0.5])}))
    _, state = accelerations(system, matter, lambda s: actuators.set_controls(s, {"tau": 0.25}))
    control = 0.25 + (2.0 * Q[1] + U[1]) + (2.0 * T + 0.5)
    assert tau.get_control(state) == pytest.approx(control, rel=1e-15)
    assert tau.get_actuation(state) == pytest.approx(1.5 * control, rel=1e-15)
    assert tau.get_power(state) == pytest.approx(1.5 * control * U[1], rel=1e-15)


def test_bad_controls_are_refused_naming_the_actuator():
    system, matter, forces, (b1, b2, b3), actuators = chain(True)
    actuators.add_actuator(CoordinateActuator("tau", b2, 0))
    state = system.realize_topology()
    with pytest.raises(InvalidArgumentError, match="no actuator 'tua'"):
        actuators.set_controls(state, {"tua": 1.0})
    with pytest.raises(InvalidArgumentError, match="'tau' is nan"):
        actuators.set_controls(state, {"tau": float("nan")})
    with pytest.raises(InvalidArgumentError, match="already named 'tau'"):
        actuators.add_actuator(CoordinateActuator("tau", b1, 0))
    with pytest.raises(KinetreeError, match="needs DYNAMICS"):
        actuators.get_controls(state)


def test_a_coordinate_the_mobilizer_lacks_is_refused_naming_the_actuator():
    system, matter, forces, (b1, b2, b3), actuators = chain(True)
    actuators.add_actuator(CoordinateActuator("tau", b2, 1))
    with pytest.raises(InvalidArgumentError, match="CoordinateActuator 'tau'.*1 coordinates"):
        system.realize_model(system.realize_topology())


def test_controls_replaced_whole_are_what_the_compiled_realization_reads():
    """set_discrete_variable replacing the actuators' default controls whole acts as
    set_controls does: the compiled realization reads the State's own array."""
    system, matter, forces, (b1, b2, b3), actuators = chain(True)
    actuators.add_actuator(CoordinateActuator("tau", b2, 0, optimal_force=3.0))
    by_setter, state = (accelerations(system, matter, lambda s: None)[1] for _ in range(2))
    index = actuators._defaults_index
    actuators.set_controls(by_setter, {"tau": 0.7})
    system.realize(by_setter, kt.Stage.ACCELERATION)
    actuators.set_discrete_variable(state, index, np.array([0.7]))
    system.realize(state, kt.Stage.ACCELERATION)
    assert matter.get_u_dot(state).tobytes() == matter.get_u_dot(by_setter).tobytes()
    assert actuators.get_controls(state)[0] == 0.7
