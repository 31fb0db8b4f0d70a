"""A fuzz of checkpoints (study/checkpoint.py, TimeStepper.load_checkpoint): 1000
mutations of checkpoints saved mid-run by three integrators (an explicit Runge-Kutta
method, Verlet, and CPodes with its BDF history and Jacobian) on the State-file fuzz's
model (a double pendulum on a slider tied by a rod, with forces and settings of a
subsystem of its own), mutated as that fuzz mutates State files. Each is refused with a
kinetree error, or loads as saved: the State it puts the TimeStepper at is the saved one,
bit for bit, and the run goes on (or stops with a kinetree error). None raises anything
else, spins, or takes more than 100 MB."""

import tracemalloc

import numpy as np
from file_fuzz import mutated, parsed, states

import kinetree as kt
from kinetree.errors import KinetreeError

N_FILES = 1000
INTEGRATORS = (kt.RungeKuttaMersonIntegrator, kt.VerletIntegrator, kt.CPodesIntegrator)


def stepper_of(system, integrator):
    integ = integrator(system)
    integ.set_accuracy(1e-6)
    return kt.TimeStepper(system, integ)


def test_a_thousand_mutated_checkpoints_are_refused_or_load_as_saved(tmp_path):
    system, (state, *_) = states()
    saved, expected = [], []
    path = tmp_path / "original.npz"
    for integrator in INTEGRATORS:
        stepper = stepper_of(system, integrator)
        stepper.initialize(state)
        stepper.step_to(0.137)
        stepper.save_checkpoint(path)
        saved.append(parsed(path.read_bytes()))
        again = stepper_of(system, integrator)
        again.load_checkpoint(path)
        expected.append(again.get_state().get_y().tobytes())
    rng = np.random.default_rng(20261128)
    files = [mutated(saved[n % len(saved)], rng) for n in range(N_FILES)]
    path = tmp_path / "mutated.npz"
    outcomes = {"refused": 0, "loaded": 0, "stopped": 0}
    tracemalloc.start()
    try:
        for n, data in enumerate(files):
            path.write_bytes(data)
            k = n % len(saved)
            stepper = stepper_of(system, INTEGRATORS[k])
            stepper.get_integrator().set_internal_step_limit(1000)
            try:
                stepper.load_checkpoint(path)
            except KinetreeError:
                outcomes["refused"] += 1
                continue
            assert stepper.get_state().get_y().tobytes() == expected[k], \
                f"file {n} loaded as another State"
            outcomes["loaded"] += 1
            try:
                stepper.step_to(0.15)
            except KinetreeError:
                outcomes["stopped"] += 1
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 100 << 20
    assert outcomes["refused"] > N_FILES // 2 and outcomes["loaded"] > 0
