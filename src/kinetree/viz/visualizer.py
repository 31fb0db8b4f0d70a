"""Visualizer: Simbody's real-time viewer, served to a browser by viser.

A simulation reports States (``report``, usually through a ``Visualizer.Reporter`` event
reporter); each becomes a Frame (body poses and per-frame decorations, made in the
simulation's thread) that a drawing thread sends to the browser. The three modes pace that
hand-over as Simbody's Visualizer does:

- PASS_THROUGH: every reported frame is drawn, at most ``frame_rate`` a second; ``report``
  waits for the previous frame to be drawn, so a fast simulation slows to the frame rate.
- SAMPLING: ``report`` never waits; it keeps a frame when a frame period of wall time has
  passed since the last one kept and drops the others, so the simulation runs at full
  speed and the view shows samples of it.
- REAL_TIME: the paper's local lag. Frame k, at simulated time t_k, is due at wall time
  T_0 + (t_k - t_0) / real_time_scale + lag (the buffer length): the drawing thread waits
  for it, and ``report`` waits while the simulation is more than the lag ahead, so
  simulated time passes at real_time_scale times wall time and a buffer of ``lag``
  seconds of frames absorbs the unevenness of the computation. A frame that arrives
  already late (the simulation fell behind, or was paused) re-synchronizes the clock
  (T_0, t_0 := now, t_k) instead of racing to catch up.

The browser never slows the simulation (viser queues what is sent), and closing the page
or calling ``shutdown`` loses nothing: ``report`` then returns at once.
"""

from __future__ import annotations

import collections
import threading
import time
import warnings
from enum import IntEnum

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeWarning
from kinetree.system.events import PeriodicEventReporter
from kinetree.viz.decorations import DecorativeGeometry
from kinetree.viz.input import InputListener, InputSilo
from kinetree.viz.scene import Frame, Scene, start_server, stop_server


class Mode(IntEnum):
    """How reported frames are paced (see the module's docstring)."""
    PASS_THROUGH = 1
    SAMPLING = 2
    REAL_TIME = 3


def _positive(value, where: str, what: str) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = float("nan")
    if not (v > 0 and np.isfinite(v)):
        raise InvalidArgumentError(f"Visualizer.{where}: {what} must be positive and finite, "
                                   f"got {value!r}.")
    return v


def _range(min_value, max_value, where: str) -> tuple[float, float]:
    lo, hi = float(min_value), float(max_value)
    if not (np.isfinite([lo, hi]).all() and lo < hi):
        raise InvalidArgumentError(
            f"Visualizer.{where}: a slider needs finite min < max, got min {min_value!r}, "
            f"max {max_value!r}.")
    return lo, hi


class WallClock:
    """The time a Visualizer paces by: the wall clock (s, ``time.perf_counter``). Its
    waits and notifications go through it, with the Visualizer's condition held, so that
    a test can pace a Visualizer by a clock of its own with these three methods."""

    @staticmethod
    def now() -> float:
        return time.perf_counter()

    @staticmethod
    def wait(condition: threading.Condition, timeout: float | None) -> None:
        """Wait on ``condition`` (held) until notified or ``timeout`` seconds pass."""
        condition.wait(timeout)

    @staticmethod
    def notify_all(condition: threading.Condition) -> None:
        """Wake every thread waiting on ``condition`` (held)."""
        condition.notify_all()


class Reporter(PeriodicEventReporter):
    """An event reporter that reports the State to a Visualizer every ``report_interval``
    seconds of simulated time; by default one frame period of simulated time
    (real_time_scale / frame_rate), so that REAL_TIME shows every frame it draws from an
    interpolated State at its exact time, however long the integrator's steps."""

    def __init__(self, visualizer: Visualizer, report_interval: float | None = None):
        if not isinstance(visualizer, Visualizer):
            raise InvalidArgumentError(
                f"Visualizer.Reporter: expected a Visualizer, got {type(visualizer).__name__}.")
        if report_interval is None:
            report_interval = (visualizer.get_real_time_scale()
                               / visualizer.get_desired_frame_rate())
        super().__init__(report_interval)
        self._visualizer = visualizer

    def get_visualizer(self) -> Visualizer:
        return self._visualizer

    def handle_event(self, state) -> None:
        self._visualizer.report(state)


