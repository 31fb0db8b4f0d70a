"""An event handler interrupted under simulate (Ctrl-C, or an exception) is not lost: the
error's State is the one the event found, and simulate going on from it handles the event
first, as a TimeStepper called again does, so the run ends where an uninterrupted one
does."""

import math

import pytest
from support import world

import kinetree as kt
from kinetree.errors import SimulationError


class Rebound(kt.TriggeredEventHandler):
    """When the pendulum passes the vertical, it loses half its speed; the ``fail``-th
    call (from 1) raises ``error`` before changing anything."""

    def __init__(self, pin, fail=None, error=KeyboardInterrupt):
        super().__init__()
        self.pin, self.fail, self.error = pin, fail, error
        self.calls, self.handled_at = 0, []

    def get_value(self, state):
        return self.pin.get_one_q(state, 0)

    def handle_event(self, state, accuracy):
        self.calls += 1
        if self.calls == self.fail:
            raise self.error("interrupted while handling")
        self.pin.set_one_u(state, 0, 0.5 * self.pin.get_one_u(state, 0))
        self.handled_at.append(state.get_time())
        return False


def pendulum(fail=None, error=KeyboardInterrupt):
    system, matter, forces, link = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    handler = Rebound(pin, fail, error)
    system.add_event_handler(handler)
    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.5)
    return system, pin, handler, state


T_FINAL, ACCURACY = 2.0, 1e-10


@pytest.mark.parametrize("error", [KeyboardInterrupt, RuntimeError])
def test_simulate_going_on_from_an_interrupted_event_handles_it(error):
    system, pin, reference, state = pendulum()
    expected = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY, progress=False)
    assert len(reference.handled_at) >= 2

    system, pin, handler, state = pendulum(fail=2, error=error)
    caught = KeyboardInterrupt if error is KeyboardInterrupt else SimulationError
    with pytest.raises(caught) as info:
        kt.simulate(system, state, T_FINAL, accuracy=ACCURACY, progress=False)
    at = info.value.state
    assert at.get_time() == pytest.approx(reference.handled_at[1], abs=1e-8)
    assert len(handler.handled_at) == 1

    rest = kt.simulate(system, at, T_FINAL, accuracy=ACCURACY, progress=False)
    assert handler.calls == len(reference.handled_at) + 1        # the event, once more
    assert handler.handled_at == pytest.approx(reference.handled_at, abs=1e-8)
    assert rest.t[-1] == T_FINAL
    assert rest.q[-1, 0] == pytest.approx(expected.q[-1, 0], abs=1e-6)
    assert rest.u[-1, 0] == pytest.approx(expected.u[-1, 0], abs=1e-6)


def test_only_the_errors_own_state_carries_the_event():
    """A copy of the error's State, or any other State, starts a run with no event owed:
    the State given is taken as the one after any event at its time."""
    system, pin, handler, state = pendulum(fail=1)
    with pytest.raises(KeyboardInterrupt) as info:
        kt.simulate(system, state, T_FINAL, accuracy=ACCURACY, progress=False)
    copy = info.value.state.copy()
    kt.simulate(system, copy, copy.get_time() + 0.01, accuracy=ACCURACY, progress=False)
    assert handler.calls == 1 and handler.handled_at == []
    quarter = math.pi / 2 * math.sqrt(0.5 / 9.81)
    assert copy.get_time() > 0.5 * quarter
