"""What watching costs: the Visualizer's work per frame against the simulation it shows.

For the 10-pin chain and the Fig. 3 tree (221 bodies) of ``fig3_model``, each body drawn
with a brick and, on one run in three, a sphere: the time to make a Frame from a State (in
the simulation's thread) and to draw it (on the drawing thread, into a live viser server
with no page open), per frame; and, as the anchor run side by side, the simulation's own
cost for the same frame period (1/30 s of simulated time, RungeKuttaMerson at accuracy
1e-3). At 30 frames a wall second (REAL_TIME, or SAMPLING at full speed) the view costs
30 × (make + draw) of one core, the last column.

Run: ``.venv/bin/python bench/viewer.py``
"""

from __future__ import annotations

import time

from fig3_model import build_kinetree, chain_tree, fig3_tree, random_model

import kinetree as kt
from kinetree.viz.scene import Scene, start_server, stop_server

FRAME = 1 / 30


def decorated(parents, kinds):
    frames, bodies, _, _ = random_model(parents)
    system = build_kinetree(parents, kinds, frames, bodies)
    matter = system.get_matter_subsystem()
    for b in range(1, matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        mobod.add_body_decoration(kt.Transform(), kt.DecorativeBrick([0.02, 0.1, 0.02]))
        if b % 3 == 0:
            mobod.add_body_decoration(kt.Transform([0, -0.1, 0]), kt.DecorativeSphere(0.03))
    return system


def per_frame(system, frames=60):
    """(make, draw, simulate) seconds per frame."""
    state = system.realize_topology()
    state.upd_q()[:] = 0.3
    stepper = kt.TimeStepper(system, kt.RungeKuttaMersonIntegrator(system))
    stepper.get_integrator().set_accuracy(1e-3)
    stepper.initialize(state)
    stepper.step_to(FRAME)                           # compiles, if needed
    server = start_server("127.0.0.1", 0)
    scene = Scene(server, system, stepper.get_state())
    scene.show(scene.frame_of(stepper.get_state()))
    simulate = make = draw = 0.0
    for k in range(2, frames + 2):
        t0 = time.perf_counter()
        stepper.step_to(k * FRAME)
        t1 = time.perf_counter()
        frame = scene.frame_of(stepper.get_state())
        t2 = time.perf_counter()
        with server.atomic():
            scene.show(frame)
        t3 = time.perf_counter()
        simulate, make, draw = simulate + t1 - t0, make + t2 - t1, draw + t3 - t2
    stop_server(server)
    return make / frames, draw / frames, simulate / frames


def main() -> None:
    print(f"{'model':<28} {'make frame':>11} {'draw':>9} {'simulate 1/30 s':>16} "
          f"{'view at 30 fps':>15}")
    for name, (parents, kinds) in (("10-pin chain", chain_tree(10)),
                                   ("Fig. 3 tree, 221 bodies", fig3_tree())):
        make, draw, simulate = per_frame(decorated(parents, kinds))
        print(f"{name:<28} {1e3 * make:9.3f} ms {1e3 * draw:6.3f} ms {1e3 * simulate:13.3f} ms "
              f"{100 * 30 * (make + draw):12.1f} % of a core")


if __name__ == "__main__":
    main()
