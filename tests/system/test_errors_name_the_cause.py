"""Mistakes a careless or hostile user makes are refused with kinetree errors that name the
element, the value and the fix, never a raw Python, numpy or numba error, and never a
silent result: a quaternion of zeros, a force that raises as a run starts, a potential
energy that is not a number, a built-in subsystem's variable replaced by something of
another kind, and values outside the ranges the setters keep, set directly or read from a
State file."""

import json

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import (
    InvalidArgumentError,
    NonFiniteError,
    SimulationError,
    StateMismatchError,
)


def ball_pendulum():
    system, matter, forces, link = world()
    ball = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), link, kt.Transform())
    return system, ball, system.realize_topology()


def test_a_quaternion_of_zeros_is_refused_naming_its_body():
    system, ball, state = ball_pendulum()
    state.set_q([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(InvalidArgumentError,
                       match=r"quaternion of MobilizedBody 1 \(Ball\), q\[0:4\].*\[1, 0, 0, 0\]"):
        system.realize(state, kt.Stage.POSITION)
    with pytest.raises(SimulationError, match="could not start") as caught:
        kt.simulate(system, state, 0.1, progress=False)
    assert isinstance(caught.value.__cause__, InvalidArgumentError)
    # An unnormalized quaternion is an orientation: it realizes, as its unit multiple.
    state.set_q([0.0, 0.0, 3.0, 0.0])
    system.realize(state, kt.Stage.ACCELERATION)
    turned = np.array(ball.get_body_rotation(state).as_matrix())
    np.testing.assert_allclose(turned, kt.Rotation.about_y(np.pi).as_matrix(), atol=1e-15)


class RaisesFrom(kt.Force.Custom.Implementation):
    """A force whose code fails from time ``t_bad`` (s) on."""

    def __init__(self, t_bad):
        self.t_bad = t_bad

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        if state.get_time() >= self.t_bad:
            raise ValueError("no force model beyond here")


def pendulum_with(implementation):
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    force = kt.Force.Custom(forces, implementation)
    state = system.realize_topology()
    state.set_q([0.4])
    return system, force, state


@pytest.mark.parametrize("t_bad", [0.0, 0.3])
def test_a_force_that_raises_stops_simulate_with_the_same_error_at_t0_or_later(t_bad):
    """At t = 0 the run cannot begin: the error says so, names the force, and keeps the
    State it was given; later, the reports so far are kept."""
    system, force, state = pendulum_with(RaisesFrom(t_bad))
    with pytest.raises(SimulationError, match=r"raised by force 1 of GeneralForceSubsystem "
                                              r"\(Custom\)") as caught:
        kt.simulate(system, state, 0.5, progress=False)
    error = caught.value
    assert isinstance(error.__cause__, ValueError)
    if t_bad == 0.0:
        assert "could not start at t = 0 s" in str(error) and error.trajectory is None
        assert error.state.get_time() == 0.0 and error.state.get_q()[0] == 0.4
    else:
        assert 0.0 < error.time < t_bad and len(error.trajectory) > 0
        assert error.state.get_time() == error.time


class Energy(kt.Force.Custom.Implementation):
    def __init__(self, value):
        self.value = value

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        pass

    def calc_potential_energy(self, state):
        return self.value


@pytest.mark.parametrize("value,error", [
    ("abc", InvalidArgumentError), (None, InvalidArgumentError), ([1.0, 2.0],
                                                                   InvalidArgumentError),
    (np.array([3.0]), InvalidArgumentError), (1 + 2j, InvalidArgumentError),
    (float("nan"), NonFiniteError), (float("inf"), NonFiniteError)])
def test_a_potential_energy_that_is_not_one_finite_number_is_refused_by_name(value, error):
    system, force, state = pendulum_with(Energy(value))
    system.realize(state, kt.Stage.DYNAMICS)
    with pytest.raises(error, match=r"Force.Custom 1 \(Energy\).calc_potential_energy"):
        system.calc_potential_energy(state)


def test_a_number_of_any_numeric_type_is_a_potential_energy():
    system, force, state = pendulum_with(Energy(np.float32(2.5)))
    system.realize(state, kt.Stage.DYNAMICS)
    gravity = 9.81 * -0.5 * np.cos(0.4)          # the link's mass centre 0.5 m below
    assert system.calc_potential_energy(state) == pytest.approx(2.5 + gravity, rel=1e-12)


class StringEnergy(kt.ForceSubsystem):
    def calc_potential_energy(self, state):
        return "lots"


def test_a_force_subsystem_whose_energy_is_not_a_number_is_named():
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    custom = StringEnergy(system)
    state = system.realize_topology()
    system.realize(state, kt.Stage.DYNAMICS)
    with pytest.raises(InvalidArgumentError, match=f"{custom.get_name()}.calc_potential_energy"):
        system.calc_potential_energy(state)


def element_model():
    """(system, forces, elements, state): a slider with a coordinate limit force and a
    stop, under Gravity, and a thermostat."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    slider = kt.MobilizedBody.Slider(matter.Ground(), kt.Transform(), body, kt.Transform())
    elements = {
        "limit": kt.Force.CoordinateLimitForce(forces, slider, 0, 100.0, 0.5, 100.0, -0.5,
                                               1.0, 0.01),
        "stop": kt.Force.MobilityLinearStop(forces, slider, 0, 1e3, 0.1, -0.6, 0.6),
        "gravity": kt.Force.Gravity(forces, matter, [0, -1, 0], 9.81),
        "thermostat": kt.Force.Thermostat(forces, matter, 1.0, 300.0, 0.1),
    }
    state = system.realize_topology()
    state.set_u([0.3])
    return system, forces, elements, state


def params_index(forces, state):
    return next(i for i in range(6)
                if isinstance(forces.get_discrete_variable(state, i), np.ndarray))


def test_a_force_parameter_replaced_by_a_string_is_refused_not_compiled():
    system, forces, elements, state = element_model()
    system.realize(state, kt.Stage.ACCELERATION)
    expected = np.array(state.get_u_dot())
    index = params_index(forces, state)
    with pytest.raises(InvalidArgumentError,
                       match=rf"GeneralForceSubsystem.set_discrete_variable\({index}\).*setters"):
        forces.set_discrete_variable(state, index, "stiff")
    system.realize(state, kt.Stage.ACCELERATION)          # nothing was changed
    np.testing.assert_array_equal(state.get_u_dot(), expected)


@pytest.mark.parametrize("element,offset,value,why", [
    ("limit", 5, 0.0, "transition width is 0"),
    ("limit", 0, -1.0, "upper_stiffness must be finite and >= 0"),
    ("stop", 2, 1.0, "need q_low <= q_high"),
    ("gravity", 1, -2.0, "not a unit vector"),
])
def test_element_parameters_outside_their_setters_ranges_are_refused(element, offset, value,
                                                                     why):
    """Set directly or read from a State file, a parameter the element's setters would
    refuse (a transition of 0 divides by zero, bounds that cross, an unnormalized gravity
    direction) is refused, naming the element."""
    system, forces, elements, state = element_model()
    index = params_index(forces, state)
    params = np.array(forces.get_discrete_variable(state, index))
    params[forces._force_i[elements[element].get_force_index(), 4] + offset] = value
    name = type(elements[element]).__name__
    with pytest.raises(InvalidArgumentError, match=rf"\({name}\): .*{why}"):
        forces.set_discrete_variable(state, index, params)


def test_a_state_file_with_an_absurd_thermostat_chain_is_refused_before_allocating(tmp_path):
    """The chain length sets how many z a State has: a file asking for 10^12 links is
    refused, naming the thermostat, instead of allocating without bound."""
    system, forces, elements, state = element_model()
    path = tmp_path / "state.npz"
    state.save(path)
    with np.load(path) as archive:
        members = {name: archive[name] for name in archive.files}
    header = json.loads(str(members["header"]))
    discrete = header["parts"][1]["discrete"]
    chains = next(i for i, (stage, value) in enumerate(discrete)
                  if stage == "MODEL" and value == 3)
    discrete[chains][1] = 10 ** 12
    members["header"] = np.array(json.dumps(header))
    with open(path, "wb") as f:
        np.savez(f, **members)
    with pytest.raises(StateMismatchError, match=r"Thermostat: num_chains must be a whole "
                                                 r"number 1\.\.1000"):
        kt.State.load(path, system)
    with pytest.raises(InvalidArgumentError, match="1..1000"):
        elements["thermostat"].set_num_chains(state, 10 ** 12)


def test_an_offset_too_large_for_floating_point_is_called_an_overflow_not_a_lack_of_inertia():
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform([1e300, 0, 0]))
    state = system.realize_topology()
    with pytest.raises(kt.errors.KinetreeError,
                       match=r"overflows floating point: the origin of MobilizedBody 1 lies "
                             r"1e\+300 m out.*units"):
        system.realize(state, kt.Stage.ACCELERATION)
    with pytest.raises(kt.errors.NonPhysicalError, match=r"com = \[1e\+300.*overflows"):
        kt.MassProperties(1.0, [1e300, 0, 0], kt.Inertia(1.0))


@pytest.mark.parametrize("rate", ["x", None, 1 + 1j, [1.0, 2.0]])
def test_a_steady_motion_rate_that_is_not_a_number_is_refused_and_leaves_the_body_free(rate):
    system, matter, forces, link = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    with pytest.raises(InvalidArgumentError, match="Motion.Steady: the rate must be"):
        kt.Motion.Steady(pin, rate)
    kt.Motion.Steady(pin, 2.0)          # the body takes a Motion still
    state = system.realize_topology()
    system.realize(state, kt.Stage.VELOCITY)
    assert pin.get_one_u(state, 0) == 2.0


def test_force_parameters_replaced_whole_are_what_the_compiled_realization_reads():
    """set_discrete_variable replacing the force table's parameters (the stop's stiffness
    doubled, the slider pressed into it) changes u̇ as the element's own setter does: the
    compiled realization reads the State's parameter array, which takes the new values in
    place."""
    system, forces, elements, state = element_model()
    state.set_q([0.65])
    index = params_index(forces, state)
    system.realize(state, kt.Stage.ACCELERATION)
    before = np.array(state.get_u_dot())
    by_setter = state.copy()
    elements["stop"].set_material_properties(by_setter, 2e3, 0.1)
    system.realize(by_setter, kt.Stage.ACCELERATION)
    values = np.array(forces.get_discrete_variable(by_setter, index))
    forces.set_discrete_variable(state, index, values)
    values[:] = np.nan                      # the caller's array is not the State's
    system.realize(state, kt.Stage.ACCELERATION)
    np.testing.assert_array_equal(state.get_u_dot(), by_setter.get_u_dot())
    assert not np.array_equal(state.get_u_dot(), before)
