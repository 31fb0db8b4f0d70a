"""Cold start: the CPU a newcomer's first program spends compiling kinetree's kernels.

numba compiles each kernel on its first call and caches it on disk, so the first program
run after an install pays for every kernel it touches. This measures, each in a fresh
process (a subprocess, CPU from its rusage):

1. ``import numba`` and ``import kinetree`` with an empty cache (no kernel compiles at import);
2. the first program with an empty cache (NUMBA_CACHE_DIR a fresh temporary folder): a
   four-bar closed by a Constraint.Ball and assembled, two springs, a damper, a ball on a
   floor with compliant contact, realized and simulated for 0.5 s through the public API;
   every numba compilation is timed through numba's ``numba:compile`` events, CPU seconds
   of its own (nested compilations subtracted) and in all, per dispatcher;
3. the same program again with the cache from 2 (warm);
4. ``python -m kinetree warmup`` in another empty cache, then the program: what the warm-up
   leaves to compile;
5. then a model with kinds the warm-up does not cover (a Gimbal, a LinearBushing): what a
   new combination of element kinds costs once the shared helpers are cached.

Usage: ``python bench/cold_start.py [--top 20] [--json records.json]`` (``--json`` keeps
every compilation's record of 2 to 5). It takes about seven minutes; run it on a quiet
machine, since compilation is single-threaded and a busy core inflates it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

PYTHON = sys.executable
HERE = Path(__file__).resolve()


def first_program() -> None:
    """What a newcomer writes after reading the docs: every element through the public API."""
    import numpy as np

    import kinetree as kt

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    contact = kt.CompliantContactSubsystem(system, tracker)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])

    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    crank = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                 kt.Transform([0, 0.5, 0]))
    coupler = kt.MobilizedBody.Pin(crank, kt.Transform(), link, kt.Transform([-0.9, 0, 0]))
    rocker = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([1.0, 0, 0]), link,
                                  kt.Transform([0, 0.6, 0]))
    kt.Constraint.Ball(coupler, [0, 0, 0], rocker, [0, 0, 0])
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 1, 0], coupler, [0, 0, 0],
                                  20.0, 1.0)
    kt.Force.MobilityLinearSpring(forces, rocker, 0, 5.0, 0.0)
    kt.Force.MobilityLinearDamper(forces, crank, 0, 0.2)

    rubber = kt.ContactMaterial(1e6, 0.5, 0.9, 0.6, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-np.pi / 2), [0, -1.5, 0]),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), rubber))
    ball_body = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.002)))
    ball_body.add_contact_surface(kt.Transform(),
                                  kt.ContactSurface(kt.ContactGeometry.Sphere(0.1), rubber))
    ball = kt.MobilizedBody.Free(matter.Ground(), ball_body)

    state = system.realize_topology()
    for mobod, angle in ((crank, 0.3), (coupler, 0.5), (rocker, -0.4)):
        mobod.set_one_q(state, 0, angle)
    kt.Assembler(system).assemble(state)  # the loop starts open
    ball.set_q_to_fit_transform(state, kt.Transform([2.0, -1.0, 0.0]))  # falls 0.4 m
    ball.set_u(state, [0, 0, -5, 1, 0, 0])
    system.realize(state, kt.Stage.ACCELERATION)
    traj = kt.simulate(system, state, 0.5, progress=False)
    final = traj.states()[-1]
    system.realize(final, kt.Stage.DYNAMICS)
    print(f"first program: {len(traj)} rows, {traj.stats['steps_taken']} steps, "
          f"{contact.get_num_contact_forces(final)} contact(s) at t = {final.get_time()} s")


def rare_kinds_program() -> None:
    """A model that brings in a new combination of kinds after the warm-up: a Gimbal joint
    (not a common mobilizer) and a LinearBushing (not a common force element), so its
    realization is compiled for every mobilizer and force element type."""
    import kinetree as kt

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    arm = kt.MobilizedBody.Gimbal(matter.Ground(), kt.Transform(), link,
                                  kt.Transform([0, 0.5, 0]))
    kt.Force.LinearBushing(forces, matter.Ground(), kt.Transform([0, -0.5, 0]), arm,
                           kt.Transform(), [1, 1, 1, 50, 50, 50], [0.1] * 6)
    state = system.realize_topology()
    arm.set_q(state, [0.2, -0.1, 0.3])
    traj = kt.simulate(system, state, 0.2, progress=False)
    print(f"rare kinds: {len(traj)} rows, {traj.stats['steps_taken']} steps")


def profiled(program: str, out_path: str) -> None:
    """Run ``first_program`` or the warm-up (``program``: "first" or "warmup") timing every
    numba compilation, and write the records to ``out_path`` as JSON: [module, qualname,
    signatures, own CPU s, total CPU s] per dispatcher."""
    from numba.core import event

    records: dict[tuple[str, str], list] = {}
    stack: list[list[float]] = []  # [start CPU, CPU of nested compilations]

    class CompileTimer(event.Listener):
        """Times each numba:compile event; events nest as compiling a kernel compiles its
        callees first."""

        def on_start(self, ev):
            stack.append([time.process_time(), 0.0])

        def on_end(self, ev):
            start, nested = stack.pop()
            total = time.process_time() - start
            if stack:
                stack[-1][1] += total
            func = ev.data["dispatcher"].py_func
            rec = records.setdefault((func.__module__, func.__qualname__), [0, 0.0, 0.0])
            rec[0] += 1
            rec[1] += total - nested
            rec[2] += total

    event.register("numba:compile", CompileTimer())
    if program == "warmup":
        from kinetree import warmup

        warmup.main()  # what `python -m kinetree warmup` runs
    elif program == "rare":
        rare_kinds_program()
    else:
        first_program()
    Path(out_path).write_text(json.dumps([[*key, *rec] for key, rec in records.items()]))


def run_child(args: list[str], cache: Path) -> dict:
    """Run ``python *args`` with NUMBA_CACHE_DIR=cache; its wall and CPU (user + system)
    seconds, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([PYTHON, *args], env={**os.environ, "NUMBA_CACHE_DIR": str(cache)},
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "cpu": cpu, "stdout": done.stdout.strip()}


