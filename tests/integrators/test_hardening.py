"""Nothing spins without advancing, and a checkpoint from someone else sets nothing it does
not declare: checkpoints are read field by field and checked; a step that cannot advance
time is refused; a compiled run returns to Python after bounded work; an event storm is
stopped and named; an accuracy above 1 is refused."""

import warnings

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.engine.step import CompiledStepper
from kinetree.errors import IntegrationError, InvalidArgumentError, StateMismatchError
from kinetree.integrators import step_control as control
from kinetree.study import checkpoint
from kinetree.system import state_file


def pendulum(links=2):
    system, matter, forces, body = world()
    parent = matter.Ground()
    for _ in range(links):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform([0, -0.5, 0]), body,
                                      kt.Transform())
    state = system.realize_topology()
    state.upd_q()[:] = 0.3
    return system, state


@pytest.fixture
def saved(tmp_path):
    """A checkpoint of a pendulum part-way, and how to write a changed copy of it."""
    system, state = pendulum()
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    stepper.step_to(0.05)
    path = tmp_path / "run.npz"
    stepper.save_checkpoint(path)

    def changed(change):
        header, arrays = state_file.read_archive(path, checkpoint.FORMAT, "test")
        values = {name: state_file.decode(v, arrays) for name, v in header["values"].items()}
        change(values)
        encoder = state_file.Encoder()
        # The State's arrays keep their names; the values' new ones come after them.
        encoder.arrays.update({k: v for k, v in arrays.items() if k != "header"})
        header["values"] = {name: encoder.encode(v, name) for name, v in values.items()}
        header.pop("format"), header.pop("version")
        other = tmp_path / "changed.npz"
        state_file.write_archive(other, checkpoint.FORMAT, header, encoder.arrays)
        return other

    return system, path, changed


def resumed(system, path):
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.load_checkpoint(path)
    return stepper


def test_a_checkpoint_sets_no_value_it_does_not_declare(saved):
    system, path, changed = saved
    for extra in ({"step_to": 1.0}, {"_accuracy": -5.0}, {"_system": None}):
        bad = changed(lambda values, extra=extra: values.update(extra))
        integ = kt.RungeKuttaMersonIntegrator(system)
        stepper = kt.TimeStepper(system, integ)
        with pytest.raises(StateMismatchError, match="holds the integrator values"):
            stepper.load_checkpoint(bad)
        assert integ.get_accuracy_in_use() == 1e-3 and callable(integ.step_to)


@pytest.mark.parametrize("name,value,match", [
    ("_control_f", np.zeros(2), "_control_f must be a float64 array"),
    ("_control_i", np.zeros(control.N_CONTROL_I), "_control_i must be a int64 array"),
    ("_work", np.zeros((2, 2)), "_work must be"),
    ("_unit_weights", None, "_unit_weights must be"),
    ("_pending_trigger", "yes", "must be a bool"),
    ("_convergence_failures", -3, "must be a count"),
    ("_returned_time", float("nan"), "cannot be nan"),
])
def test_a_checkpoint_value_of_the_wrong_kind_is_refused(saved, name, value, match):
    system, path, changed = saved
    bad = changed(lambda values: values.update({name: value}))
    with pytest.raises(StateMismatchError, match=match):
        resumed(system, bad)


@pytest.mark.parametrize("index,value,match", [
    (control.H_NEXT, 1e-300, "next step size"),
    (control.H_NEXT, -1.0, "next step size"),
    (control.T1, 7.0, "not at the State's time"),
    (control.T0, float("inf"), "is not a step"),
])
def test_a_checkpoint_whose_last_step_is_no_step_is_refused(saved, index, value, match):
    system, path, changed = saved

    def change(values):
        values["_control_f"] = values["_control_f"].copy()
        values["_control_f"][index] = value

    with pytest.raises(StateMismatchError, match=match):
        resumed(system, changed(change))


def test_a_checkpoint_runs_with_the_integrators_own_settings(saved):
    """The settings in a file's control arrays (an accuracy of -5, a step limit of 1) are
    not taken: the run goes on with the loading integrator's, and ends where the saving
    run would have."""
    system, path, changed = saved

    def change(values):
        f, i = values["_control_f"].copy(), values["_control_i"].copy()
        f[control.ACCURACY], f[control.MAX_STEP], i[control.PHASE] = -5.0, 1e-300, 3
        values["_control_f"], values["_control_i"] = f, i

    honest, crafted = resumed(system, path), resumed(system, changed(change))
    f = crafted.get_integrator()._control_f
    assert f[control.ACCURACY] == 1e-3 and f[control.MAX_STEP] == np.inf
    honest.step_to(0.2)
    crafted.step_to(0.2)
    assert crafted.get_state().get_y().tobytes() == honest.get_state().get_y().tobytes()


def test_a_step_that_cannot_advance_time_is_refused():
    system, state = pendulum()
    integ = kt.SemiExplicitEulerIntegrator(system, 1e-3)
    for method in (integ.set_fixed_step_size, integ.set_maximum_step_size):
        with pytest.raises(InvalidArgumentError, match="below the resolution of time"):
            method(1e-300)
    with pytest.raises(InvalidArgumentError, match="below the resolution of time"):
        kt.simulate(system, state, 1.0, integrator="SemiExplicitEuler",
                    fixed_step_size=1e-300, progress=False)
    # At t = 1e3 s a step of 1e-13 s is below the resolution there (1e-11 s): refused
    # at once instead of stepping forever.
    state.set_time(1e3)
    integ = kt.SemiExplicitEulerIntegrator(system, 1e-13)
    integ.initialize(state)
    with pytest.raises(IntegrationError, match="would not advance time"):
        integ.step_to(1e3 + 1.0)
    assert integ.get_advanced_state().get_time() == 1e3


