"""Constrained forward dynamics: kinetree beside Simbody-through-OpenSim on the same models,
in the same process.

Every model is built in kinetree and mirrored into OpenSim (``mirror``: the same joints,
frames, mass properties and gravity, read back from the kinetree model), its constraints
added to both. Timed (``timing.interleaved_best``): setting q and u and realizing
ACCELERATION (kinetree: ``system.realize``; OpenSim: ``model.realizeAcceleration`` on its
Simbody State). The State is kinetree's, u projected onto the velocity constraints, copied
into OpenSim coordinate by coordinate (a quaternion Ball as the body-fixed XYZ angles
OpenSim's BallJoint uses; u, the joint's angular velocity in its F frame, is the same in
both); OpenSim does not assemble or project it. Before timing, u̇ from both are compared
(relative to max(1, |u̇|)) and OpenSim's position and velocity constraint errors at the
copied State are checked, which tests that the two models' constraints are the same.

1. The sweep: a chain of n pin-jointed links with randomly oriented axes; k Ball
   constraints (m = 3k equations) tie links spread along the chain to the Ground points
   where they sit. kinetree's solve costs m articulated-body solves and constraint sweeps
   and an m x m least-squares solve, O(n·m + m³): the growth in n at fixed m and in m at
   fixed n.
2. The table: the demo's linkage (``kinetree.demo.build_linkage``, its Rod an OpenSim
   ConstantDistanceConstraint); a planar four-bar closed by a Ball (PointConstraint; 3
   equations of rank 2); two pin chains hanging side by side, joined by Ball or Weld
   rungs (PointConstraint, WeldConstraint) placed where the two links currently are. The
   Ball rungs are spread evenly (every other link: 24 independent equations on 32 pins).
   16 Weld rungs (96 equations on 64 pins) are redundant wherever they sit, and spread
   every other link they would lock the ladder (u = 0 after projection, u̇ = 0: a blind
   check); on the lowest 16 links they leave the upper halves a moving loop. The rank of G
   is printed, and the cost of one more equation from ladders differing only in rungs.
3. The demo's simulation over 2 s, Runge-Kutta-Merson at accuracy 1e-6, CPU seconds
   (``time.process_time``): kinetree's ``simulate`` as ``kinetree.demo.run`` calls it
   (reports every 10 ms with the rod's error), against OpenSim's Manager on the mirrored
   model (no reports); each run once untimed, then the best of ``--repeat`` (3) runs. The
   tips' positions at 2 s are compared; they differ by the integration error.

Run: ``.venv/bin/python bench/constrained_dynamics.py`` (needs the ``validation`` extra);
``--table`` skips the sweep; ``--rounds``, ``--repeat`` set the timing effort.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import opensim as osim
from fig3 import SimbodyIntegratorStats
from scipy.spatial.transform import Rotation as SciRot
from timing import interleaved_best

import kinetree as kt
from kinetree.demo import ACCURACY, REPORT_INTERVAL, build_linkage

G = 9.80665
ACC = kt.Stage.ACCELERATION
JOINTS = {"Pin": osim.PinJoint, "Ball": osim.BallJoint, "Universal": osim.UniversalJoint,
          "Gimbal": osim.GimbalJoint}
SIM_TIME = 2.0                       # s of the demo's simulation


def vec3(v):
    """A 3-vector as OpenSim's Vec3."""
    return osim.Vec3(*map(float, v))


def frame(X):
    """A kinetree Transform as OpenSim's (location, body-fixed XYZ orientation)."""
    return vec3(X.p), vec3(X.R.convert_rotation_to_body_fixed_xyz())


# ------------------------------------------------------------------ the OpenSim mirror
def gravity(system):
    """The gravity vector of the System's UniformGravity."""
    for i in range(system.get_num_subsystems()):
        forces = system.get_subsystem(i)
        if isinstance(forces, kt.GeneralForceSubsystem):
            for j in range(forces.get_num_forces()):
                force = forces.get_force(j)
                if isinstance(force, kt.Force.UniformGravity):
                    return force.get_default_gravity()
    raise LookupError("the system has no UniformGravity")