def run_profiled(program: str, cache: Path, workdir: Path, name: str) -> tuple[dict, list]:
    """``run_child`` of this file profiling ``program``; also its compile records."""
    out = workdir / f"{name}.json"
    result = run_child([str(HERE), "--profiled", program, str(out)], cache)
    return result, json.loads(out.read_text())


def cache_files(cache: Path) -> int:
    """The number of compiled signatures in the cache (its .nbc files)."""
    return sum(1 for _ in cache.rglob("*.nbc"))


def main() -> None:
    """Run the four measurements and print them."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=20, help="compilations listed (20)")
    parser.add_argument("--json", type=Path, help="write every run's compile records here")
    parser.add_argument("--profiled", nargs=2, metavar=("PROGRAM", "JSON"),
                        help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.profiled:
        profiled(*args.profiled)
        return

    print(f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"numba {numba.__version__}, load average before: {os.getloadavg()[0]:.2f}")
    with tempfile.TemporaryDirectory(prefix="kinetree-cold-") as tmp:
        workdir = Path(tmp)
        for what in ("numba", "kinetree"):
            r = run_child(["-c", f"import {what}"], workdir / f"import-{what}")
            print(f"import {what} (cold): {r['cpu']:.2f} s CPU, {r['wall']:.2f} s wall")

        cold_cache = workdir / "cold"
        cold, records = run_profiled("first", cold_cache, workdir, "cold")
        print(cold["stdout"])
        own = sum(r[3] for r in records)
        print(f"\nfirst program, empty cache: {cold['cpu']:.1f} s CPU, {cold['wall']:.1f} s "
              f"wall; numba compiling: {own:.1f} s CPU, {len(records)} dispatchers, "
              f"{sum(r[2] for r in records)} signatures ({cache_files(cold_cache)} cached)")
        print("\nown: CPU of the dispatcher's compilations alone; total: with the kernels they "
              "compiled on the way (nested); sigs: signatures compiled")
        print(f"{'own s':>7} {'total s':>8} {'sigs':>4}  module.function")
        for module, qualname, sigs, own_s, total_s in sorted(records, key=lambda r: -r[3])[
                :args.top]:
            print(f"{own_s:7.2f} {total_s:8.2f} {sigs:4d}  {module}.{qualname}")
        by_module: dict[str, float] = {}
        for module, _, _, own_s, _ in records:
            by_module[module] = by_module.get(module, 0.0) + own_s
        print(f"\n{'own s':>7}  module (all its dispatchers)")
        for module, own_s in sorted(by_module.items(), key=lambda kv: -kv[1]):
            print(f"{own_s:7.2f}  {module}")

        warm, records = run_profiled("first", cold_cache, workdir, "warm")
        print(f"\nsame program, warm cache: {warm['cpu']:.2f} s CPU, {warm['wall']:.2f} s wall, "
              f"{len(records)} dispatchers compiled")

        warmed_cache = workdir / "warmed"
        up, _ = run_profiled("warmup", warmed_cache, workdir, "warmup")
        print(f"\npython -m kinetree warmup, empty cache: {up['cpu']:.1f} s CPU, "
              f"{up['wall']:.1f} s wall")
        after, records = run_profiled("first", warmed_cache, workdir, "after-warmup")
        print(f"first program after the warm-up: {after['cpu']:.1f} s CPU, "
              f"{after['wall']:.1f} s wall; left to compile: {sum(r[3] for r in records):.1f} "
              f"s CPU in {len(records)} dispatchers")
        for module, qualname, *_ in records:
            print(f"  {module}.{qualname}")
        rare, records = run_profiled("rare", warmed_cache, workdir, "rare")
        print(f"\n{rare['stdout']}\na Gimbal and a LinearBushing after the warm-up (a new "
              f"combination of kinds): {rare['cpu']:.1f} s CPU, {rare['wall']:.1f} s wall, "
              f"{len(records)} dispatchers compiled")
        if args.json:
            runs = {name: json.loads((workdir / f"{name}.json").read_text())
                    for name in ("cold", "warm", "warmup", "after-warmup", "rare")}
            args.json.write_text(json.dumps(
                {"columns": ["module", "qualname", "signatures", "own_cpu_s", "total_cpu_s"],
                 **runs}, indent=1))


if __name__ == "__main__":
    main()
