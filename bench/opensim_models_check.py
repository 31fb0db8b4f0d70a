"""Every muscle of every .osim file of the opensim-models repository, loaded by kinetree
and by OpenSim 4.6 side by side, compared as ``tests/validation/test_opensim_muscles.py``
and ``test_opensim_paths.py`` compare the bundled models: at random coordinates and
speeds, activations and excitations, with the muscles equilibrated by each program.

One row per distinct file (byte-identical copies share a row): its muscles, and the worst
deviation of each quantity over its muscles, coordinates and samples:

- ``L``, ``dL/dt``: path length (m) and lengthening speed (m/s), absolute; the issue's
  tolerance is 1e-9;
- ``r``: moment arm about every coordinate, |kinetree - OpenSim| / max(|OpenSim|, 1 m)
  (absolute below 1 m, relative above, where a dependent coordinate's coupling is
  nearly flat); tolerance 1e-8;
- ``T``, ``lM``, ``ż``: tendon force, fiber length after equilibration and each muscle
  state's derivative, relative, |kinetree - OpenSim| / max(|OpenSim|, floor) with floors
  1 N, 1e-6 m and 1e-3 (the validation tests' atol / rtol); tolerance 1e-6;
- ``u̇ moving``, ``u̇ rest``: every coordinate's acceleration at random speeds and at
  rest, relative, floor 1 rad/s² or m/s²; tolerance 1e-8. A locked coordinate is left
  out (kinetree's u̇ is 0, OpenSim's near 0).

A value over its tolerance is marked ``!``, ``-`` where nothing was compared. A muscle
whose OpenSim path is not self-consistent (OpenSim's stale wrap tangent points,
``opensim_path_is_consistent`` of ``tests/support.py``) is left out of its sample (and u̇
of that sample), and counted in ``stale``. A pose where OpenSim's equilibrateMuscles
fails is replaced by another draw and counted in ``no eq.``.

Forces and controllers kinetree did not build (``model.skipped``) are switched off in
OpenSim too, so that u̇ compares the same model; the ``skipped`` column lists them.

Each file is checked in a process of its own: OpenSim registers a file's ``<defaults>``
objects as the defaults of every model read after it in the process, so the models read
before would change a file's muscles in OpenSim.

Run: ``.venv/bin/python bench/opensim_models_check.py [MIRROR] [--samples 3]
[--only gait2354] [--exclude wrist] [-v]``, MIRROR the opensim-models git directory (no
work tree needed).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import opensim as osim

import kinetree as kt
from kinetree.errors import KinetreeError
from kinetree.io import OsimSkippedWarning, load_osim

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support import (  # noqa: E402
    opensim_path_is_consistent,
    set_kinetree_coordinates,
    set_random_coordinates,
)

MIRROR = Path("/work/.mirror/opensim-org+opensim-models/repo")

QUANTITIES = ("L", "dL/dt", "r", "T", "lM", "ż", "u̇ moving", "u̇ rest")
TOLERANCE = dict(zip(QUANTITIES, (1e-9, 1e-9, 1e-8, 1e-6, 1e-6, 1e-6, 1e-8, 1e-8)))


@dataclass
class Row:
    """What one file gave: its muscles, the worst deviation of each quantity (None where
    none was compared) and where, the muscles left out for OpenSim's stale wrap points,
    the poses OpenSim could not equilibrate, what kinetree skipped, and an error that
    stopped the comparison."""

    name: str
    copies: list[str] = field(default_factory=list)
    muscles: int = 0
    worst: dict = field(default_factory=lambda: dict.fromkeys(QUANTITIES))
    where: dict = field(default_factory=dict)
    stale: list[str] = field(default_factory=list)
    unbalanced: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    error: str = ""

    def note(self, quantity: str, deviation: float, where: str) -> None:
        worst = self.worst[quantity]
        if worst is None or not deviation <= worst:      # NaN is the worst
            self.worst[quantity], self.where[quantity] = float(deviation), where


def relative(got: float, expected: float, floor: float) -> float:
    return abs(got - expected) / max(abs(expected), floor)


def osim_files(mirror: Path) -> dict[str, bytes]:
    """{path in the repository: its bytes} of every .osim file at the mirror's HEAD."""
    names = subprocess.run(["git", "-C", str(mirror), "ls-tree", "-r", "--name-only", "HEAD"],
                           check=True, capture_output=True, text=True).stdout.splitlines()
    return {n: subprocess.run(["git", "-C", str(mirror), "show", f"HEAD:{n}"], check=True,
                              capture_output=True).stdout
            for n in names if n.endswith(".osim")}


