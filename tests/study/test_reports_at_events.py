"""A report due at the time of an event happens once, with the State after the event, even
when the two schedules meet one rounding apart (9 × 1/30 s and 6 × 0.05 s differ by an
ulp): a Visualizer's reporter beside a periodic input handler must not lose frames."""

import numpy as np
import pytest
from support import world

import kinetree as kt


class Times(kt.PeriodicEventReporter):
    def __init__(self, interval, pin):
        super().__init__(interval)
        self.pin, self.seen = pin, []

    def handle_event(self, state):
        self.seen.append((state.get_time(), self.pin.get_one_u(state, 0)))


class Kick(kt.PeriodicEventHandler):
    def __init__(self, interval, pin):
        super().__init__(interval)
        self.pin = pin

    def handle_event(self, state, accuracy):
        self.pin.set_one_u(state, 0, 100.0 * state.get_time())
        return False


@pytest.mark.parametrize("report, handle", [(1 / 30, 0.05), (0.1, 0.1), (0.01, 0.03)])
def test_every_report_happens_once_after_coinciding_events(report, handle):
    system, matter, forces, link = world()
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    reporter = system.add_event_reporter(Times(report, pin))
    system.add_event_handler(Kick(handle, pin))
    state = system.realize_topology()
    kt.simulate(system, state, 1.0, accuracy=1e-6, progress=False)
    times = np.array([t for t, _ in reporter.seen])
    n = int(round(1.0 / report))
    np.testing.assert_allclose(times, np.arange(n + 1) * report, atol=1e-12)
    for t, u in reporter.seen:
        k = round(t / handle)
        if t > 0 and abs(k * handle - t) < 1e-12:
            assert u == pytest.approx(100.0 * t, rel=1e-12), t    # after the kick