class Visualizer:
    """A browser view of ``system``: ``get_url()`` is the page to open (any browser,
    offline; headless machines included). Build it before or after realizing the System's
    topology; the scene is made from the first State reported or drawn, so decorations
    added before that are shown.

    ``host`` and ``port`` say where the page is served (port 0 picks a free one);
    ``show_default_geometry`` draws a frame and lines to the children of bodies with
    nothing else to show; ``ground_plane`` draws a grid through Ground's origin,
    perpendicular to gravity. ``clock`` is the time the modes pace by, a WallClock
    unless given (a test's own clock, with WallClock's three methods).
    """

    Mode = Mode
    Reporter = Reporter
    WallClock = WallClock
    InputListener = InputListener
    InputSilo = InputSilo

    def __init__(self, system, *, host: str = "127.0.0.1", port: int = 8080,
                 show_default_geometry: bool = True, ground_plane: bool = True,
                 verbose: bool = True, clock=None):
        self._system = system
        self._time = clock if clock is not None else WallClock()
        self._server = start_server(host, port)
        self._options = {"show_default_geometry": show_default_geometry,
                         "ground_plane": ground_plane, "up": None, "ground_height": None}
        self._last_frame: Frame | None = None
        self._sim_time = None
        self._scene: Scene | None = None
        self._decorations: list = []
        self._generators: list = []
        self._listeners: list = []
        self._sliders: dict = {}
        self._mode = Mode.PASS_THROUGH
        self._frame_rate = 30.0
        self._scale = 1.0
        self._lag = 0.15
        self._sync = None             # REAL_TIME: (wall time T_0, simulated time t_0)
        self._queue: collections.deque = collections.deque()
        self._undrawn = 0             # frames handed over and not yet drawn
        self._cond = threading.Condition()
        self._draw_lock = threading.Lock()
        self._closed = False
        self._last_kept = -np.inf
        self._last_drawn = -np.inf
        self._log: list = []
        self._dropped = 0
        self._thread = threading.Thread(target=self._draw_loop, daemon=True,
                                        name="kinetree-visualizer")
        self._thread.start()
        if verbose:
            print(f"kinetree Visualizer: open {self.get_url()} in a browser")

    # ------------------------------------------------------------- settings
    def get_url(self) -> str:
        """The address of the page showing this Visualizer."""
        if self._server is None:
            raise InvalidArgumentError("Visualizer.get_url: the Visualizer was shut down.")
        host = self._server.get_host()
        host = "127.0.0.1" if host in ("0.0.0.0", "") else host
        return f"http://{host}:{self._server.get_port()}/"

    def get_server(self):
        """The viser server, for GUI elements and scene nodes of your own."""
        return self._server

    def set_mode(self, mode) -> Visualizer:
        try:
            mode = Mode(mode)
        except ValueError:
            raise InvalidArgumentError(
                f"Visualizer.set_mode: use Visualizer.Mode.PASS_THROUGH, SAMPLING or "
                f"REAL_TIME, got {mode!r}.") from None
        with self._cond:
            self._mode = mode
            self._sync = None
        return self

    def get_mode(self) -> Mode:
        return self._mode

    def set_desired_frame_rate(self, frames_per_second) -> Visualizer:
        """Frames drawn per second of wall time (30 by default)."""
        self._frame_rate = _positive(frames_per_second, "set_desired_frame_rate",
                                     "the frame rate")
        return self

    def get_desired_frame_rate(self) -> float:
        return self._frame_rate

    def set_real_time_scale(self, scale) -> Visualizer:
        """Simulated seconds per wall second in REAL_TIME (1 by default; 0.1 is slow
        motion)."""
        with self._cond:
            self._scale = _positive(scale, "set_real_time_scale", "the real-time scale")
            self._sync = None
        return self

    def get_real_time_scale(self) -> float:
        return self._scale

    def set_desired_buffer_length_in_sec(self, seconds) -> Visualizer:
        """REAL_TIME's lag: wall seconds of frames buffered between the simulation and
        the view (0.15 by default). Longer absorbs more unevenness; shorter responds
        sooner to input."""
        try:
            lag = float(seconds)
        except (TypeError, ValueError):
            lag = float("nan")
        if not (lag >= 0 and np.isfinite(lag)):
            raise InvalidArgumentError(
                f"Visualizer.set_desired_buffer_length_in_sec: the buffer length is a "
                f"non-negative number of seconds, got {seconds!r}.")
        with self._cond:
            self._lag = lag
            self._sync = None
        return self

    def get_desired_buffer_length_in_sec(self) -> float:
        return self._lag

    # ------------------------------------------------------ scene and camera
    def set_system_up_direction(self, direction: str) -> Visualizer:
        """The Ground axis drawn up: "+x", "+y", "+z", "-x", "-y" or "-z" (by default the
        one opposite gravity, "+y" without gravity)."""
        if direction not in ("+x", "+y", "+z", "-x", "-y", "-z"):
            raise InvalidArgumentError(
                f"Visualizer.set_system_up_direction: use one of '+x', '+y', '+z', '-x', "
                f"'-y', '-z', got {direction!r}.")
        self._options["up"] = direction
        self._scene = None          # rebuilt at the next frame
        return self

    def set_ground_height(self, height) -> Visualizer:
        """Where the ground grid lies along the up direction (m; by default through
        Ground's origin, or below the model if it hangs lower)."""
        h = float(height)
        if not np.isfinite(h):
            raise InvalidArgumentError(
                f"Visualizer.set_ground_height: the height must be finite, got {height!r}.")
        self._options["ground_height"] = h
        self._scene = None
        return self

    def set_background_color(self, color) -> Visualizer:
        """The page's background, RGB in [0, 1] (or a colour name)."""
        rgb = DecorativeGeometry().set_color(color).get_color()
        self._server.scene.set_background_image(
            np.full((2, 2, 3), np.round(255 * rgb), dtype=np.uint8), format="png")
        return self

    def set_show_sim_time(self, show: bool) -> Visualizer:
        """Show the simulated time of the frame drawn in the control panel."""
        if show and self._sim_time is None:
            self._sim_time = self._server.gui.add_markdown("t = ")
        elif not show and self._sim_time is not None:
            self._sim_time.remove()
            self._sim_time = None
        return self

    def _camera(self, **values) -> None:
        """Set the camera of the page (its first view) and of every open page."""
        cameras = [self._server.initial_camera]
        cameras += [client.camera for client in self._server.get_clients().values()]
        for camera in cameras:
            for name, value in values.items():
                setattr(camera, name, value)

    def set_camera_transform(self, X_GC) -> Visualizer:
        """Put the camera at X_GC (a Transform in Ground, m): looking along its -z, its y
        up, as Simbody's camera frame."""
        R = X_GC.R.as_matrix()
        p = np.asarray(X_GC.p, dtype=float)
        self._camera(position=p, look_at=p - R[:, 2], up=R[:, 1])
        return self

    def point_camera_at(self, point, up_direction) -> Visualizer:
        """Turn the camera, where it is, to look at ``point`` (m, in Ground) with
        ``up_direction`` up."""
        self._camera(look_at=np.asarray(point, dtype=float),
                     up=np.asarray(up_direction, dtype=float))
        return self

    def zoom_camera_to_show_all_geometry(self) -> Visualizer:
        """Aim the camera at the bodies of the last frame drawn, from far enough to see
        them all (what the page does at the first frame)."""
        if self._scene is not None and self._last_frame is not None:
            self._scene.fit_view(self._server, self._last_frame, grid=False)
            camera = self._server.initial_camera
            self._camera(position=camera.position, look_at=camera.look_at, up=camera.up)
        return self

    def set_camera_field_of_view(self, angle) -> Visualizer:
        """The camera's vertical field of view (rad)."""
        a = float(angle)
        if not 0 < a < np.pi:
            raise InvalidArgumentError(
                f"Visualizer.set_camera_field_of_view: the angle is in (0, π) rad, got "
                f"{angle!r}.")
        self._camera(fov=a)
        return self

    def set_camera_clipping_planes(self, near, far) -> Visualizer:
        """Draw only what lies between ``near`` and ``far`` (m) from the camera."""
        near, far = float(near), float(far)
        if not 0 < near < far < np.inf:
            raise InvalidArgumentError(
                f"Visualizer.set_camera_clipping_planes: need 0 < near < far, got near "
                f"{near!r}, far {far!r}.")
        self._camera(near=near, far=far)
        return self

    # ---------------------------------------------------------- decorations
    def add_decoration(self, body: int, X_BD, geometry: DecorativeGeometry) -> int:
        """Draw ``geometry`` fixed to mobilized body ``body`` (0: Ground) at X_BD, in
        addition to what the bodies carry. Returns its index."""
        if not isinstance(geometry, DecorativeGeometry):
            raise InvalidArgumentError(
                f"Visualizer.add_decoration: expected a DecorativeGeometry, got "
                f"{type(geometry).__name__}.")
        mine = geometry.copy().set_body_id(body)
        mine.set_transform(X_BD @ geometry.get_transform())
        self._decorations.append(mine)
        self._scene = None      # rebuilt with it at the next frame
        return len(self._decorations) - 1

    def add_decoration_generator(self, generator) -> int:
        """Call ``generator.generate_decorations(state, geometry)`` for every frame; the
        decorations it appends to the list ``geometry`` are drawn for that frame only, in
        Ground unless their body id is set (then at X_BD on that body)."""
        if not callable(getattr(generator, "generate_decorations", None)):
            raise InvalidArgumentError(
                f"Visualizer.add_decoration_generator: {type(generator).__name__} has no "
                f"generate_decorations(state, geometry) method.")
        self._generators.append(generator)
        return len(self._generators) - 1

    def add_rubber_band_line(self, body1: int, station1, body2: int, station2,
                             line=None) -> int:
        """A line drawn every frame from ``station1`` on mobilized body ``body1`` to
        ``station2`` on ``body2`` (each in its body's frame, m), as ``line`` (a
        DecorativeLine, for its colour and thickness) looks."""
        from kinetree.viz.generators import RubberBandLine

        return self.add_decoration_generator(
            RubberBandLine(self._system, body1, station1, body2, station2, line))

    # ---------------------------------------------------------------- input
    def add_input_listener(self, listener: InputListener) -> int:
        """Give browser input (slider moves, menu picks, keys) to ``listener``; listeners
        see an event in the order added until one returns True."""
        if not isinstance(listener, InputListener):
            raise InvalidArgumentError(
                f"Visualizer.add_input_listener: expected a Visualizer.InputListener (a "
                f"Visualizer.InputSilo, say), got {type(listener).__name__}.")
        self._listeners.append(listener)
        return len(self._listeners) - 1

    def _dispatch(self, event: str, *args) -> None:
        for listener in list(self._listeners):
            if getattr(listener, event)(*args):
                return

    def add_slider(self, title: str, slider_id: int, min_value, max_value, value) -> Visualizer:
        """A slider in the page's control panel; moving it sends (slider_id, value) to the
        input listeners."""
        lo, hi = _range(min_value, max_value, "add_slider")
        v = float(value)
        if not lo <= v <= hi:
            raise InvalidArgumentError(
                f"Visualizer.add_slider: '{title}' needs its value between min and max, got "
                f"{value!r} outside [{lo}, {hi}].")
        handle = self._server.gui.add_slider(str(title), min=lo, max=hi, step=(hi - lo) / 1000,
                                             initial_value=v)

        @handle.on_update
        def _(event) -> None:
            if event.client is not None:
                self._dispatch("slider_moved", slider_id, float(handle.value))

        self._sliders[slider_id] = handle
        return self

    def set_slider_value(self, slider_id: int, value) -> Visualizer:
        """Move slider ``slider_id`` (listeners are not told: the program moved it)."""
        self._slider(slider_id, "set_slider_value").value = float(value)
        return self

    def _slider(self, slider_id: int, where: str):
        if slider_id not in self._sliders:
            raise InvalidArgumentError(
                f"Visualizer.{where}: no slider {slider_id!r}; add it with add_slider "
                f"first.")
        return self._sliders[slider_id]

    def set_slider_range(self, slider_id: int, min_value, max_value) -> Visualizer:
        """Change slider ``slider_id``'s range."""
        handle = self._slider(slider_id, "set_slider_range")
        lo, hi = _range(min_value, max_value, "set_slider_range")
        handle.min, handle.max, handle.step = lo, hi, (hi - lo) / 1000
        return self

    def add_menu(self, title: str, menu_id: int, items) -> Visualizer:
        """A menu in the control panel: a button per (label, item_id) of ``items``;
        clicking one sends (menu_id, item_id) to the input listeners."""
        items = list(items)
        if not items or any(len(item) != 2 for item in items):
            raise InvalidArgumentError(
                f"Visualizer.add_menu: '{title}' needs a non-empty list of (label, item_id) "
                f"pairs, got {items!r}.")
        with self._server.gui.add_folder(str(title)):
            for label, item_id in items:
                button = self._server.gui.add_button(str(label))
                button.on_click(lambda event, item=item_id: self._dispatch(
                    "menu_selected", menu_id, item))
        return self

    def add_key(self, key: str, label: str | None = None, modifiers=None) -> Visualizer:
        """Send presses of ``key`` (with ``modifiers``, e.g. "shift") in the page to the
        input listeners as key_pressed(key, modifiers); ``label`` names it in the page's
        command palette."""
        command = self._server.gui.add_command(label or f"key {key}", hotkey=key,
                                               modifier=modifiers)
        command.on_trigger(lambda event: self._dispatch("key_pressed", key, modifiers))
        return self

    # --------------------------------------------------------------- frames
    def _frame(self, state) -> Frame:
        if self._scene is None:
            with self._draw_lock:
                self._server.scene.reset()
                self._scene = Scene(self._server, self._system, state,
                                    extra=self._decorations, **self._options)
                self._scene.fit_view(self._server, self._scene.frame_of(state))
        return self._scene.frame_of(state, self._generators)

    def draw_frame_now(self, state) -> None:
        """Draw ``state`` at once, whatever the mode, waiting for nothing."""
        if self._closed:
            return
        frame = self._frame(state)
        self._draw(frame, self._time.now())

    def report(self, state) -> None:
        """Hand ``state`` to the view, paced by the mode (see the module docstring)."""
        if self._closed:
            return
        now = self._time.now()
        if self._mode == Mode.SAMPLING:
            with self._cond:
                if now - self._last_kept < 1.0 / self._frame_rate:
                    self._dropped += 1
                    return
                self._last_kept = now
        frame = self._frame(state)
        with self._cond:
            if self._mode == Mode.SAMPLING:
                self._undrawn -= len(self._queue)
                self._queue.clear()
                self._queue.append((None, frame, now))
            elif self._mode == Mode.PASS_THROUGH:
                while self._queue and not self._closed:
                    self._time.wait(self._cond, None)
                self._queue.append((None, frame, now))
            else:
                due = self._due(frame.t, self._time.now())
                # Wait while the simulation is more than the lag ahead of the view.
                while not self._closed:
                    ahead = due - self._lag - self._time.now()
                    if ahead <= 0:
                        break
                    self._time.wait(self._cond, ahead)
                self._queue.append((due, frame, now))
            self._undrawn += 1
            self._time.notify_all(self._cond)

    def _due(self, t: float, now: float) -> float:
        """REAL_TIME: the wall time at which the frame at simulated time t is drawn, the
        clock re-synchronized if it would already be late."""
        if self._sync is not None:
            wall0, t0 = self._sync
            due = wall0 + self._lag + (t - t0) / self._scale
            if due >= now:
                return due
        self._sync = (now, t)
        return now + self._lag

    def _draw_loop(self) -> None:
        while True:
            with self._cond:
                while not self._queue and not self._closed:
                    self._time.wait(self._cond, None)
                if self._closed:
                    return
                due, frame, reported = self._queue[0]
                if due is None:
                    due = self._last_drawn + 1.0 / self._frame_rate
                while not self._closed and self._time.now() < due:
                    self._time.wait(self._cond, due - self._time.now())
                if self._closed:
                    return
                self._queue.popleft()
            try:
                self._draw(frame, reported)
            except Exception as error:          # the view fails, the simulation goes on
                with self._cond:
                    self._closed = True
                    self._queue.clear()
                    self._undrawn = 0
                    self._time.notify_all(self._cond)
                warnings.warn(f"kinetree Visualizer stopped drawing: {error!r}; the "
                              f"simulation continues without it.", KinetreeWarning,
                              stacklevel=1)
                return
            with self._cond:
                self._undrawn -= 1
                self._time.notify_all(self._cond)

    def _draw(self, frame: Frame, reported: float) -> None:
        with self._draw_lock:
            scene = self._scene
            if scene is None:       # a setting changed: the next frame rebuilds the scene
                return
            with self._server.atomic():
                scene.show(frame)
                if self._sim_time is not None:
                    self._sim_time.content = f"t = {frame.t:.4f} s"
            self._last_frame = frame
            self._last_drawn = self._time.now()
            self._log.append((self._last_drawn, frame.t, reported))

    # ------------------------------------------------------------ lifecycle
    def wait_for_frames(self, timeout: float | None = None) -> bool:
        """Block until every reported frame has been drawn (or ``timeout`` seconds pass);
        whether they have."""
        deadline = None if timeout is None else self._time.now() + timeout
        with self._cond:
            while self._undrawn and not self._closed:
                left = None if deadline is None else deadline - self._time.now()
                if left is not None and left <= 0:
                    return False
                self._time.wait(self._cond, left)
            return not self._undrawn

    def flush_frames(self) -> None:
        """Wait until every reported frame has been drawn (Simbody's flushFrames)."""
        self.wait_for_frames()

    def get_frame_log(self) -> np.ndarray:
        """One row per frame drawn: wall time it was drawn, its simulated time, and the
        wall time it was reported (s, on the Visualizer's clock)."""
        return np.array(self._log, dtype=float).reshape(-1, 3)

    def get_num_dropped_frames(self) -> int:
        """Frames SAMPLING left out."""
        return self._dropped

    def shutdown(self) -> None:
        """Stop drawing and serving; later reports return at once."""
        with self._cond:
            if self._closed and not self._thread.is_alive() and self._server is None:
                return
            self._closed = True
            self._queue.clear()
            self._undrawn = 0
            self._time.notify_all(self._cond)
        self._thread.join(timeout=5)
        if self._server is not None:
            stop_server(self._server)
            self._server = None

    def is_shut_down(self) -> bool:
        return self._closed

    def __enter__(self) -> Visualizer:
        return self

    def __exit__(self, *exc) -> None:
        self.shutdown()

    def __repr__(self) -> str:
        state = "shut down" if self._closed else self.get_url()
        return f"<Visualizer {self._mode.name} {state}>"