def mirror(system):
    """(OpenSim model, its bodies by MobilizedBodyIndex): kinetree's tree of Pin, Ball,
    Universal and Gimbal mobilizers as OpenSim joints ``j{index}``, the same frames, mass
    properties and gravity; no constraints."""
    matter = system.get_matter_subsystem()
    model = osim.Model()
    model.setGravity(vec3(gravity(system)))
    bodies = [model.getGround()]
    for b in range(1, matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        props = mobod.get_body_mass_properties()
        central = props.calc_central_inertia()
        body = osim.Body(f"b{b}", props.get_mass(), vec3(props.get_mass_center()),
                         osim.Inertia(*central.get_moments(), *central.get_products()))
        parent = bodies[mobod.get_parent_mobilized_body().get_mobilized_body_index()]
        joint = JOINTS[type(mobod).__name__](
            f"j{b}", parent, *frame(mobod.get_default_inboard_frame()), body,
            *frame(mobod.get_default_outboard_frame()))
        model.addBody(body)
        model.addJoint(joint)
        bodies.append(body)
    return model, bodies


def joint_values(system, state):
    """[(OpenSim coordinates of joint j{b}, their q, their u)] for every mobilized body b of
    kinetree's State; a quaternion Ball's q as body-fixed XYZ angles (OpenSim's)."""
    matter = system.get_matter_subsystem()
    out = []
    for b in range(1, matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        q = mobod.get_q(state)
        if q.size == 4:
            q = mobod.get_mobilizer_transform(state).R.convert_rotation_to_body_fixed_xyz()
        out.append((b, q, mobod.get_u(state)))
    return out


def coordinates(model, b):
    """The OpenSim coordinates of joint j{b} (mobilized body b), in Simbody's order."""
    joint = model.getJointSet().get(f"j{b}")
    return [joint.get_coordinates(i) for i in range(joint.numCoordinates())]


def opensim_state(model, system, state):
    """OpenSim's State at kinetree's q and u: the defaults set first, so that ``initSystem``
    has nothing to assemble, then each coordinate set without assembly."""
    values = joint_values(system, state)
    model.finalizeFromProperties()
    for b, q, u in values:
        for c, qi, ui in zip(coordinates(model, b), q, u, strict=True):
            c.setDefaultValue(float(qi))
            c.setDefaultSpeedValue(float(ui))
    o_state = model.initSystem()
    for b, q, u in values:
        for c, qi, ui in zip(coordinates(model, b), q, u, strict=True):
            c.setValue(o_state, float(qi), False)
            c.setSpeedValue(o_state, float(ui))
    return o_state


def opensim_u_dot(model, system, o_state):
    """OpenSim's u̇ in kinetree's order (coordinates of joints j1, j2, ...)."""
    n = system.get_matter_subsystem().get_num_bodies()
    return np.array([c.getAccelerationValue(o_state) for b in range(1, n)
                     for c in coordinates(model, b)])


def largest(vector):
    """max |v_i| of an OpenSim Vector (0 when empty)."""
    return max((abs(vector.get(i)) for i in range(vector.size())), default=0.0)


def measure(system, state, model, rounds=9):
    """(kinetree s/call, OpenSim s/call, max relative |Δu̇|, rank of G) of setting q and u
    and realizing ACCELERATION, from kinetree's ``state`` copied into OpenSim."""
    o_state = opensim_state(model, system, state)
    q, u = np.array(state.get_q()), np.array(state.get_u())
    o_q, o_u = osim.Vector(o_state.getQ()), osim.Vector(o_state.getU())

    def kinetree_step():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, ACC)

    def opensim_step():
        o_state.setQ(o_q)
        o_state.setU(o_u)
        model.realizeAcceleration(o_state)

    kinetree_step()
    opensim_step()
    violation = max(largest(o_state.getQErr()), largest(o_state.getUErr()))
    assert violation < 1e-9, f"OpenSim sees its constraints violated by {violation:.1e}"
    udot_o = opensim_u_dot(model, system, o_state)
    err = np.abs(state.get_u_dot() - udot_o).max() / max(1.0, np.abs(udot_o).max())
    g = system.get_matter_subsystem().calc_g(state)
    rank = np.linalg.matrix_rank(g, 1e-10 * np.abs(g).max()) if g.size else 0
    return (*interleaved_best([kinetree_step, opensim_step], rounds), err, rank)


# -------------------------------------------------------------------------- builders
def new_system():
    """(system, matter): an empty MultibodySystem under gravity -G y."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    return system, matter


def random_link(rng):
    """A rigid body of random mass, mass centre and central moments."""
    mass, com = rng.uniform(0.5, 2.0), rng.uniform(-0.05, 0.05, 3)
    moments = rng.uniform(0.02, 0.04, 3)
    return kt.Body.Rigid(kt.MassProperties(
        mass, com, kt.Inertia(*moments).shift_from_mass_center(com, mass)))


def random_rotation(rng):
    """A uniformly random rotation, drawn through one integer seed of ``rng``."""
    return kt.Rotation.from_body_fixed_xyz(
        SciRot.random(random_state=rng.integers(1 << 31)).as_euler("XYZ"))


def pin_chain(parent, n, origin, rng):
    """n links on randomly oriented pins hanging from ``parent``, each about 0.3 m below
    the one before, the first below ``origin``; returns the mobilized bodies."""
    links = []
    for i in range(n):
        R = random_rotation(rng)
        offset = rng.uniform(-0.05, 0.05, 3) + [0, -0.3, 0] + (origin if i == 0 else 0)
        parent = kt.MobilizedBody.Pin(parent, kt.Transform(R, offset), random_link(rng),
                                      kt.Transform())
        links.append(parent)
    return links


def moving_state(system, q, rng):
    """A State at q with random u projected onto the velocity constraints."""
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(rng.uniform(-1, 1, state.get_num_u()))
    system.project(state, 1e-12)
    return state


def posed(system, q):
    """A State of the (constraint-free so far) system at q, realized to POSITION."""
    state = system.realize_topology()
    state.set_q(q)
    system.realize(state, kt.Stage.POSITION)
    return state


def build(n, k, seed=0):
    """(system, state, model) for the sweep: an n-link chain, k Ball constraints tying
    links spread along it to the Ground points where they sit."""
    rng = np.random.default_rng(seed)
    system, matter = new_system()
    pin_chain(matter.Ground(), n, np.zeros(3), rng)
    state = posed(system, rng.uniform(-0.5, 0.5, n))
    model, bodies = mirror(system)
    for j in range(k):
        b = n * (j + 1) // (k + 1) + 1
        p = matter.get_mobilized_body(b).get_body_origin_location(state)
        kt.Constraint.Ball(matter.Ground(), p, matter.get_mobilized_body(b), np.zeros(3))
        point = osim.PointConstraint(model.getGround(), vec3(p), bodies[b], osim.Vec3(0))
        point.setName(f"ball{j}")
        model.addConstraint(point)
    state = moving_state(system, state.get_q(), np.random.default_rng(seed + 1))
    return system, state, model


def demo_linkage():
    """(system, state, model, rod): ``kinetree.demo``'s five-link pendulum and its Rod,
    the Rod in OpenSim a ConstantDistanceConstraint."""
    system, _, rod, state = build_linkage()
    model, bodies = mirror(system)
    model.addConstraint(osim.ConstantDistanceConstraint(
        bodies[rod.get_body1_mobilized_body_index()], vec3(rod.get_default_point_on_body1()),
        bodies[rod.get_body2_mobilized_body_index()], vec3(rod.get_default_point_on_body2()),
        rod.get_default_rod_length()))
    return system, state, model, rod


def four_bar(seed=0):
    """(system, state, model): three links on pins about parallel z axes from Ground, a
    station of the third held at its Ground point by a Ball (3 equations, the one along z
    redundant)."""
    rng = np.random.default_rng(seed)
    system, matter = new_system()
    link, offset = matter.Ground(), np.zeros(3)
    for _ in range(3):
        X_PF = kt.Transform(kt.Rotation(), offset)
        link = kt.MobilizedBody.Pin(link, X_PF, random_link(rng), kt.Transform())
        offset = [*rng.uniform(-0.1, 0.1, 2), 0] + np.array([0, -0.4, 0])
    tip = offset + [0, 0, rng.uniform(-0.1, 0.1)]
    state = posed(system, rng.uniform(-1, 1, 3))
    p = link.find_station_location_in_ground(state, tip)
    model, bodies = mirror(system)
    kt.Constraint.Ball(matter.Ground(), p, link, tip)
    model.addConstraint(osim.PointConstraint(model.getGround(), vec3(p), bodies[3],
                                             vec3(tip)))
    return system, moving_state(system, state.get_q(), rng), model


def ladder(n, rungs, weld, seed=0):
    """(system, state, model): two n-link pin chains hanging side by side from Ground, link
    i of one joined to link i of the other (i in ``rungs``, counted from 1 at the top) by
    a Ball at the midpoint of their origins or (``weld``) a Weld of frames there, aligned
    with Ground."""
    rng = np.random.default_rng(seed)
    system, matter = new_system()
    chains = [pin_chain(matter.Ground(), n, np.array([x, 0, 0]), rng)
              for x in (-0.15, 0.15)]
    state = posed(system, rng.uniform(-0.5, 0.5, 2 * n))
    model, bodies = mirror(system)
    for i in rungs:
        a, b = chains[0][i - 1], chains[1][i - 1]
        X_A, X_B = a.get_body_transform(state), b.get_body_transform(state)
        X_GR = kt.Transform((X_A.p + X_B.p) / 2)
        X_AR, X_BR = X_A.invert() @ X_GR, X_B.invert() @ X_GR
        o_a = bodies[a.get_mobilized_body_index()]
        o_b = bodies[b.get_mobilized_body_index()]
        if weld:
            kt.Constraint.Weld(a, X_AR, b, X_BR)
            model.addConstraint(osim.WeldConstraint(f"weld{i}", o_a, *frame(X_AR), o_b,
                                                    *frame(X_BR)))
        else:
            kt.Constraint.Ball(a, X_AR.p, b, X_BR.p)
            point = osim.PointConstraint(o_a, vec3(X_AR.p), o_b, vec3(X_BR.p))
            point.setName(f"ball{i}")
            model.addConstraint(point)
    return system, moving_state(system, state.get_q(), rng), model


# ----------------------------------------------------------------------------- output
def sweep(rounds):
    print("Constrained forward dynamics: n-link pin chain, k Ball constraints (m = 3k)")
    print(f"{'n':>5} {'m':>4} {'kinetree µs':>12} {'OpenSim µs':>11} {'ratio':>7} "
          f"{'max |Δu̇|':>10}")
    for n, k in ((50, 0), (50, 1), (50, 2), (50, 4), (50, 8),
                 (25, 4), (100, 4), (200, 4), (400, 4)):
        t_kt, t_os, err, _ = measure(*build(n, k), rounds)
        print(f"{n:>5} {3 * k:>4} {t_kt * 1e6:>12.1f} {t_os * 1e6:>11.1f} "
              f"{t_kt / t_os:>7.2f} {err:>10.1e}")


def table(rounds):
    """The named models' rows; returns {key: (kinetree s, OpenSim s, m)} of the ladders."""
    cases = [
        ("the demo's five-link pendulum + Rod (1 eq)", None, lambda: demo_linkage()[:3]),
        ("planar four-bar closed by a Ball (3 eq, redundant)", None, four_bar),
        ("two 16-pin chains joined by 8 Ball rungs (24 eq)", "ball 8",
         lambda: ladder(16, range(2, 17, 2), weld=False)),
        ("  the same, 4 Ball rungs (12 eq)", "ball 4",
         lambda: ladder(16, range(4, 17, 4), weld=False)),
        ("two 32-link chains, 16 Weld rungs (96 eq)", "weld 16",
         lambda: ladder(32, range(17, 33), weld=True)),
        ("  the same, 8 Weld rungs (48 eq)", "weld 8",
         lambda: ladder(32, range(25, 33), weld=True)),
    ]
    print("\nConstrained models, kinetree vs Simbody (OpenSim) on the same model: set q "
          "and u, realize ACCELERATION")
    print(f"{'case':<52} {'nu':>3} {'m':>3} {'rank':>4} {'kinetree µs':>12} "
          f"{'OpenSim µs':>11} {'ratio':>6} {'max |Δu̇|':>9}")
    ladders = {}
    for title, key, builder in cases:
        system, state, model = builder()
        t_kt, t_os, err, rank = measure(system, state, model, rounds)
        m = len(state.get_multipliers())
        print(f"{title:<52} {state.get_num_u():>3} {m:>3} {rank:>4} {t_kt * 1e6:>12.1f} "
              f"{t_os * 1e6:>11.1f} {t_kt / t_os:>6.2f} {err:>9.1e}", flush=True)
        if key:
            ladders[key] = (t_kt, t_os, m)
    for name, more, fewer in (("Ball", "ball 8", "ball 4"), ("Weld", "weld 16", "weld 8")):
        (kt1, os1, m1), (kt0, os0, m0) = ladders[more], ladders[fewer]
        print(f"cost of one more equation, {name} ladder (m {m0} -> {m1}): kinetree "
              f"{(kt1 - kt0) / (m1 - m0) * 1e6:.2f} µs, OpenSim "
              f"{(os1 - os0) / (m1 - m0) * 1e6:.2f} µs")


def simulate_kinetree(system, state, rod):
    """(CPU s, final State, stats) of ``kinetree.demo.run``'s simulate over SIM_TIME."""
    c0 = time.process_time()
    traj = kt.simulate(system, state, SIM_TIME, accuracy=ACCURACY,
                       report_interval=REPORT_INTERVAL, progress=False,
                       outputs={"rod_error": rod.get_position_error})
    return time.process_time() - c0, traj.states()[-1], traj.stats


def simulate_opensim(model, o_state, stats):
    """(CPU s, final State, (steps, realizations)) of OpenSim's Manager over SIM_TIME."""
    c0 = time.process_time()
    manager = osim.Manager(model)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(ACCURACY)
    manager.setWriteToStorage(False)
    manager.setRecordStatesTrajectory(False)
    manager.setPerformAnalyses(False)
    manager.initialize(o_state)
    final = manager.integrate(SIM_TIME)
    cpu = time.process_time() - c0
    return cpu, osim.State(final), stats(manager)     # a copy: the Manager owns ``final``


def simulation(repeat):
    """The demo's simulation in both, once untimed, then ``repeat`` times alternately, the
    least CPU of each kept; the tips at the end compared."""
    system, state, model, rod = demo_linkage()
    o_state = opensim_state(model, system, state)
    stats = SimbodyIntegratorStats()
    osim.Logger.setLevelString("warn")            # the Manager logs every integrate()
    simulate_kinetree(system, state, rod)
    simulate_opensim(model, osim.State(o_state), stats)
    runs_kt, runs_os = [], []
    for _ in range(repeat):
        runs_kt.append(simulate_kinetree(system, state, rod))
        runs_os.append(simulate_opensim(model, osim.State(o_state), stats))
    cpu_kt, final_kt, s = min(runs_kt, key=lambda run: run[0])
    cpu_os, final_os, (steps_os, realizations_os) = min(runs_os, key=lambda run: run[0])

    tip_body = rod.get_body2_mobilized_body_index()
    tip_station = rod.get_default_point_on_body2()
    system.realize(final_kt, kt.Stage.POSITION)
    tip_kt = system.get_matter_subsystem().get_mobilized_body(tip_body) \
        .find_station_location_in_ground(final_kt, tip_station)
    model.realizePosition(final_os)
    tip_os = model.getBodySet().get(f"b{tip_body}").findStationLocationInGround(
        final_os, vec3(tip_station))
    dp = np.abs(tip_kt - [tip_os.get(i) for i in range(3)]).max()
    print(f"\nthe demo's {SIM_TIME:g} s simulation, Runge-Kutta-Merson at accuracy "
          f"{ACCURACY:g}, CPU best of {repeat}:")
    print(f"  kinetree {cpu_kt:.3f} s ({s['steps_taken']} steps, {s['realizations']} "
          f"realizations, {cpu_kt / s['realizations'] * 1e6:.0f} µs each)")
    print(f"  OpenSim  {cpu_os:.3f} s ({steps_os} steps, {realizations_os} realizations, "
          f"{cpu_os / realizations_os * 1e6:.0f} µs each)")
    print(f"  ratio {cpu_kt / cpu_os:.2f}; tip |Δp| at {SIM_TIME:g} s {dp:.1e} m "
          f"(integration error: it shrinks with the accuracy)")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--table", action="store_true",
                        help="skip the n/m sweep: the named models and the simulation only")
    parser.add_argument("--rounds", type=int, default=9,
                        help="interleaved batches per call; the best is kept")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs of each simulation; the least CPU is kept")
    args = parser.parse_args(argv)
    if not args.table:
        sweep(args.rounds)
    table(args.rounds)
    simulation(args.repeat)


if __name__ == "__main__":
    main()
