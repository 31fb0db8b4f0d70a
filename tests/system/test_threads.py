"""Threads: one State, integrator or TimeStepper used by a second thread while a first is
inside it is refused (ConcurrentUseError) instead of handing either thread the other's
numbers; one State (and integrator) per thread is safe, and gives the numbers a single
thread gives. The tests hold the first thread inside with events, never with sleeps."""

import sys
import threading

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import ConcurrentUseError
from kinetree.system.threads import enter, leave


class Gate(kt.Force.Custom.Implementation):
    """A light spring on the first mobility; once armed, its next evaluation announces it
    is inside (``inside``) and waits for ``go``."""

    def __init__(self):
        self.armed = False
        self.inside, self.go = threading.Event(), threading.Event()

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        if self.armed:
            self.armed = False
            self.inside.set()
            assert self.go.wait(timeout=60), "the test never opened the gate"
        mobility_forces[0] -= 0.5 * state.get_q()[0]


def model():
    gate = Gate()
    system, matter, forces, link = world()
    kt.Force.Custom(forces, gate)
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    kt.MobilizedBody.Pin(upper, kt.Transform([0, -1, 0]), link, kt.Transform())
    state = system.realize_topology()
    state.set_q([0.4, -0.3])
    return system, gate, state


def while_inside(gate, first, second):
    """Run ``first`` in a thread until it is held inside the gate, then ``second`` here;
    returns what ``second`` raised (or None) once ``first`` has finished."""
    failures = []

    def run():
        try:
            first()
        except BaseException as error:     # noqa: BLE001 - reported to the test below
            failures.append(error)

    gate.armed = True
    thread = threading.Thread(target=run)
    thread.start()
    assert gate.inside.wait(timeout=60)
    try:
        second()
        raised = None
    except ConcurrentUseError as error:
        raised = error
    finally:
        gate.go.set()
        thread.join()
    assert not failures, failures
    return raised


def test_a_state_realized_by_a_second_thread_while_the_first_is_inside_is_refused():
    system, gate, state = model()
    system.realize(state, kt.Stage.ACCELERATION)
    expected = np.array(state.get_u_dot())
    state.set_u([0.0, 0.0])                   # the first thread realizes from here
    raised = while_inside(gate, lambda: system.realize(state, kt.Stage.ACCELERATION),
                          lambda: system.realize(state, kt.Stage.ACCELERATION))
    assert raised is not None and "This State is in use by another thread" in str(raised)
    np.testing.assert_array_equal(state.get_u_dot(), expected)   # the first one's result
    system.realize(state, kt.Stage.REPORT)    # free again once it is done


def test_a_built_in_realization_refuses_a_state_another_thread_is_inside():
    """A model of built-in elements realizes in one compiled call: it checks the State is
    not another thread's before it writes a number."""
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    inside, go = threading.Event(), threading.Event()

    def hold():
        enter(state, "This State")
        try:
            inside.set()
            go.wait(timeout=60)
        finally:
            leave(state)

    thread = threading.Thread(target=hold)
    thread.start()
    assert inside.wait(timeout=60)
    try:
        state.set_q([0.3])
        with pytest.raises(ConcurrentUseError, match="This State is in use"):
            system.realize(state, kt.Stage.ACCELERATION)
    finally:
        go.set()
        thread.join()
    system.realize(state, kt.Stage.ACCELERATION)
    assert state.get_u_dot()[0] != 0.0


@pytest.mark.parametrize("stepper", ["integrator", "time stepper"])
def test_one_stepper_stepped_from_two_threads_is_refused(stepper):
    system, gate, state = model()
    integ = kt.RungeKuttaMersonIntegrator(system)
    runner = integ if stepper == "integrator" else kt.TimeStepper(system, integ)
    runner.initialize(state)
    raised = while_inside(gate, lambda: runner.step_to(0.5), lambda: runner.step_to(0.5))
    assert raised is not None and "in use by another thread" in str(raised)
    name = "integrator" if stepper == "integrator" else "TimeStepper"
    assert f"This {name}" in str(raised)
    runner.step_to(0.5)                       # the first thread's run went on to the end
    assert runner.get_state().get_time() == 0.5


def test_one_state_and_integrator_per_thread_gives_what_one_thread_gives():
    """Four threads simulate four States of one System at once, switching every
    microsecond: each gets, to the bit, what the same run gives alone."""
    system, gate, state = model()
    starts = [np.array([0.1 * k, -0.2 * k]) for k in range(1, 5)]

    def run(q, out, index):
        s = state.copy()
        s.set_q(q)
        out[index] = kt.simulate(system, s, 0.3, accuracy=1e-8, progress=False)

    alone = [None] * 4
    for k, q in enumerate(starts):
        run(q, alone, k)
    together = [None] * 4
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=run, args=(q, together, k))
                   for k, q in enumerate(starts)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    for a, b in zip(alone, together, strict=True):
        assert b is not None
        np.testing.assert_array_equal(a.t, b.t)
        np.testing.assert_array_equal(a.q, b.q)
        np.testing.assert_array_equal(a.u, b.u)
