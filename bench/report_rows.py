"""Report rows: what one more row of ``kt.simulate``'s Trajectory costs.

A 2-link pendulum (two Pins under gravity, 1 kg links 1 m long, swung out by half a
radian) is simulated for the same 10 s at accuracy 1e-3 with 10^2, 10^3, 10^4 and 10^5
report rows, so the steps are the same in every run and only the rows differ. For each
count it prints the wall and CPU time of the run (the best of ``--repeats`` runs) and the
time per row beyond the run with 10^2 rows: (T(n) - T(100)) / (n - 100).

Run: ``.venv/bin/python bench/report_rows.py`` (about 30 s once compiled;
``--repeats 1`` for a quick look, ``--profile N`` to print cProfile's top functions of a
run with N rows).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import kinetree as kt

T_FINAL = 10.0
"""s simulated in every run."""

ROWS = (10**2, 10**3, 10**4, 10**5)


def pendulum():
    """A double pendulum: two 1 kg Pins with 1 m links under gravity, q0 = 0.5 rad."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1e-3)))
    link1 = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body,
                                 kt.Transform([0, 1, 0]))
    kt.MobilizedBody.Pin(link1, kt.Transform(), body, kt.Transform([0, 1, 0]))
    state = system.realize_topology()
    link1.set_one_q(state, 0, 0.5)
    return system, state


def run(system, state, rows: int):
    """One simulate of T_FINAL with ``rows`` report intervals; returns its Trajectory."""
    return kt.simulate(system, state, T_FINAL, report_interval=T_FINAL / rows,
                       progress=False)


def timed(system, state, rows: int, repeats: int) -> tuple[float, float, int, int]:
    """Best wall and CPU time (s) of ``repeats`` runs, the rows made and steps taken."""
    wall = cpu = float("inf")
    for _ in range(repeats):
        w0, c0 = time.perf_counter(), time.process_time()
        traj = run(system, state, rows)
        wall = min(wall, time.perf_counter() - w0)
        cpu = min(cpu, time.process_time() - c0)
    return wall, cpu, len(traj), traj.stats["steps_taken"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--profile", type=int, metavar="N",
                        help="profile one run with N rows instead of timing")
    args = parser.parse_args(argv)
    system, state = pendulum()
    run(system, state, 10)                      # compile (or load) the kernels first
    if args.profile:
        profiler = cProfile.Profile()
        profiler.runcall(run, system, state, args.profile)
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)
        return
    print(f"2-link pendulum, {T_FINAL:g} s simulated at accuracy 1e-3, best of "
          f"{args.repeats}")
    print(f"{'rows':>8} {'steps':>6} {'wall s':>8} {'CPU s':>8} "
          f"{'wall/row µs':>12} {'CPU/row µs':>11}")
    base = None
    for n in ROWS:
        wall, cpu, rows, steps = timed(system, state, n, args.repeats)
        if base is None:
            base = wall, cpu, rows
            per = ("", "")
        else:
            extra = rows - base[2]
            per = (f"{(wall - base[0]) / extra * 1e6:.1f}",
                   f"{(cpu - base[1]) / extra * 1e6:.1f}")
        print(f"{rows:>8} {steps:>6} {wall:8.3f} {cpu:8.3f} {per[0]:>12} {per[1]:>11}",
              flush=True)


if __name__ == "__main__":
    main()
