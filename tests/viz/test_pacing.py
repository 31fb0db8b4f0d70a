"""The Visualizer's three modes pace a simulation as Simbody's do, with a live viser server
(no browser needed): REAL_TIME makes simulated time pass at the real-time scale behind a
lag of the buffer length, re-synchronizing after a pause instead of racing; SAMPLING never
slows the simulation; PASS_THROUGH draws every frame at most at the frame rate. The pacing
is checked on a virtual clock, exactly and whatever the machine's load. Shutting the view
down, or the view failing, loses no run."""

import math

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import KinetreeWarning

Mode = kt.Visualizer.Mode


class VirtualClock:
    """Time that passes only while both of a Visualizer's threads wait on it (its drawing
    thread, and the one reporting or sleeping here): it then jumps to the sooner of their
    deadlines. Computing takes no time on it; ``sleep`` is a simulation that takes time.
    Every pacing decision is then exact, and the same on any machine."""

    PARTIES = 2
    STUCK = 60.0
    """Real seconds after which a wait that nothing ends fails the test instead of hanging
    it (never reached when the pacing is right)."""

    def __init__(self):
        self.t = 100.0
        self._waiting = {}              # one entry per waiting thread: its deadline
        self._condition = None

    def now(self) -> float:
        return self.t

    def wait(self, condition, timeout) -> None:
        self._condition = condition
        token = object()
        self._waiting[token] = math.inf if timeout is None else self.t + timeout
        try:
            if len(self._waiting) == self.PARTIES:
                soonest = min(self._waiting.values())
                assert soonest < math.inf, "both threads wait for each other"
                self.t = max(self.t, soonest)
                self.notify_all(condition)
            elif not condition.wait(self.STUCK):
                raise AssertionError("a wait on the virtual clock never ended")
        finally:
            self._waiting.pop(token, None)

    def notify_all(self, condition) -> None:
        self._condition = condition
        self._waiting.clear()           # everyone woken is running, no longer waiting
        condition.notify_all()

    def sleep(self, seconds: float) -> None:
        """Let ``seconds`` of virtual time pass in this thread, the drawing thread running
        on time meanwhile (after the first report, which makes the Visualizer's condition
        known)."""
        with self._condition:
            end = self.t + seconds
            while self.t < end:
                self.wait(self._condition, end - self.t)


@pytest.fixture
def pendulum():
    yield from _pendulum(None)


@pytest.fixture
def paced():
    """The pendulum's Visualizer on a VirtualClock: (system, state, viz, clock)."""
    clock = VirtualClock()
    for system, state, viz in _pendulum(clock):
        yield system, state, viz, clock


def _pendulum(clock):
    system, matter, forces, link = world()
    link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 1.0)
    viz = kt.Visualizer(system, port=0, verbose=False, clock=clock)
    yield system, state, viz
    viz.shutdown()


def run(system, state, viz, t_final, interval=None, sleep=None, each_report=0.0):
    """Simulate to t_final with viz's Reporter; ``sleep(s)`` after each report takes
    ``each_report`` seconds (a simulation that takes time)."""
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    reporter = kt.Visualizer.Reporter(viz, interval)
    reporter.handle_event(stepper.get_state())
    t, dt = 0.0, reporter.get_event_interval()
    while t < t_final - 1e-12:
        t = min(t + dt, t_final)
        stepper.step_to(t)
        reporter.handle_event(stepper.get_state())
        if each_report:
            sleep(each_report(t) if callable(each_report) else each_report)


def test_real_time_takes_the_simulated_time_behind_the_buffer(paced):
    system, state, viz, clock = paced
    viz.set_mode(Mode.REAL_TIME).set_desired_buffer_length_in_sec(0.15)
    start = clock.now()
    run(system, state, viz, 1.5)
    # Held back to real time: the last report returns one lag before its frame is due.
    assert clock.now() - start == pytest.approx(1.5, abs=1e-9)
    assert viz.wait_for_frames()
    drawn, t_sim, reported = viz.get_frame_log().T
    assert len(drawn) == 46                                   # t = 0, 1/30, ..., 1.5
    # Each frame drawn its simulated time after the first report, plus the lag.
    np.testing.assert_allclose(drawn - t_sim, start + 0.15, rtol=0, atol=1e-9)
    assert np.all(drawn - reported >= 0.15 - 1e-9)


