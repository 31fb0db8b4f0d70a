"""Constrained forward dynamics: cost against the number of bodies n and of constraint
equations m, beside Simbody-through-OpenSim on the same model in the same process.

The model: a chain of n pin-jointed links with randomly oriented axes; k Ball constraints
(m = 3k equations) tie links spread along the chain to the Ground points where they sit,
so the starting configuration satisfies them. Timed: setting q and u and realizing
ACCELERATION (kinetree: ``system.realize``; OpenSim: ``model.realizeAcceleration`` on its
Simbody State). kinetree's solve costs m articulated-body solves and constraint sweeps and
an m x m least-squares solve, O(n·m + m³); the table shows the growth in n at fixed m and
in m at fixed n. u̇ from both are compared before timing.

Run: ``.venv/bin/python bench/constrained_dynamics.py`` (needs the ``validation`` extra).
"""

from __future__ import annotations

import numpy as np
import opensim as osim
from scipy.spatial.transform import Rotation as SciRot
from timing import interleaved_best

import kinetree as kt

G = 9.80665


def build(n, k, seed=0):
    """(kinetree system, OpenSim model, q) for an n-link chain with k Ball constraints."""
    rng = np.random.default_rng(seed)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    k_bodies, o_bodies = [matter.Ground()], [model.getGround()]
    for i in range(n):
        angles = SciRot.random(random_state=rng.integers(1 << 31)).as_euler("XYZ")
        offset = rng.uniform(-0.05, 0.05, 3) + [0, -0.3, 0]
        mass, com = rng.uniform(0.5, 2.0), rng.uniform(-0.05, 0.05, 3)
        moments = rng.uniform(0.02, 0.04, 3)
        X_PF = kt.Transform(kt.Rotation.from_body_fixed_xyz(angles), offset)
        body = kt.Body.Rigid(kt.MassProperties(
            mass, com, kt.Inertia(*moments).shift_from_mass_center(com, mass)))
        k_bodies.append(kt.MobilizedBody.Pin(k_bodies[-1], X_PF, body, kt.Transform()))
        o_body = osim.Body(f"b{i}", mass, osim.Vec3(*com), osim.Inertia(*moments))
        joint = osim.PinJoint(f"j{i}", o_bodies[-1], osim.Vec3(*offset),
                              osim.Vec3(*angles), o_body, osim.Vec3(0), osim.Vec3(0))
        model.addBody(o_body)
        model.addJoint(joint)
        o_bodies.append(o_body)
    state = system.realize_topology()
    q = rng.uniform(-0.5, 0.5, n)
    state.set_q(q)
    system.realize(state, kt.Stage.POSITION)
    for j in range(k):
        b = n * (j + 1) // (k + 1) + 1
        p = k_bodies[b].get_body_origin_location(state)
        kt.Constraint.Ball(matter.Ground(), p, k_bodies[b], np.zeros(3))
        point = osim.PointConstraint(model.getGround(), osim.Vec3(*p), o_bodies[b],
                                     osim.Vec3(0))
        point.setName(f"ball{j}")
        model.addConstraint(point)
    return system, model, q


def compare(n, k, seed=0):
    """(kinetree s/call, OpenSim s/call, max relative |Δu̇|)."""
    system, model, q = build(n, k, seed)
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(np.random.default_rng(seed + 1).uniform(-1, 1, n))
    system.project(state, 1e-13)            # velocities consistent with the constraints
    q, u = np.array(state.get_q()), np.array(state.get_u())
    o_state = model.initSystem()
    o_q, o_u = osim.Vector(list(q)), osim.Vector(list(u))

    def kinetree_step():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)

    def opensim_step():
        o_state.setQ(o_q)
        o_state.setU(o_u)
        model.realizeAcceleration(o_state)

    kinetree_step()
    opensim_step()
    udot_o = np.array([o_state.getUDot().get(i) for i in range(n)])
    err = np.abs(state.get_u_dot() - udot_o).max() / max(1.0, np.abs(udot_o).max())
    return (*interleaved_best([kinetree_step, opensim_step]), err)


def main():
    print("Constrained forward dynamics: n-link pin chain, k Ball constraints (m = 3k)")
    print(f"{'n':>5} {'m':>4} {'kinetree µs':>12} {'OpenSim µs':>11} {'ratio':>7} "
          f"{'max |Δu̇|':>10}")
    for n, k in ((50, 0), (50, 1), (50, 2), (50, 4), (50, 8),
                 (25, 4), (100, 4), (200, 4), (400, 4)):
        t_kt, t_os, err = compare(n, k)
        print(f"{n:>5} {3 * k:>4} {t_kt * 1e6:>12.1f} {t_os * 1e6:>11.1f} "
              f"{t_kt / t_os:>7.2f} {err:>10.1e}")


if __name__ == "__main__":
    main()
