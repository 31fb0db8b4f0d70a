"""Muscle-driven OpenSim models in kinetree against OpenSim 4.6 in the same process.

1. A simulation: gait10dof18musc (18 Millard2012EquilibriumMuscle) for 1 s from its
   default pose, every muscle at a constant excitation of 0.2, muscles equilibrated
   first, Runge-Kutta-Merson at accuracy 1e-6 in both; the CPU seconds of each run (the
   best of 5, the two engines' runs interleaved), their steps, and the largest
   difference in the final coordinates (rad or m).
2. One realization to ACCELERATION of Rajagopal2016 (80 muscles, 46 wrapped paths) at a
   random pose and speeds with the muscles equilibrated: kinetree's set_q, set_u and
   realize against OpenSim's setQ, setU and realizeAcceleration, timed interleaved.
3. What a muscle adds to a realization: each model's realization with its muscles, less
   the same model's without them (``include_forces=False``), per muscle (µs), with how
   many of its paths wrap (gait models: none; arm26 and Rajagopal2016: many).

Run: ``.venv/bin/python bench/muscles.py [--quick]`` (the ``validation`` extra for
OpenSim). ``--quick`` simulates 0.1 s instead of 1 s.
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
from kinetree.actuators import PrescribedController
from kinetree.io import load_osim

MODELS = Path(__file__).resolve().parents[1] / "models" / "opensim"
EXCITATION = 0.2
ACCURACY = 1e-6


def load(name: str, include_forces: bool = True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_osim(MODELS / f"{name}.osim", include_forces=include_forces)


def opensim_driven(name: str):
    """OpenSim's model with every muscle at EXCITATION (a PrescribedController of
    Constants), initialized and equilibrated."""
    model = osim.Model(str(MODELS / f"{name}.osim"))
    controller = osim.PrescribedController()
    muscles = model.getMuscles()
    for i in range(muscles.getSize()):
        controller.addActuator(muscles.get(i))
        controller.prescribeControlForActuator(muscles.get(i).getName(),
                                               osim.Constant(EXCITATION))
    model.addController(controller)
    state = model.initSystem()
    model.equilibrateMuscles(state)
    return model, state


def kinetree_driven(name: str):
    model = load(name)
    controller = PrescribedController("constant", {
        m: kt.Function.Constant(EXCITATION, 1) for m in model.muscles})
    model.actuator_subsystem.add_controller(controller)
    state = model.get_default_state()
    model.equilibrate_muscles(state)
    return model, state


def simulation(name: str, t_final: float, rounds: int = 5) -> None:
    om, ostate = opensim_driven(name)
    model, state = kinetree_driven(name)
    kt.simulate(model.system, state, 0.01, accuracy=ACCURACY, progress=False)  # compiled
    cpu_os = cpu_kt = float("inf")
    for _ in range(rounds):             # interleaved, the best of each kept
        manager = osim.Manager(om)
        manager.setIntegratorAccuracy(ACCURACY)
        manager.initialize(osim.State(ostate))
        start = time.process_time()
        final = manager.integrate(t_final)
        cpu_os = min(cpu_os, time.process_time() - start)
        start = time.process_time()
        traj = kt.simulate(model.system, state, t_final, accuracy=ACCURACY, progress=False,
                           report_interval=t_final)
        cpu_kt = min(cpu_kt, time.process_time() - start)
    coordinates = om.getCoordinateSet()
    last = traj.states()[-1]
    worst = max(abs(model.coordinates[coordinates.get(i).getName()].get_value(last)
                    - coordinates.get(i).getValue(final))
                for i in range(coordinates.getSize()))
    print(f"{name}: {t_final:g} s at accuracy {ACCURACY:g}, excitation {EXCITATION}")
    print(f"  OpenSim  {cpu_os:8.4f} s CPU")
    print(f"  kinetree {cpu_kt:8.4f} s CPU, {traj.stats['steps_taken']} steps  "
          f"ratio {cpu_kt / cpu_os:.3f}  (max |Δq| at the end {worst:.2e})")


def realization(name: str) -> None:
    om, ostate = opensim_driven(name)
    random_pose(om, ostate, np.random.default_rng(0))
    om.equilibrateMuscles(ostate)
    om.realizeAcceleration(ostate)
    model, state = kinetree_driven(name)
    copy_pose(model, state, om, ostate)
    model.equilibrate_muscles(state)
    system = model.system
    q, u = state.get_q().copy(), state.get_u().copy()
    Q, U = osim.Vector(ostate.getQ()), osim.Vector(ostate.getU())

    def ours():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)

    def theirs():
        ostate.setQ(Q)
        ostate.setU(U)
        om.realizeAcceleration(ostate)

    t_kt, t_os = interleaved_best([ours, theirs])
    print(f"{name}: realize to ACCELERATION with {len(model.muscles)} muscles")
    print(f"  OpenSim  {t_os * 1e6:9.1f} µs")
    print(f"  kinetree {t_kt * 1e6:9.1f} µs  ratio {t_kt / t_os:.3f}")


def _realization(name: str, include_forces: bool):
    """(the model, a function realizing it to ACCELERATION from a set q)."""
    model = load(name, include_forces)
    state = model.get_default_state()
    if model.muscles:
        model.equilibrate_muscles(state)
    system, q = model.system, state.get_q().copy()

    def realize():
        state.set_q(q)
        system.realize(state, kt.Stage.ACCELERATION)

    return model, realize


def per_muscle(name: str) -> None:
    model, with_muscles = _realization(name, True)
    _, without = _realization(name, False)
    t_with, t_without = interleaved_best([with_muscles, without])
    n = len(model.muscles)
    wrapped = sum(1 for m in model.muscles.values() if m.path.wraps)
    print(f"{name}: {n} muscles ({wrapped} wrapped): {t_without * 1e6:.1f} µs without, "
          f"{t_with * 1e6:.1f} µs with: {(t_with - t_without) / n * 1e6:.2f} µs per muscle")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    simulation("gait10dof18musc", 0.1 if args.quick else 1.0)
    realization("Rajagopal2016")
    for name in ("gait10dof18musc", "gait2392_thelen2003muscle", "arm26", "Rajagopal2016"):
        per_muscle(name)


if __name__ == "__main__":
    main()