def switch_off_skipped(om, skipped: list[str]) -> None:
    """Switch off in OpenSim's model the forces and controllers kinetree did not build
    (each entry of ``skipped`` starts ``Tag 'name'``)."""
    forces, controllers = om.updForceSet(), om.updControllerSet()
    for entry in skipped:
        found = re.match(r"(\w+) '([^']+)'", entry)
        if found is None:
            continue
        name = found.group(2)
        if forces.contains(name):
            forces.get(name).set_appliesForce(False)
        elif controllers.contains(name):
            controllers.get(name).setEnabled(False)


def check(path: Path, row: Row, samples: int, seed: int) -> None:
    """Fill ``row`` with the deviations of kinetree from OpenSim on the file ``path``:
    ``samples`` poses drawn from ``seed``, the last at rest."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(path)
    row.skipped = list(model.skipped)
    om = osim.Model(str(path))
    switch_off_skipped(om, row.skipped)
    ostate = om.initSystem()
    state = model.get_default_state()
    muscles = om.getMuscles()
    names = [muscles.get(i).getName() for i in range(muscles.getSize())]
    row.muscles = len(names)
    built = [n for n in names if n in model.muscles]
    actuators = [om.getActuators().get(i).getName()
                 for i in range(om.getActuators().getSize())]
    coordinates = om.getCoordinateSet()
    cnames = [coordinates.get(i).getName() for i in range(coordinates.getSize())]
    rng = np.random.default_rng(seed)
    sample = 0
    for _ in range(3 * samples):
        if sample == samples:
            break
        moving = sample < samples - 1
        set_random_coordinates(om, ostate, rng, moving)
        om.assemble(ostate)
        activations = rng.uniform(0.02, 1.0, len(names))
        excitations = rng.uniform(0.0, 1.0, len(names))
        for name, a in zip(names, activations):
            muscles.get(name).setActivation(ostate, a)
        set_kinetree_coordinates(model, state, om, ostate)
        for name, a in zip(names, activations):
            if name in model.muscles:
                model.muscles[name].set_activation(state, a)
        try:
            om.equilibrateMuscles(ostate)
        except RuntimeError as error:
            found = re.search(r"In Object '([^']+)'", str(error))
            try:
                model.equilibrate_muscles(state)
                kinetree = "kinetree balances it"
            except KinetreeError:
                kinetree = "kinetree fails too"
            row.unbalanced.append(f"{found.group(1) if found else '?'} #{sample} ({kinetree})")
            continue
        om.realizeVelocity(ostate)
        controls = om.getControls(ostate)
        for name, e in zip(names, excitations):
            controls.set(actuators.index(name), float(e))
        om.setControls(ostate, controls)
        om.realizeAcceleration(ostate)

        set_kinetree_coordinates(model, state, om, ostate)
        model.set_controls(state, {n: e for n, e in zip(names, excitations)
                                   if n in model.muscles})
        model.equilibrate_muscles(state)
        model.system.realize(state, kt.Stage.ACCELERATION)
        compare_sample(row, model, state, om, ostate, built, cnames, f"#{sample}", moving)
        sample += 1


def compare_sample(row: Row, model, state, om, ostate, built, cnames, tag, moving) -> None:
    """The deviations of one pose, both programs' States realized to Acceleration."""
    muscles, coordinates = om.getMuscles(), om.getCoordinateSet()
    z_dot = dict(zip(model.actuator_subsystem.z_labels(),
                     model.actuator_subsystem.get_z_dot(state))) \
        if built else {}
    stale = False
    for name in built:
        m, k = muscles.get(name), model.muscles[name]
        where = f"{name} {tag}"
        if not opensim_path_is_consistent(m, ostate):
            row.stale.append(name)
            stale = True
            continue
        row.note("L", abs(k.get_length(state) - m.getLength(ostate)), where)
        row.note("dL/dt", abs(k.get_lengthening_speed(state) - m.getLengtheningSpeed(ostate)),
                 where)
        for c in cnames:
            row.note("r", relative(k.compute_moment_arm(state, model.coordinates[c]),
                                   m.computeMomentArm(ostate, coordinates.get(c)), 1.0),
                     f"{where} {c}")
        row.note("T", relative(k.get_tendon_force(state), m.getTendonForce(ostate), 1.0), where)
        row.note("lM", relative(k.get_fiber_length(state), m.getFiberLength(ostate), 1e-6),
                 where)
        for label, value in z_dot.items():
            if label.startswith(f"/forceset/{name}/"):
                row.note("ż", relative(value, om.getStateVariableDerivativeValue(ostate, label),
                                       1e-3), f"{where} {label.rsplit('/', 1)[-1]}")
    if stale:
        return                  # u̇ then follows from OpenSim's inconsistent lengths
    for c in cnames:
        oc = coordinates.get(c)
        if not oc.getLocked(ostate):
            row.note("u̇ moving" if moving else "u̇ rest",
                     relative(model.coordinates[c].get_acceleration_value(state),
                              oc.getAccelerationValue(ostate), 1.0), f"{c} {tag}")


