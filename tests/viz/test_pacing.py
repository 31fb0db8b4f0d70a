"""The Visualizer's three modes pace a simulation as Simbody's do, measured on the wall
clock with a live viser server (no browser needed): REAL_TIME makes simulated time pass
at the real-time scale behind a lag of the buffer length, re-synchronizing after a pause
instead of racing; SAMPLING never slows the simulation; PASS_THROUGH draws every frame at
most at the frame rate. Shutting the view down, or the view failing, loses no run."""

import time

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import KinetreeWarning

Mode = kt.Visualizer.Mode


@pytest.fixture
def pendulum():
    system, matter, forces, link = world()
    link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 1.0)
    viz = kt.Visualizer(system, port=0, verbose=False)
    yield system, state, viz
    viz.shutdown()


def run(system, state, viz, t_final, interval=None, pause_at=None, pause=0.0):
    """Simulate to t_final with viz's Reporter; returns the wall time it took."""
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.initialize(state)
    reporter = kt.Visualizer.Reporter(viz, interval)
    start = time.perf_counter()
    reporter.handle_event(stepper.get_state())
    t, dt = 0.0, reporter.get_event_interval()
    while t < t_final - 1e-12:
        t = min(t + dt, t_final)
        stepper.step_to(t)
        reporter.handle_event(stepper.get_state())
        if pause_at is not None and abs(t - pause_at) < dt / 2:
            time.sleep(pause)
    return time.perf_counter() - start


def test_real_time_takes_the_simulated_time_behind_the_buffer(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.REAL_TIME).set_desired_buffer_length_in_sec(0.15)
    wall = run(system, state, viz, 1.5)
    assert viz.wait_for_frames(timeout=2)
    log = viz.get_frame_log()
    # The simulation takes 1.5 s of wall time (it is held back to real time): the
    # first frame waits one lag before it is drawn, the last is handed over a lag
    # before it is due.
    assert 1.5 - 0.15 - 0.05 <= wall <= 1.5 + 0.15
    assert len(log) == 46                                    # t = 0, 1/30, ..., 1.5
    drawn, t_sim, reported = log.T
    slope = np.polyfit(t_sim, drawn, 1)[0]
    assert slope == pytest.approx(1.0, abs=0.01)              # wall s per simulated s
    assert np.median(np.diff(drawn)) == pytest.approx(1 / 30, abs=0.003)
    lag = drawn - reported
    assert np.median(lag) == pytest.approx(0.15, abs=0.04)


def test_real_time_scale_slows_the_view(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.REAL_TIME).set_real_time_scale(0.5)
    run(system, state, viz, 0.5)
    viz.wait_for_frames(timeout=2)
    drawn, t_sim, _ = viz.get_frame_log().T
    assert np.polyfit(t_sim, drawn, 1)[0] == pytest.approx(2.0, abs=0.03)


def test_real_time_resynchronizes_after_a_pause_instead_of_racing(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.REAL_TIME).set_desired_buffer_length_in_sec(0.1)
    run(system, state, viz, 1.0, pause_at=0.5, pause=0.6)
    viz.wait_for_frames(timeout=2)
    drawn, t_sim, _ = viz.get_frame_log().T
    gaps = np.diff(drawn)
    # One long gap where the simulation stopped; every other frame keeps its spacing:
    # no burst of frames drawn back to back to catch up.
    assert gaps.max() > 0.5
    assert np.sum(gaps < 0.5 / 30) == 0
    after = t_sim > 0.55
    assert np.polyfit(t_sim[after], drawn[after], 1)[0] == pytest.approx(1.0, abs=0.02)


def test_sampling_runs_at_full_speed_and_drops_frames(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.SAMPLING)
    reference = run(system, state.copy(), viz, 0.01)           # compiles, if needed
    reports = 2000
    start = time.perf_counter()
    run(system, state, viz, 2.0, interval=2.0 / reports)
    wall = time.perf_counter() - start
    assert reference >= 0
    assert wall < 2.0                 # less than the 2 s REAL_TIME would have taken
    log = viz.get_frame_log()
    assert viz.get_num_dropped_frames() > reports / 2
    assert len(log) <= wall * 30 + 3


def test_pass_through_draws_every_frame_at_most_at_the_frame_rate(pendulum):
    system, state, viz = pendulum
    viz.set_mode(Mode.PASS_THROUGH).set_desired_frame_rate(60)
    wall = run(system, state, viz, 0.5, interval=0.5 / 30)
    viz.wait_for_frames(timeout=2)
    log = viz.get_frame_log()
    assert len(log) == 31                                      # every report drawn
    assert np.diff(log[:, 0]).min() >= 1 / 60 - 1e-3
    assert wall >= 29 / 60                                     # held to the frame rate


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
