"""Cold start: what a newcomer's programs spend compiling kinetree's kernels.

kinetree's kernels are compiled once per version of its source, by ``python -m kinetree
warmup`` (which the README's ``make`` commands run), into a per-user cache. This measures,
each in a fresh process (a subprocess, CPU from its rusage, the warm-up's worker processes
included):

1. ``import numba`` and ``import kinetree`` with an empty cache (no kernel compiles at import);
2. ``python -m kinetree warmup`` from an empty cache (NUMBA_CACHE_DIR a fresh folder);
3. after it, programs that must compile nothing, each timed to its first realized State and
   to its end, every numba compilation counted through numba's ``numba:compile`` events:
   the first program (a Pin, Ball, Universal and Gimbal chain closed by a Rod, a damper, a
   spring and a ball on a floor with compliant contact, realized and simulated for 0.05 s
   through the public API), a model with every mobilizer kind, the bundled robot
   (``models/urdf/arm7.urdf``) and every bundled OpenSim model (``models/opensim``);
4. a kind compiled by itself: the warmed cache without the Gimbal's functions, and the
   first program again (only the Gimbal's functions compile);
5. the first program from an empty cache without the warm-up.

Usage: ``python bench/cold_start.py [--top 20] [--json records.json]``. It takes about
five minutes; run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numba

PYTHON = sys.executable
HERE = Path(__file__).resolve()
MODELS = HERE.parents[1] / "models"


def first_program() -> float:
    """What a newcomer writes after reading the docs, every element through the public API;
    returns the process CPU (s) at its first realized State."""
    import numpy as np

    import kinetree as kt

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    contact = kt.CompliantContactSubsystem(system, tracker)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])

    link = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    down = kt.Transform([0, 0.4, 0])
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, down)
    ball = kt.MobilizedBody.Ball(pin, kt.Transform(), link, down)
    universal = kt.MobilizedBody.Universal(ball, kt.Transform(), link, down)
    gimbal = kt.MobilizedBody.Gimbal(universal, kt.Transform(), link, down)
    kt.Constraint.Rod(matter.Ground(), [0.6, -1.0, 0], gimbal, [0, 0, 0], 0.5)
    kt.Force.MobilityLinearDamper(forces, pin, 0, 0.2)
    kt.Force.TwoPointLinearSpring(forces, matter.Ground(), [0, 1, 0], universal, [0, 0, 0],
                                  20.0, 1.0)

    rubber = kt.ContactMaterial(1e6, 0.5, 0.9, 0.6, 0.0)
    matter.Ground().upd_body().add_contact_surface(
        kt.Transform(kt.Rotation.about_z(-np.pi / 2), [0, -2.0, 0]),
        kt.ContactSurface(kt.ContactGeometry.HalfSpace(), rubber))
    ball_body = kt.Body.Rigid(kt.MassProperties(0.5, [0, 0, 0], kt.Inertia(0.002)))
    ball_body.add_contact_surface(kt.Transform(),
                                  kt.ContactSurface(kt.ContactGeometry.Sphere(0.1), rubber))
    falling = kt.MobilizedBody.Free(matter.Ground(), ball_body)

    state = system.realize_topology()
    pin.set_one_q(state, 0, 0.4)
    kt.Assembler(system).assemble(state)  # the loop starts open
    falling.set_q_to_fit_transform(state, kt.Transform([2.0, -1.85, 0.0]))
    falling.set_u(state, [0, 0, -5, 1, -1, 0])
    system.realize(state, kt.Stage.ACCELERATION)
    realized = time.process_time()
    traj = kt.simulate(system, state, 0.05, progress=False)
    final = traj.states()[-1]
    system.realize(final, kt.Stage.DYNAMICS)
    print(f"first program: {len(traj)} rows, {traj.stats['steps_taken']} steps, "
          f"{contact.get_num_contact_forces(final)} contact(s) at t = {final.get_time()} s")
    return realized


def every_mobilizer_program() -> float:
    import kinetree as kt
    from kinetree import warmup

    system, state = warmup.every_mobilizer_model()
    system.realize(state, kt.Stage.ACCELERATION)
    return time.process_time()


def file_program(path: str) -> float:
    import warnings

    import kinetree as kt

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = kt.load_urdf(path) if path.endswith(".urdf") else kt.load_osim(path)
    state = model.get_default_state()
    model.system.realize(state, kt.Stage.VELOCITY)
    if model.system.get_matter_subsystem().calc_system_mass(state) > 0.0:
        model.system.realize(state, kt.Stage.ACCELERATION)      # wrist.osim has no mass
    return time.process_time()


def profiled(program: str, out_path: str) -> None:
    """Run a program (``program``: "first", "mobilizers", or a model file's path) timing
    every numba compilation, and write to ``out_path`` as JSON the process CPU at its first
    realized State and the records: [module, qualname, signatures, own CPU s, total CPU
    s] per dispatcher."""
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
    if program == "first":
        realized = first_program()
    elif program == "mobilizers":
        realized = every_mobilizer_program()
    else:
        realized = file_program(program)
    Path(out_path).write_text(json.dumps(
        {"realized_cpu": realized, "records": [[*key, *rec] for key, rec in records.items()]}))


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
    """``run_child`` of this file profiling ``program`` (its result with "realized", the
    process CPU at the first realized State); also its compile records."""
    out = workdir / f"{name}.json"
    result = run_child([str(HERE), "--profiled", program, str(out)], cache)
    report = json.loads(out.read_text())
    result["realized"] = report["realized_cpu"]
    return result, report["records"]


def print_records(records: list, top: int) -> None:
    own = sum(r[3] for r in records)
    print(f"numba compiling: {own:.1f} s CPU, {len(records)} dispatchers, "
          f"{sum(r[2] for r in records)} signatures")
    print(f"{'own s':>7} {'total s':>8} {'sigs':>4}  module.function")
    for module, qualname, sigs, own_s, total_s in sorted(records, key=lambda r: -r[3])[:top]:
        print(f"{own_s:7.2f} {total_s:8.2f} {sigs:4d}  {module}.{qualname}")


def main() -> None:
    """Run the measurements and print them."""
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
    runs = {}
    with tempfile.TemporaryDirectory(prefix="kinetree-cold-") as tmp:
        workdir = Path(tmp)
        for what in ("numba", "kinetree"):
            r = run_child(["-c", f"import {what}"], workdir / f"import-{what}")
            print(f"import {what} (cold): {r['cpu']:.2f} s CPU, {r['wall']:.2f} s wall")

        warmed = workdir / "warmed"
        up = run_child(["-m", "kinetree", "warmup"], warmed)
        print(f"\npython -m kinetree warmup, empty cache: {up['cpu']:.1f} s CPU, "
              f"{up['wall']:.1f} s wall")

        print("\nafter the warm-up, to the first realized State / to the end (CPU of the "
              "whole process), and what was compiled:")
        programs = [("first program", "first"), ("every mobilizer kind", "mobilizers")]
        programs += [(p.name, str(p)) for p in sorted(MODELS.glob("urdf/*.urdf"))]
        programs += [(p.name, str(p)) for p in sorted(MODELS.glob("opensim/*.osim"))]
        for label, program in programs:
            r, records = run_profiled(program, warmed, workdir, f"after-{label}")
            runs[f"after-{label}"] = records
            print(f"  {label:38s} {r['realized']:5.2f} s / {r['cpu']:5.2f} s, "
                  f"{len(records)} dispatchers compiled")

        alone = workdir / "without-gimbal"
        shutil.copytree(warmed, alone)
        for f in alone.rglob("gimbal.*"):
            f.unlink()
        r, records = run_profiled("first", alone, workdir, "one-kind")
        runs["one-kind"] = records
        print(f"\nthe first program with the Gimbal's functions not yet compiled: "
              f"{r['cpu']:.1f} s CPU ({r['cpu'] - r['realized']:.1f} s after the first "
              f"realized State)")
        print_records(records, args.top)

        cold, records = run_profiled("first", workdir / "cold", workdir, "cold")
        runs["cold"] = records
        print(f"\n{cold['stdout']}\nthe first program from an empty cache, without the "
              f"warm-up: {cold['cpu']:.1f} s CPU, {cold['wall']:.1f} s wall")
        print_records(records, args.top)
        if args.json:
            args.json.write_text(json.dumps(
                {"columns": ["module", "qualname", "signatures", "own_cpu_s", "total_cpu_s"],
                 **runs}, indent=1))


if __name__ == "__main__":
    main()