def test_an_error_controlled_step_starts_no_smaller_than_the_resolution_of_time():
    system, state = pendulum()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_initial_step_size(1e-300)
    integ.initialize(state)
    integ.step_to(0.1)
    assert integ.get_time() == 0.1
    assert integ.get_num_steps_taken() < 100           # it grew from 1e-14 s, not 1e-300


def test_a_compiled_run_returns_to_python_after_bounded_work(monkeypatch):
    """A run of many cheap steps comes back to Python every WORK_PER_CALL body
    realizations (Ctrl-C is heard then), and takes the same steps as ever."""
    system, state = pendulum(links=200)
    calls = []
    run = CompiledStepper.run
    monkeypatch.setattr(CompiledStepper, "run",
                        lambda self, integ: calls.append(1) or run(self, integ))
    integ = kt.SemiExplicitEulerIntegrator(system, 1e-5)
    integ.initialize(state)
    steps = 2 * control.WORK_PER_CALL // 201 + 10
    integ.step_to(steps * 1e-5)
    assert integ.get_num_steps_taken() == steps
    assert len(calls) == 3


class Storm(kt.PeriodicEventHandler):
    def handle_event(self, state, accuracy):
        return False


def test_an_event_storm_is_stopped_and_named():
    system, state = pendulum()
    system.add_event_handler(Storm(1e-13))
    with pytest.raises(kt.errors.SimulationError, match="Storm") as caught:
        kt.simulate(system, state, 0.1, progress=False)
    assert "not advanced by 1e-10 s or more per event" in str(caught.value)


def test_frequent_events_leave_simulate_its_step_limit():
    """Events every 10 µs under simulate: the TimeStepper hands control back between
    them, so that max_steps stops the run near its limit instead of at the next report."""
    system, state = pendulum()
    system.add_event_handler(Storm(1e-5))
    with pytest.raises(kt.errors.SimulationError, match="step limit") as caught:
        kt.simulate(system, state, 1.0, max_steps=300, progress=False)
    assert caught.value.time < 0.01


def test_an_accuracy_above_one_is_refused():
    system, state = pendulum()
    with pytest.raises(InvalidArgumentError, match="above 1"):
        kt.RungeKuttaMersonIntegrator(system).set_accuracy(1e300)
    with pytest.raises(InvalidArgumentError, match="above 1"):
        kt.simulate(system, state, 0.1, accuracy=2.0, progress=False)


def test_a_realization_that_overflows_raises_naming_the_quantity():
    """u = 1e300 makes u̇ overflow; an expression force 1/(q - 0.5) at q = 0.5 divides
    by zero: each realization raises, naming what is not finite and where, instead of
    handing out NaN."""
    system, state = pendulum()
    state.set_u([1e300, 0.0])
    with pytest.raises(kt.errors.NonFiniteError, match=r"u̇ of MobilizedBody \d \(Pin\)"):
        system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_system_stage() < kt.Stage.ACCELERATION

    system, matter, forces, body = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    kt.Force.ExpressionBasedCoordinateForce(forces, pin, 0, "1/(q-0.5)")
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.5)
    with pytest.raises(kt.errors.NonFiniteError,
                       match="generalized force on MobilizedBody 1 .Pin., its mobility 0"):
        system.realize(state, kt.Stage.DYNAMICS)
    pin.set_one_q(state, 0, 0.25)
    system.realize(state, kt.Stage.ACCELERATION)       # a finite State realizes again
    assert np.isfinite(state.get_u_dot()).all()


def test_a_step_into_overflow_is_a_divergence_in_either_run():
    """The integrator, compiled or answering for Python, reports an overflowing motion as
    a divergence at the last step it accepted."""
    for python in (False, True):
        system, matter, forces, body = world()
        pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
        kt.Force.MobilityLinearSpring(forces, pin, 0, 1e200, 0.0)
        state = system.realize_topology()
        pin.set_one_q(state, 0, 1.0)
        integ = kt.RungeKutta3Integrator(system, 0.01)
        integ.initialize(state)
        if python:
            integ._stepper = None
        with pytest.raises(kt.errors.SimulationDivergedError, match="diverged"), \
                warnings.catch_warnings():
            warnings.simplefilter("error")          # the diagnosis alone speaks
            integ.step_to(1.0)


class _Cubic(kt.Force.Custom.Implementation):
    """A Python force growing with the cube of the first speed: the motion blows up."""

    def __init__(self, pin):
        self.pin = pin

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += 1e9 * self.pin.get_one_u(state, 0) ** 3

    def calc_potential_energy(self, state):
        return 0.0


@pytest.mark.parametrize("python", [False, True])
def test_a_diverging_simulation_says_only_its_diagnosis(python):
    """No numpy warning (an overflow in the energy of a report, ...) beside kinetree's
    own error, whether the steps and reports are compiled or a Python force is in them."""
    system, matter, forces, body = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    kt.Force.MobilityLinearSpring(forces, pin, 0, 1e9, 0.0)
    if python:
        kt.Force.Custom(forces, _Cubic(pin))
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.5)
    pin.set_one_u(state, 0, 1.0)
    with pytest.raises(kt.errors.SimulationError), warnings.catch_warnings():
        warnings.simplefilter("error")
        kt.simulate(system, state, 5.0, integrator="ExplicitEuler", fixed_step_size=0.01,
                    progress=False)
