"""Long runs: memory stays flat over a million steps.

A 10-pin chain (``fig3_model.chain_tree``) under gravity, stepped by a fixed-step
Runge-Kutta-Merson integrator (h = 1 ms) with one ``step_to`` per step, the loop a
real-time or control program runs: the resident memory (RSS, from /proc) is read after
1e3, 1e4, 1e5 and 1e6 steps. Then the same chain with a Python force (a
``Force.Custom`` spring, so every realization calls Python) for 1e5 steps, and
``kt.simulate`` over 1000 s (1e6 steps, 1e4 reports). Growth between the first and the
last reading is what a leak would show; the first readings include numba's caches.

Run: ``.venv/bin/python bench/long_run.py`` (about a minute and a half; ``--steps`` to
change the million).
"""

from __future__ import annotations

import argparse
import os
import time

from fig3_model import build_kinetree, chain_tree, random_model

import kinetree as kt

PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb() -> float:
    """The resident memory of this process (MB)."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE / 1e6


class Spring(kt.Force.Custom.Implementation):
    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] -= 2.0 * state.get_q()[0]


def chain(python_force=False):
    parents, kinds = chain_tree(10)
    frames, bodies, q, u = random_model(parents)
    system = build_kinetree(parents, kinds, frames, bodies)
    if python_force:
        forces = next(s for s in system._subsystems if isinstance(s, kt.GeneralForceSubsystem))
        kt.Force.Custom(forces, Spring())
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(u)
    return system, state


def stepping(steps: int, python_force: bool, h: float = 1e-3) -> list[tuple[int, float]]:
    system, state = chain(python_force)
    integ = kt.RungeKuttaMersonIntegrator(system, h)
    integ.initialize(state)
    readings, marks = [], {10**k for k in range(3, 7)} | {steps}
    t0 = time.perf_counter()
    for n in range(1, steps + 1):
        integ.step_to(n * h)
        if n in marks:
            readings.append((n, rss_mb(), time.perf_counter() - t0))
    return readings


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--steps", type=int, default=1_000_000)
    args = parser.parse_args(argv)
    print(f"RSS at start: {rss_mb():.1f} MB")
    for label, steps, python in (("compiled chain, step_to per step", args.steps, False),
                                 ("chain with a Python force", args.steps // 10, True)):
        readings = stepping(steps, python)
        print(f"\n{label}:")
        for n, mb, wall in readings:
            print(f"  after {n:>8} steps: RSS {mb:7.1f} MB, {wall:6.1f} s, "
                  f"{wall / n * 1e6:5.1f} µs per step", flush=True)
        print(f"  growth from {readings[0][0]} to {readings[-1][0]} steps: "
              f"{readings[-1][1] - readings[0][1]:+.1f} MB")
    system, state = chain()
    before = rss_mb()
    t0 = time.perf_counter()
    traj = kt.simulate(system, state, args.steps * 1e-3, integrator="RungeKuttaMerson",
                       fixed_step_size=1e-3, report_interval=0.1, progress=False)
    print(f"\nsimulate, {traj.stats['steps_taken']} steps, {len(traj.t)} reports: "
          f"{time.perf_counter() - t0:.1f} s, RSS {before:.1f} -> {rss_mb():.1f} MB "
          f"(the Trajectory's rows: {traj.q.nbytes * 2 / 1e6:.1f} MB)")


if __name__ == "__main__":
    main()