def test_real_time_scale_slows_the_view(paced):
    system, state, viz, clock = paced
    viz.set_mode(Mode.REAL_TIME).set_real_time_scale(0.5)
    run(system, state, viz, 0.5)
    assert viz.wait_for_frames()
    drawn, t_sim, _ = viz.get_frame_log().T
    assert len(drawn) == 31                 # a frame every 0.5 / 30 s of simulated time
    np.testing.assert_allclose(np.diff(drawn), 2 * np.diff(t_sim), rtol=0, atol=1e-9)


def test_real_time_resynchronizes_after_a_pause_instead_of_racing(paced):
    system, state, viz, clock = paced
    viz.set_mode(Mode.REAL_TIME).set_desired_buffer_length_in_sec(0.1)
    run(system, state, viz, 1.0, sleep=clock.sleep,
        each_report=lambda t: 0.6 if abs(t - 0.5) < 1e-9 else 0.0)
    assert viz.wait_for_frames()
    drawn, t_sim, _ = viz.get_frame_log().T
    gaps = np.diff(drawn)
    # One long gap where the simulation stopped; every other frame keeps its spacing:
    # no burst of frames drawn back to back to catch up.
    long = np.flatnonzero(gaps > 1 / 30 + 1e-9)
    assert len(long) == 1 and t_sim[long[0]] == pytest.approx(0.5)
    np.testing.assert_allclose(np.delete(gaps, long), 1 / 30, rtol=0, atol=1e-9)
    # The frame after the pause is drawn one lag after its report, as the first frame
    # was: the clock starts again, and the gap is the pause itself.
    assert gaps[long[0]] == pytest.approx(0.6, abs=1e-9)


def test_sampling_runs_at_full_speed_and_drops_frames(paced):
    system, state, viz, clock = paced
    viz.set_mode(Mode.SAMPLING)
    reports = 2000
    start = clock.now()
    run(system, state, viz, 2.0, interval=2.0 / reports, sleep=clock.sleep,
        each_report=0.001)
    # The simulation never waited: it took exactly the time it computed.
    assert clock.now() - start == pytest.approx(reports * 0.001, abs=1e-9)
    assert viz.wait_for_frames()
    drawn = viz.get_frame_log()[:, 0]
    # A frame kept a frame period (34 reports of 1 ms) after the last one kept.
    assert viz.get_num_dropped_frames() == reports + 1 - math.ceil((reports + 1) / 34)
    assert np.diff(drawn).min() >= 1 / 30 - 1e-9
    assert 2.0 * 30 - 3 <= len(drawn) <= 2.0 * 30 + 1


def test_pass_through_draws_every_frame_at_most_at_the_frame_rate(paced):
    system, state, viz, clock = paced
    viz.set_mode(Mode.PASS_THROUGH).set_desired_frame_rate(60)
    start = clock.now()
    run(system, state, viz, 0.5, interval=0.5 / 30)
    # Held to the frame rate: the last report waited for the one before it to be drawn.
    assert clock.now() - start == pytest.approx(29 / 60, abs=1e-9)
    assert viz.wait_for_frames()
    drawn = viz.get_frame_log()[:, 0]
    assert len(drawn) == 31                                   # every report drawn
    np.testing.assert_allclose(np.diff(drawn), 1 / 60, rtol=0, atol=1e-9)


def test_shutting_down_mid_run_loses_nothing(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.REAL_TIME)
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    for k in range(1, 31):
        stepper.step_to(k / 30)
        viz.report(stepper.get_state())
        if k == 10:
            viz.shutdown()
    assert viz.is_shut_down()
    assert stepper.get_state().get_time() == pytest.approx(1.0)


def test_a_failing_view_warns_once_and_the_run_goes_on(pendulum, monkeypatch):
    system, state, viz = pendulum
    viz.set_mode(Mode.PASS_THROUGH)
    viz.draw_frame_now(state)

    def broken(frame):
        raise RuntimeError("browser gone")

    monkeypatch.setattr(viz._scene, "show", broken)
    with pytest.warns(KinetreeWarning, match="browser gone"):
        run(system, state, viz, 0.5)      # the run goes on to its end
        viz.shutdown()                    # joins the drawing thread, which has warned
    assert viz.is_shut_down()
    assert len(viz.get_frame_log()) == 1  # draw_frame_now's; the failed draw logged nothing


