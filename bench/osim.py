"""OpenSim models in kinetree: the time to load a file, and one realization against
OpenSim's (Simbody's) ``realizeAcceleration`` on the same model in the same process.

For each model of ``models/opensim`` (``--models`` picks some): kinetree's
``load_osim`` wall time (the best of three, numba's cache warm) beside OpenSim's
``Model(path)`` + ``initSystem``; then, at the same random coordinate values and speeds
(forces off in both: ``include_forces=False``, gravity on), kinetree's ``set_q``, ``set_u`` and
``realize(ACCELERATION)`` against OpenSim's ``state.setQ``, ``setU`` and
``model.realizeAcceleration``, timed interleaved (``timing.interleaved_best``). The
models' u̇ are compared first and the largest difference printed.

Run: ``.venv/bin/python bench/osim.py [--models Rajagopal2016,gait2392_thelen2003muscle]``
(the ``validation`` extra for OpenSim).
"""

from __future__ import annotations

import argparse
import time
import warnings
from pathlib import Path

import numpy as np
import opensim as osim
from opensim_pose import copy_pose, random_pose
from timing import interleaved_best

import kinetree as kt
from kinetree.io import load_osim

MODELS = Path(__file__).resolve().parents[1] / "models" / "opensim"


def best_of(fn, n=3):
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def opensim_model(path):
    model = osim.Model(str(path))
    forces = model.getForceSet()
    for i in range(forces.getSize()):
        forces.get(i).set_appliesForce(False)
    state = model.initSystem()
    return model, state


def measure(name: str) -> tuple:
    """(name, load_osim s, OpenSim load s, kinetree realize s, OpenSim realize s, max |Δu̇|)
    of one model."""
    path = MODELS / f"{name}.osim"
    load_kt, model = best_of(lambda: load_osim(path, include_forces=False))
    load_os, (om, ostate) = best_of(lambda: opensim_model(path))
    state = model.get_default_state()
    random_pose(om, ostate, np.random.default_rng(0))
    om.realizeAcceleration(ostate)
    copy_pose(model, state, om, ostate)
    coordinates = om.getCoordinateSet()
    model.system.realize(state, kt.Stage.ACCELERATION)
    worst = max(abs(model.coordinates[coordinates.get(i).getName()].get_acceleration_value(state)
                    - coordinates.get(i).getAccelerationValue(ostate))
                for i in range(coordinates.getSize()))
    q, u = model.matter.get_q(state).copy(), model.matter.get_u(state).copy()
    Q, U = osim.Vector(ostate.getQ()), osim.Vector(ostate.getU())
    matter, system = model.matter, model.system

    def kinetree_call():
        matter.upd_q(state)[:] = q
        matter.upd_u(state)[:] = u
        system.realize(state, kt.Stage.ACCELERATION)

    def opensim_call():
        ostate.setQ(Q)
        ostate.setU(U)
        om.realizeAcceleration(ostate)

    t_kt, t_os = interleaved_best([kinetree_call, opensim_call])
    return name, load_kt, load_os, t_kt, t_os, worst


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n] or sorted(
        p.stem for p in MODELS.glob("*.osim"))
    warnings.simplefilter("ignore")
    rows = []
    for name in names:
        row = measure(name)
        rows.append(row)
        _, load_kt, load_os, t_kt, t_os, worst = row
        print(f"{name}: load {load_kt:.3f} s (OpenSim {load_os:.3f} s); realize "
              f"{t_kt * 1e6:.1f} µs, OpenSim {t_os * 1e6:.1f} µs, ratio {t_kt / t_os:.2f}; "
              f"max |Δu̇| {worst:.1e}")
    print()
    print("| model | load_osim | OpenSim Model + initSystem | realize | OpenSim "
          "realizeAcceleration | ratio | max abs Δu̇ |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, load_kt, load_os, t_kt, t_os, worst in rows:
        print(f"| {name} | {load_kt:.3f} s | {load_os:.3f} s | {t_kt * 1e6:.1f} µs | "
              f"{t_os * 1e6:.1f} µs | {t_kt / t_os:.2f} | {worst:.0e} |")


if __name__ == "__main__":
    main()
