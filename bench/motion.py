"""What prescribed motion costs: the Fig. 3 tree (221 bodies) realized with every mobilizer
free, against the same tree with a quarter of its pins locked (``lock``, POSITION) or
driven by ``Motion.Sinusoid`` (POSITION), and a simulated second of each.

A prescribed mobilizer takes no part in the articulated-body solve (its parent carries it
rigidly) and adds the loops that write its known q, u and u̇ and its force τ, so it
should cost no more than the free mobilizer it replaces. Timed in one process:
``realize(ACCELERATION)`` from a freshly set q and u (``timing.interleaved_best``), and
CPU seconds of 1 s simulated with Runge-Kutta-Merson at accuracy 1e-3 (the best of two),
per realization. The ratios are to the free tree.

Run: ``.venv/bin/python bench/motion.py`` (about a minute once numba's cache is warm).
"""

from __future__ import annotations

import time

import numpy as np
from fig3_model import build_kinetree, fig3_tree, random_model
from timing import interleaved_best

import kinetree as kt


def model(variant: str):
    parents, kinds = fig3_tree()
    frames, bodies, q, u = random_model(parents)
    system = build_kinetree(parents, kinds, frames, bodies)
    matter = system.get_matter_subsystem()
    driven = [matter.get_mobilized_body(b) for b in range(2, matter.get_num_bodies(), 4)]
    if variant == "sinusoid":
        for mobod in driven:
            kt.Motion.Sinusoid(mobod, kt.Motion.Level.POSITION, 0.3, 2.0, 0.0)
    state = system.realize_topology()
    system.realize_model(state)
    matter.upd_q(state)[:] = q
    matter.upd_u(state)[:] = u
    if variant == "locked":
        for mobod in driven:
            mobod.lock(state)
    system.realize(state, kt.Stage.ACCELERATION)
    return system, matter, state, len(driven)


def realize_call(system, matter, state):
    q, u = matter.get_q(state).copy(), matter.get_u(state).copy()

    def call():
        matter.upd_q(state)[:] = q
        matter.upd_u(state)[:] = u
        system.realize(state, kt.Stage.ACCELERATION)
    return call


def simulate(system, state):
    best, realizations = float("inf"), 0
    for _ in range(2):
        integrator = kt.RungeKuttaMersonIntegrator(system)
        integrator.set_accuracy(1e-3)
        stepper = kt.TimeStepper(system, integrator)
        stepper.initialize(state.copy())
        t0 = time.process_time()
        stepper.step_to(1.0)
        best = min(best, time.process_time() - t0)
        realizations = integrator.get_num_realizations()
    return best, realizations


def main():
    variants = ("free", "locked", "sinusoid")
    models = {v: model(v) for v in variants}
    print(f"Fig. 3 tree, 221 bodies; {models['locked'][3]} pins prescribed in the "
          "'locked' and 'sinusoid' rows")
    times = interleaved_best([realize_call(*models[v][:3]) for v in variants])
    rows = []
    for v, t in zip(variants, times, strict=True):
        system, _, state, _ = models[v]
        cpu, n = simulate(system, state)
        rows.append((v, t, cpu, n))
    free_t, free_cpu, free_n = rows[0][1], rows[0][2], rows[0][3]
    print(f"{'variant':10s} {'realize µs':>11s} {'ratio':>6s} {'1 s CPU s':>10s} "
          f"{'realizations':>13s} {'µs/realization':>15s} {'ratio':>6s}")
    for v, t, cpu, n in rows:
        print(f"{v:10s} {t * 1e6:11.1f} {t / free_t:6.2f} {cpu:10.3f} {n:13d} "
              f"{cpu / n * 1e6:15.1f} {(cpu / n) / (free_cpu / free_n):6.2f}")
    assert np.isfinite(free_t)


if __name__ == "__main__":
    main()