def test_reporter_interval_is_a_frame_of_simulated_time(pendulum):
    system, state, viz = pendulum
    viz.set_desired_frame_rate(25).set_real_time_scale(2.0)
    assert kt.Visualizer.Reporter(viz).get_event_interval() == pytest.approx(2.0 / 25)
    with pytest.raises(kt.errors.InvalidArgumentError, match="frame rate"):
        viz.set_desired_frame_rate(0)
    with pytest.raises(kt.errors.InvalidArgumentError, match="Mode"):
        viz.set_mode(7)


def test_simulate_with_a_reporter_feeds_the_view(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.SAMPLING)
    system.add_event_reporter(kt.Visualizer.Reporter(viz, 0.01))
    traj = kt.simulate(system, state, 0.2, progress=False)
    assert traj.t[-1] == pytest.approx(0.2)
    assert viz.wait_for_frames(timeout=10)          # drawn on the drawing thread
    assert len(viz.get_frame_log()) >= 1


def test_camera_and_scene_settings_reach_the_page(pendulum):
    system, state, viz = pendulum
    server = viz.get_server()
    X_GC = kt.Transform(kt.Rotation.about_y(np.pi / 2), [3, 1, 0])
    viz.set_camera_transform(X_GC)
    np.testing.assert_allclose(server.initial_camera.position, [3, 1, 0])
    # Simbody's camera looks along its -z: here -x of Ground, toward the origin.
    np.testing.assert_allclose(server.initial_camera.look_at, [2, 1, 0], atol=1e-15)
    np.testing.assert_allclose(server.initial_camera.up, [0, 1, 0], atol=1e-15)
    viz.point_camera_at([0, -0.5, 0], [0, 1, 0])
    np.testing.assert_allclose(server.initial_camera.look_at, [0, -0.5, 0])
    viz.set_camera_field_of_view(0.5).set_camera_clipping_planes(0.1, 50)
    assert server.initial_camera.fov == 0.5 and server.initial_camera.far == 50
    viz.set_system_up_direction("+z").set_ground_height(-2.0).set_show_sim_time(True)
    viz.draw_frame_now(state)
    assert viz._scene.up == "+z"
    viz.zoom_camera_to_show_all_geometry()
    assert np.linalg.norm(server.initial_camera.look_at - [0, -0.5, 0]) < 0.5
    for bad in (lambda: viz.set_system_up_direction("up"),
                lambda: viz.set_camera_field_of_view(4.0),
                lambda: viz.set_camera_clipping_planes(1, 0.5)):
        with pytest.raises(kt.errors.InvalidArgumentError, match="Visualizer"):
            bad()


def test_rubber_band_line_joins_two_stations_every_frame(pendulum):
    system, state, viz = pendulum
    viz.add_rubber_band_line(0, [1, 0, 0], 1, [0, -0.5, 0],
                             kt.DecorativeLine().set_color("blue"))
    pin = system.get_matter_subsystem().get_mobilized_body(1)
    for q in (0.0, 1.0):
        pin.set_one_q(state, 0, q)
        frame = viz._frame(state)
        (X, line), = frame.generated
        np.testing.assert_allclose(line.get_point1(), [1, 0, 0])
        np.testing.assert_allclose(line.get_point2(),
                                   pin.find_station_location_in_ground(state, [0, -0.5, 0]))
        np.testing.assert_allclose(line.get_color(), [0, 0, 1])


@pytest.mark.parametrize("where", [dict(port=-1), dict(port=70000), dict(port="abc"),
                                   dict(port=True), dict(port=8.5),
                                   dict(host="256.1.1.1"), dict(host="no such host.invalid")])
def test_a_bad_port_or_host_is_refused_at_once(where):
    """viser serves from a thread of its own, whose failure would leave the constructor
    waiting: the port and the host are checked first."""
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    with pytest.raises(kt.errors.InvalidArgumentError, match="Visualizer: "):
        kt.Visualizer(system, verbose=False, **where)