def counted(entries) -> str:
    """Entries counted by kind: ``model.skipped``'s by element tag and reason, muscle names
    by name."""
    kinds: dict[str, int] = {}
    for entry in entries:
        key = re.sub(r"\(.*", "", re.sub(r" '[^']*'", "", entry)).strip()
        kinds[key] = kinds.get(key, 0) + 1
    return ", ".join(f"{n} {k}" for k, n in kinds.items()) or "-"


def table(rows: list[Row]) -> str:
    head = ["file", "muscles", *QUANTITIES, "stale", "no eq.", "skipped"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        name = " = ".join([row.name, *row.copies])
        if row.error:
            lines.append(f"| {name} | {row.muscles or '?'} | " + " | ".join(
                ["-"] * (len(QUANTITIES) + 2)) + f" | {row.error.splitlines()[0][:160]} |")
            continue
        cells = ["-" if row.worst[q] is None else f"{row.worst[q]:.0e}"
                 + ("!" if not row.worst[q] <= TOLERANCE[q] else "") for q in QUANTITIES]
        lines.append(f"| {name} | {row.muscles} | " + " | ".join(cells)
                     + f" | {len(set(row.stale)) or '-'} | {len(row.unbalanced) or '-'} | "
                     + counted(row.skipped) + " |")
    return "\n".join(lines)


def check_alone(path: Path, name: str, samples: int, seed: int) -> Row:
    """``check`` of one file in a fresh process (module docstring: OpenSim's defaults)."""
    done = subprocess.run([sys.executable, __file__, "--one", str(path), "--samples",
                           str(samples), "--seed", str(seed)], capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode < 0:
        return Row(name, error=f"the check's process crashed (signal {-done.returncode})")
    if done.returncode or not lines:
        return Row(name, error=(done.stderr.strip().splitlines() or ["no output"])[-1])
    row = Row(**json.loads(lines[-1]))
    row.name = name
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mirror", nargs="?", type=Path, default=MIRROR)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--only", default="", help="check the files whose path has this")
    parser.add_argument("--exclude", action="append", default=[],
                        help="leave out the files whose path has this (repeatable)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="print where each worst deviation is and what was skipped")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    osim.Logger.setLevelString("error")
    if args.one is not None:            # the child process of check_alone
        row = Row(str(args.one))
        try:
            check(args.one, row, args.samples, args.seed)
        except Exception as error:
            row.error = f"{type(error).__name__}: {error}"
        print(json.dumps(dataclasses.asdict(row)))
        return
    rows: dict[str, Row] = {}
    with tempfile.TemporaryDirectory() as folder:
        for name, data in sorted(osim_files(args.mirror).items()):
            if args.only not in name or any(e in name for e in args.exclude) \
                    or not re.search(rb"<\w*Muscle\w*[\s>]", data):
                continue
            digest = hashlib.sha256(data).hexdigest()
            if digest in rows:
                rows[digest].copies.append(name)
                continue
            path = Path(folder) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            t0 = time.perf_counter()
            row = rows[digest] = check_alone(path, name, args.samples, args.seed)
            print(f"{name}: {row.muscles} muscles, {time.perf_counter() - t0:.0f} s"
                  + (f", {row.error.splitlines()[0]}" if row.error else ""), flush=True)
            if args.verbose:
                for q, where in row.where.items():
                    print(f"    worst {q} {row.worst[q]:.3e} at {where}")
                for what, entries in (("stale", sorted(set(row.stale))),
                                      ("OpenSim did not equilibrate", row.unbalanced),
                                      ("skipped", row.skipped)):
                    if entries:
                        print(f"    {what}: " + "; ".join(entries))
    print(table(list(rows.values())))


if __name__ == "__main__":
    main()
