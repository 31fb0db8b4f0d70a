"""What a spline FunctionBased knee costs against a Pin in the same tree.

Issue 6 (and the seed: "performance comparable to a simple Pin joint") asks that a
one-coordinate FunctionBased joint whose translations are splines of its angle cost at
most twice a Pin per ``realize(ACCELERATION)``. Each tree is built three times, identical
except for one joint:

- ``pin``: MobilizedBody.Pin (rotation about F's z);
- ``linear FB``: FunctionBased with the rotation about z a Function.Linear of q and the
  translations Constants: the same motion as the Pin, through the FunctionBased machinery
  (Python pre-pass included), so the difference to ``pin`` is the mechanism's cost;
- ``spline FB``: the knee of ``examples/knee.py``: the rotation as above, translations
  along x and y natural splines of q through gait2392's Yamaguchi-Zajac points.

Trees: a 3-body leg (thigh on a hip Pin, the knee, the foot on an ankle Pin), and pin
chains of 10 and 100 bodies (``fig3_model.chain_tree``, random frames and links) with the
middle joint replaced. Timed: ``set_q``, ``set_u``, ``realize(ACCELERATION)`` from a fixed
random state (best of 9 batches, ``timing.interleaved_best``). For ``linear FB`` the u̇
is checked against ``pin`` (the two trees are the same mechanism).

Run: ``.venv/bin/python bench/function_based.py`` (``--profile`` also prints the top of a
cProfile of the spline tree's realization on the 10-body chain).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import runpy
from pathlib import Path

import numpy as np
from fig3_model import G, chain_tree, random_model
from timing import interleaved_best

import kinetree as kt

# The gait2392 knee table (Yamaguchi & Zajac 1989), as examples/knee.py holds it: knee
# angle (rad) -> tibia origin along the femur's x and y (m).
_KNEE = runpy.run_path(str(Path(__file__).resolve().parents[1] / "examples" / "knee.py"))
KNEE_ANGLE_X, TIBIA_X = _KNEE["KNEE_ANGLE_X"], _KNEE["TIBIA_X"]
KNEE_ANGLE_Y, TIBIA_Y = _KNEE["KNEE_ANGLE_Y"], _KNEE["TIBIA_Y"]

KINDS = ("pin", "linear FB", "spline FB")
COORDS = [[], [], [0], [0], [0], []]


def knee_mobilizer(kind, parent, X_PF, body, X_BM):
    """The special joint of each tree, of the given kind."""
    if kind == "pin":
        return kt.MobilizedBody.Pin(parent, X_PF, body, X_BM)
    zero = kt.Function.Constant(0.0, 0)
    if kind == "linear FB":
        x, y = zero, zero
        coords = [[], [], [0], [], [], []]
    else:
        x = kt.Function.Spline(KNEE_ANGLE_X, TIBIA_X)
        y = kt.Function.Spline(KNEE_ANGLE_Y, TIBIA_Y)
        coords = COORDS
    functions = [zero, zero, kt.Function.Linear([1.0, 0.0]), x, y, zero]
    return kt.MobilizedBody.FunctionBased(parent, X_PF, body, X_BM, 1, functions, coords)


def new_system():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, G)
    return system, matter


def rigid(mass, com, moments):
    """A body from mass (kg), mass centre (m) and central principal moments (kg m²)."""
    inertia = kt.Inertia(*moments).shift_from_mass_center(com, mass)
    return kt.Body.Rigid(kt.MassProperties(mass, com, inertia))


def leg(kind):
    """(system, q, u): hip Pin - thigh - knee - shank - ankle Pin - foot (gait2392's
    segment masses and inertias), at a flexed pose and random speeds."""
    system, matter = new_system()
    thigh = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(),
                                 rigid(9.3014, [0, -0.17, 0], (0.1339, 0.0351, 0.1412)),
                                 kt.Transform())
    shank = knee_mobilizer(kind, thigh, kt.Transform(),
                           rigid(3.7075, [0, -0.1867, 0], (0.0504, 0.0051, 0.0511)),
                           kt.Transform())
    kt.MobilizedBody.Pin(shank, kt.Transform([0, -0.43, 0]),
                         rigid(1.25, [0.1, -0.03, 0], (0.0014, 0.0039, 0.0041)),
                         kt.Transform())
    return system, np.array([0.4, -0.9, 0.2]), np.array([1.3, -2.1, 0.7])


def chain(kind, n):
    """(system, q, u): ``fig3_model``'s n-body pin chain (seed 0), the middle joint of the
    given kind; q keeps that joint's angle inside the spline data."""
    parents, _ = chain_tree(n)
    frames, bodies, q, u = random_model(parents, seed=0)
    system, matter = new_system()
    mobods = [matter.Ground()]
    for i, (parent, (R, p), (m, com, I_c)) in enumerate(zip(parents, frames, bodies)):
        body = kt.Body.Rigid(kt.MassProperties(
            m, com, kt.Inertia(I_c).shift_from_mass_center(com, m)))
        X_PF = kt.Transform(kt.Rotation(R), p)
        if i == n // 2:
            mobods.append(knee_mobilizer(kind, mobods[parent], X_PF, body, kt.Transform()))
        else:
            mobods.append(kt.MobilizedBody.Pin(mobods[parent], X_PF, body, kt.Transform()))
    return system, q, u


def timed(system, q, u):
    """(s per set_q + set_u + realize(ACCELERATION), u̇)."""
    state = system.realize_topology()

    def step():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)

    step()
    return interleaved_best([step])[0], state.get_u_dot().copy()


def measure(make):
    """{kind: (s per realization, u̇)} for the three versions of one tree."""
    out = {}
    for kind in KINDS:
        system, q, u = make(kind)
        out[kind] = timed(system, q, u)
    np.testing.assert_allclose(out["linear FB"][1], out["pin"][1], rtol=1e-12, atol=1e-12)
    return out


def profile(make, calls=2000):
    """The top of a cProfile of ``calls`` realizations of the spline tree."""
    system, q, u = make("spline FB")
    state = system.realize_topology()
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(calls):
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)
    profiler.disable()
    pstats.Stats(profiler).sort_stats("tottime").print_stats(15)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", action="store_true",
                        help="also profile the spline tree on the 10-body chain")
    args = parser.parse_args(argv)
    trees = [("3-body leg", leg), ("10-body chain", lambda kind: chain(kind, 10)),
             ("100-body chain", lambda kind: chain(kind, 100))]
    print(f"{'tree':>15} {'pin µs':>8} {'linear FB µs':>13} {'spline FB µs':>13} "
          f"{'spline/pin':>11} {'extra µs':>9}")
    for name, make in trees:
        t = {kind: v[0] * 1e6 for kind, v in measure(make).items()}
        print(f"{name:>15} {t['pin']:>8.1f} {t['linear FB']:>13.1f} {t['spline FB']:>13.1f} "
              f"{t['spline FB'] / t['pin']:>11.2f} {t['spline FB'] - t['pin']:>9.1f}")
    if args.profile:
        profile(lambda kind: chain(kind, 10))


if __name__ == "__main__":
    main()
