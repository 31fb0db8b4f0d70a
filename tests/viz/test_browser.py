"""The viewer as a person meets it: Debian's chromium, headless, opens a live Visualizer
and a ``to_html`` replay. The pages must draw the red ball where the camera sees it (its
pixels found within a few pixels of its projection) and move it as frames arrive.

Set KINETREE_SCREENSHOTS to a folder to keep the screenshots (docs/images holds the ones
the docs show)."""

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from support import world

import kinetree as kt

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="Debian's chromium is not installed (`make test` installs it)")
WIDTH, HEIGHT = 960, 640
UI = [(0, 0, 330, 170), (600, 0, WIDTH, 270), (0, HEIGHT - 80, 80, HEIGHT)]
"""Boxes (x0, y0, x1, y1) of the page's own widgets (a notice, the control panel, the axes
gizmo), left out of the search for the ball's pixels."""


@pytest.fixture(scope="module")
def browser():
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--enable-unsafe-swiftshader", "--use-angle=swiftshader", "--no-sandbox"])
        yield chromium
        chromium.close()


def tidy(page) -> None:
    """Close the page's notices (software WebGL, on a machine without a GPU) so that they
    hide nothing."""
    buttons = page.locator(".mantine-Notification-closeButton").all()
    for button in buttons:
        button.click()
    if buttons:
        page.wait_for_timeout(800)


