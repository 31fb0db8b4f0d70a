"""User input from the viewer: Simbody's InputListener and InputSilo.

The browser's sliders, menus and keys arrive on the viewer's server thread. A Visualizer
hands each event to its listeners in the order they were added until one returns True
(consumed). An ``InputSilo`` keeps every event it is given until the simulation thread
takes it, so a simulation loop can poll (``take_slider_move``) or wait
(``wait_for_menu_pick``) without callbacks or locks of its own.
"""

from __future__ import annotations

import collections
import threading


class InputListener:
    """Override the events to react to; return True to keep later listeners from seeing
    the event. ``modifiers`` is viser's modifier string ("shift", "cmd/ctrl", ...) or
    None."""

    def key_pressed(self, key: str, modifiers) -> bool:
        return False

    def menu_selected(self, menu: int, item: int) -> bool:
        return False

    def slider_moved(self, slider: int, value: float) -> bool:
        return False


class InputSilo(InputListener):
    """An InputListener that stores every key hit, menu pick and slider move for the
    simulation thread to take, oldest first. Slider moves of one slider coalesce: only
    its latest value is kept."""

    def __init__(self):
        self._lock = threading.Condition()
        self._keys: collections.deque = collections.deque()
        self._menus: collections.deque = collections.deque()
        self._sliders: dict = {}

    # ------------------------------------------------ listener side
    def key_pressed(self, key, modifiers) -> bool:
        with self._lock:
            self._keys.append((key, modifiers))
            self._lock.notify_all()
        return True

    def menu_selected(self, menu, item) -> bool:
        with self._lock:
            self._menus.append((menu, item))
            self._lock.notify_all()
        return True

    def slider_moved(self, slider, value) -> bool:
        with self._lock:
            self._sliders.pop(slider, None)
            self._sliders[slider] = float(value)
            self._lock.notify_all()
        return True

    # ------------------------------------------------ simulation side
    def is_any_user_input(self) -> bool:
        with self._lock:
            return bool(self._keys or self._menus or self._sliders)

    def take_key_hit(self):
        """(key, modifiers) of the oldest key hit not yet taken, or None."""
        with self._lock:
            return self._keys.popleft() if self._keys else None

    def take_menu_pick(self):
        """(menu id, item id) of the oldest menu pick not yet taken, or None."""
        with self._lock:
            return self._menus.popleft() if self._menus else None

    def take_slider_move(self):
        """(slider id, value) of the slider moved longest ago and not yet taken, or
        None."""
        with self._lock:
            if not self._sliders:
                return None
            slider = next(iter(self._sliders))
            return slider, self._sliders.pop(slider)

    def _wait(self, pending, take, timeout):
        with self._lock:
            self._lock.wait_for(lambda: bool(pending), timeout)
        return take()

    def wait_for_key_hit(self, timeout: float | None = None):
        """Block until a key hit arrives (or ``timeout`` seconds pass: None) and take it."""
        return self._wait(self._keys, self.take_key_hit, timeout)

    def wait_for_menu_pick(self, timeout: float | None = None):
        return self._wait(self._menus, self.take_menu_pick, timeout)

    def wait_for_slider_move(self, timeout: float | None = None):
        return self._wait(self._sliders, self.take_slider_move, timeout)

    def wait_for_any_user_input(self, timeout: float | None = None) -> bool:
        """Block until any input is waiting (or ``timeout`` seconds pass); whether there
        is."""
        with self._lock:
            return self._lock.wait_for(lambda: bool(self._keys or self._menus
                                                    or self._sliders), timeout)

    def clear(self) -> None:
        with self._lock:
            self._keys.clear()
            self._menus.clear()
            self._sliders.clear()
