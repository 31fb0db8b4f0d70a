"""Input from the page reaches the simulation: listeners see each event in the order they
were added until one consumes it; an InputSilo keeps events for the simulation thread, and
a periodic handler that takes them changes the run (the browser side is in
test_browser.py)."""

import threading

import pytest
from support import world

import kinetree as kt


def test_silo_keeps_events_in_order_and_coalesces_slider_moves():
    silo = kt.Visualizer.InputSilo()
    assert not silo.is_any_user_input() and silo.take_menu_pick() is None
    silo.menu_selected(2, 1)
    silo.menu_selected(2, 7)
    silo.slider_moved(1, 0.5)
    silo.slider_moved(3, 9.0)
    silo.slider_moved(1, 0.75)
    silo.key_pressed("k", None)
    assert silo.is_any_user_input()
    assert [silo.take_menu_pick(), silo.take_menu_pick(), silo.take_menu_pick()] == [
        (2, 1), (2, 7), None]
    assert [silo.take_slider_move(), silo.take_slider_move()] == [(3, 9.0), (1, 0.75)]
    assert silo.take_key_hit() == ("k", None)
    assert not silo.is_any_user_input()


def test_waiting_returns_what_another_thread_sends():
    silo = kt.Visualizer.InputSilo()
    threading.Timer(0.05, silo.menu_selected, (4, 2)).start()
    assert silo.wait_for_menu_pick(timeout=5) == (4, 2)
    assert silo.wait_for_slider_move(timeout=0.01) is None


def test_listeners_see_events_until_one_consumes_them():
    system, matter, forces, link = world()
    kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    seen = []

    class Picky(kt.Visualizer.InputListener):
        def slider_moved(self, slider, value):
            seen.append(("picky", slider, value))
            return slider == 1

    silo = kt.Visualizer.InputSilo()
    with kt.Visualizer(system, port=0, verbose=False) as viz:
        viz.add_input_listener(Picky())
        viz.add_input_listener(silo)
        viz.add_slider("a", 1, 0, 1, 0.5).add_slider("b", 2, 0, 1, 0.5)
        viz._dispatch("slider_moved", 1, 0.25)
        viz._dispatch("slider_moved", 2, 0.75)
        with pytest.raises(kt.errors.InvalidArgumentError, match="slider"):
            viz.add_slider("c", 3, 1, 0, 0.5)
        with pytest.raises(kt.errors.InvalidArgumentError, match="InputListener"):
            viz.add_input_listener(print)
    assert seen == [("picky", 1, 0.25), ("picky", 2, 0.75)]
    assert silo.take_slider_move() == (2, 0.75) and silo.take_slider_move() is None


def test_a_handler_applies_input_to_the_running_simulation():
    system, matter, forces, link = world(gravity=None)
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    silo = kt.Visualizer.InputSilo()

    class Apply(kt.PeriodicEventHandler):
        def handle_event(self, state, accuracy):
            while (move := silo.take_slider_move()) is not None:
                pin.set_one_u(state, 0, move[1])
            return False

    system.add_event_handler(Apply(0.1))
    silo.slider_moved(1, 2.0)                  # as if moved before the run
    traj = kt.simulate(system, system.realize_topology(), 0.5, report_interval=0.05,
                       progress=False)
    # No forces: the pin turns at the speed the slider set from the first event on.
    assert traj.u[0, 0] == 0.0
    assert traj.u[-1, 0] == pytest.approx(2.0)
    assert traj.q[-1, 0] == pytest.approx(2.0 * 0.4, rel=1e-6)