def keep(image: bytes, name: str) -> None:
    folder = os.environ.get("KINETREE_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / name).write_bytes(image)


def red_pixels(png: bytes) -> np.ndarray:
    """(n, 2) pixel coordinates (x right, y down) of the strongly red pixels."""
    import io

    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    red = (r > 120) & (r - g > 60) & (r - b > 60)
    for x0, y0, x1, y1 in UI:
        red[y0:y1, x0:x1] = False
    ys, xs = np.nonzero(red)
    return np.column_stack([xs, ys])


SCREENSHOTS = 200
"""The most screenshots a test takes waiting for the page to show something: a bound on a
failing wait, counted in the page's own frames rather than seconds."""


def wait_for_red(page) -> tuple[bytes, np.ndarray]:
    """A screenshot once the ball is drawn (or after SCREENSHOTS), and its red pixels."""
    for _ in range(SCREENSHOTS):
        tidy(page)
        png = page.screenshot()
        red = red_pixels(png)
        if len(red) > 30:
            break
    return png, red


def wait_for_ball_at(page, expected) -> np.ndarray:
    """The red ball's centre once the page draws it within 12 pixels of ``expected`` (or
    where it is after SCREENSHOTS screenshots)."""
    for _ in range(SCREENSHOTS):
        red = red_pixels(page.screenshot())
        centre = red.mean(axis=0) if len(red) else np.full(2, np.inf)
        if np.linalg.norm(centre - expected) < 12:
            break
    return centre


def moved_from(page, start) -> float:
    """How far (pixels) the red ball's centre has got from ``start`` once it is more than 40
    pixels away (or after SCREENSHOTS screenshots)."""
    distance = 0.0
    for _ in range(SCREENSHOTS):
        red = red_pixels(page.screenshot())
        if len(red):
            distance = np.linalg.norm(red.mean(axis=0) - start)
            if distance > 40:
                break
    return distance


def project(server, point) -> np.ndarray:
    """Pixel coordinates of a point in Ground seen by the page's first camera (three.js's
    perspective camera: vertical field of view, the canvas filling the page)."""
    camera = server.initial_camera
    forward = camera.look_at - camera.position
    forward /= np.linalg.norm(forward)
    right = np.cross(forward, camera.up)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    d = np.asarray(point) - camera.position
    depth = d @ forward
    half = np.tan(camera.fov / 2) * depth
    ndc = np.array([d @ right / (half * WIDTH / HEIGHT), d @ up / half])
    return np.array([(ndc[0] + 1) / 2 * WIDTH, (1 - ndc[1]) / 2 * HEIGHT])


def pendulum():
    system, matter, forces, link = world()
    link.add_decoration(kt.Transform([0, -0.5, 0]), kt.DecorativeSphere(0.1).set_color("red"))
    link.add_decoration(kt.Transform(), kt.DecorativeLine([0, 0, 0], [0, -0.5, 0]))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    state = system.realize_topology()
    pin.set_one_q(state, 0, 1.2)
    return system, pin, state


def test_live_page_draws_the_body_where_it_is_and_frames_arrive(browser):
    system, pin, state = pendulum()
    with kt.Visualizer(system, port=0, verbose=False) as viz:
        viz.draw_frame_now(state)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(viz.get_url())
        png, red = wait_for_red(page)
        keep(png, "visualizer-live.png")
        assert len(red) > 30, "the page shows no red ball"
        ball = pin.find_station_location_in_ground(state, [0, -0.5, 0])
        expected = project(viz.get_server(), ball)
        assert np.linalg.norm(red.mean(axis=0) - expected) < 12, (red.mean(axis=0), expected)

        # Simulate in REAL_TIME; every frame reaches the page, which
        # then shows the ball where the last State has it, far from where it started.
        viz.set_mode(kt.Visualizer.Mode.REAL_TIME)
        system.add_event_reporter(kt.Visualizer.Reporter(viz))
        pin.set_one_q(state, 0, kt.simulate(system, state, 2.0, progress=False).q[-1, 0])
        system.realize(state, kt.Stage.POSITION)
        assert viz.wait_for_frames(timeout=30)
        log = viz.get_frame_log()
        assert log[-1, 1] == pytest.approx(2.0) and len(log) > 10
        assert np.all(np.diff(log[:, 1]) >= 0)   # the first is draw_frame_now's, at t = 0
        ball = pin.find_station_location_in_ground(state, [0, -0.5, 0])
        final = project(viz.get_server(), ball)
        assert np.linalg.norm(final - expected) > 40, "the pendulum ended where it started"
        centre = wait_for_ball_at(page, final)
        assert np.linalg.norm(centre - final) < 12, (centre, final)
        page.close()


def test_replay_file_plays_offline(browser, tmp_path):
    system, pin, state = pendulum()
    traj = kt.simulate(system, state, 2.0, report_interval=1 / 60, progress=False)
    path = traj.to_html(tmp_path / "replay.html")
    assert "__VISER_EMBED_DATA__" in path.read_text()
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    requests = []
    page.on("request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    png, red = wait_for_red(page)
    keep(png, "replay.png")
    assert len(red) > 30, "the replay shows no red ball"
    start = red.mean(axis=0)
    assert moved_from(page, start) > 40, "the replay does not move the ball"
    # Offline: the page asked for nothing but itself and inline data.
    assert all(u.startswith(("file:", "data:", "blob:")) for u in requests), requests
    page.close()


def test_clicks_and_slider_keys_in_the_page_reach_the_input_silo(browser):
    system, pin, state = pendulum()
    silo = kt.Visualizer.InputSilo()
    with kt.Visualizer(system, port=0, verbose=False) as viz:
        viz.add_input_listener(silo)
        viz.add_menu("Pendulum", 2, [("push", 1), ("stop", 2)])
        viz.add_slider("stiffness", 7, 0.0, 10.0, 5.0)
        viz.draw_frame_now(state)
        page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
        page.goto(viz.get_url())
        page.get_by_role("button", name="stop").click()
        assert silo.wait_for_menu_pick(timeout=10) == (2, 2)
        page.get_by_role("slider").first.focus()
        page.keyboard.press("ArrowRight")
        slider, value = silo.wait_for_slider_move(timeout=10)
        assert slider == 7 and value == pytest.approx(5.01)
        tidy(page)
        keep(page.screenshot(), "visualizer-input.png")
        page.close()


def test_demo_replay_draws_every_link(browser, tmp_path):
    from kinetree import demo

    system, matter, rod, state = demo.build_linkage()
    # One instant (the demo's start, where no link hides another), so that the page shows
    # the same pose whenever the screenshot is taken.
    traj = kt.Trajectory([0.0], [state.get_q()], [state.get_u()], template=state,
                         system=system)
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(traj.to_html(tmp_path / "demo.html").as_uri())
    wait_for_red(page)
    png = page.screenshot()
    keep(png, "demo-replay.png")
    import io

    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(float)
    for b in range(1, 6):
        colour = 255 * matter.get_mobilized_body(b).get_body().get_decoration(0).get_color()
        # Shading darkens a face; its hue stays: look for pixels proportional to the colour.
        unit = colour / np.linalg.norm(colour)
        norms = np.linalg.norm(rgb, axis=-1, keepdims=True)
        cosine = (rgb / np.maximum(norms, 1)) @ unit
        assert np.sum((cosine > 0.99) & (norms[..., 0] > 60)) > 40, f"link {b} not drawn"
    page.close()


def test_a_muscle_models_replay_draws_its_paths_by_activation(browser, tmp_path):
    """arm26 at rest with its biceps long head fully active: the replay page draws that
    path red and the resting muscles' blue, as OpenSim's GUI does."""
    import warnings

    from kinetree.io import OsimSkippedWarning, load_osim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(Path(__file__).resolve().parents[2] / "models" / "opensim"
                          / "arm26.osim")
    state = model.get_default_state()
    model.coordinates["r_elbow_flex"].set_value(state, 1.0)
    for name, muscle in model.muscles.items():
        muscle.set_activation(state, 1.0 if name == "BIClong" else 0.02)
    model.system.realize(state, kt.Stage.POSITION)
    one = kt.Trajectory([0.0], [state.get_q()], [state.get_u()], [state.get_z()],
                        template=state, name="arm26", system=model.system)
    page = browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
    page.goto(one.to_html(tmp_path / "arm26.html", model.system).as_uri())
    png, red = wait_for_red(page)
    keep(png, "arm26_muscles.png")
    page.close()
    import io

    from PIL import Image

    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    blue = (rgb[..., 2] > 120) & (rgb[..., 2] - rgb[..., 0] > 60) & \
        (rgb[..., 2] - rgb[..., 1] > 60)
    assert len(red) > 30 and np.count_nonzero(blue) > 2 * len(red)
