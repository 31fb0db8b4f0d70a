"""The cost of one realization with force elements and contact, and of the steps and
simulations built on it, each beside an anchor run in the same process.

Rows (``--rows 1,2,4`` picks some; all by default):

1. The Fig. 3 tree (``fig3_model``: 221 bodies, gravity) with a ``MobilityLinearDamper``
   (c = 0.1) on every mobility and one ``TwoPointLinearSpring`` between the tips of two
   chains. Timed: kinetree's ``realize(ACCELERATION)`` from a freshly set q and u, against
   Pinocchio's ``aba(q, v, tau, fext)`` with tau = -c v and the spring as two external
   forces ``fext`` in the joints' frames, both computed beforehand for this q and v (the
   ratio's anchor: Pinocchio's compiled work alone). Also shown, not in the ratio: ``aba``
   given the whole generalized force as tau, and Pinocchio's whole job done from Python
   (``forwardKinematics`` for the stations, the spring into ``fext``, ``aba``), whose
   Python glue costs ~20 µs.
2. A 10-body pin chain with one ``TwoPointLinearSpring``, timed as row 1 (no dampers).
3. 20 s of the Fig. 3 tree with the dampers (no spring), Runge-Kutta-Merson at accuracy
   1e-3 and 1e-6: kinetree (``bench/fig3.py``'s run: integrator + ``TimeStepper``) against
   Simbody through OpenSim's ``Manager``, the model built as ``bench/fig3.py`` builds it,
   each damper a ``SpringGeneralizedForce`` of stiffness 0 and viscosity c (OpenSim has no
   mobility damper of its own; this is one: f = -c q̇). CPU seconds, the best of
   ``--repeat`` (2) runs each, and CPU per realization. ``--quick`` runs 2 s instead of 20.
4. One sphere on a half space under ``HuntCrossleyForce`` (``GeneralContactSubsystem``),
   penetrating 3 mm and sliding and spinning: kinetree's ``set_q`` + ``realize(
   ACCELERATION)`` against OpenSim's ``HuntCrossleyForce`` (a ``ContactSphere``, a
   ``ContactHalfSpace``) on a ``FreeJoint``: ``state.setQ`` + ``model.realizeAcceleration``.
5. 10 spheres resting on a half space (``bench/contact.py``'s "ground" scene, 0.1 mm
   deep): kinetree's ``CompliantContactSubsystem`` (``set_q`` + ``realize(ACCELERATION)``)
   against MuJoCo's ``mj_forward`` on ``bench/contact.py``'s MuJoCo scene.
6. One fixed step (h = 1 ms) of a 10-body pin chain: kinetree's fixed-step
   Runge-Kutta-Merson (kinetree has no classic RK4, as Simbody has none; Merson is its
   fourth-order explicit method, five realizations per step where RK4 has four), a
   ``step_to(t + h)`` of an integrator given ``set_fixed_step_size(h)``, against MuJoCo's
   ``mj_step`` with ``integrator="RK4"`` on the same chain. kinetree's integrator keeps
   its default of projecting every step; the time without is printed too.
7. ``bench/contact.py``'s pile (100 spheres into a box): CPU seconds for one simulated
   second, kinetree's ``simulate`` with the fixed-step symplectic Euler
   (``SemiExplicitEuler``, h = 0.1 ms, a tenth of the largest step with which this pile
   stays stable, 1 ms; the family of MuJoCo's default semi-implicit Euler) against
   MuJoCo's ``mj_step`` at its default 2 ms (``bench/contact.py``'s ``pile_kinetree`` and
   ``pile_mujoco``). Row 7m, without a target: the same pile under error control
   (Runge-Kutta-Merson at accuracy 1e-3). A run at h = 0.05 ms shows how far the fixed
   step is from converged.

Before timing, each row checks that the two agree and prints by how much: u̇ (relative to
max(1, |u̇|)) for the single realizations; for the simulations the states after a short
run (row 3 q at 0.5 s, row 6 q and u after 200 steps), the initial u̇, or what the two
physics can share (rows 5 and 7: MuJoCo's contacts are soft constraints, not Hertz
forces; row 5 counts the contacts and compares u̇ of the same spheres apart, row 7 shows
both piles' contacts and highest centre at the end). The realizations
are timed with ``timing.interleaved_best`` (the calls of a row in turn, the best batch
kept), the simulations in CPU seconds (``time.process_time``), the two libraries
alternating. A table of kinetree's time, the anchor's and the ratio against each target
ends the run.

Run: ``.venv/bin/python bench/realization.py`` (the ``bench`` and ``validation`` extras;
about three minutes on a 2-core machine once numba's cache holds the kernels, most of it
rows 3 and 7; a first run compiles them, a minute or two more); ``--quick`` shortens rows
3 and 7 and times fewer rounds; ``--rows 3`` reruns one row; ``--repeat 1`` runs each
simulation once.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from fig3_model import (
    build_kinetree,
    build_opensim,
    chain_tree,
    fig3_tree,
    opensim_coordinates,
    pin_chain,
    random_model,
    set_opensim_state,
)
from scipy.spatial.transform import Rotation as SciRot
from timing import interleaved_best

import kinetree as kt

DAMPING = 0.1                       # N m s/rad (N s/m on the slider)
ACC = kt.Stage.ACCELERATION


def relative_error(a, b):
    """max |a - b| relative to max(1, |b|)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return float(np.abs(a - b).max() / max(1.0, np.abs(b).max()))


def force_subsystem(system):
    """The system's GeneralForceSubsystem, found through the public subsystem list."""
    for i in range(system.get_num_subsystems()):
        sub = system.get_subsystem(i)
        if isinstance(sub, kt.GeneralForceSubsystem):
            return sub
    raise LookupError("the system has no GeneralForceSubsystem")


def add_force_elements(system, damping, spring):
    """A MobilityLinearDamper on every mobilized body's one mobility (when ``damping``)
    and the TwoPointLinearSpring ``spring`` = (body1, station1, body2, station2, k, x0)
    (when given); bodies by MobilizedBodyIndex. Returns the elements."""
    matter = system.get_matter_subsystem()
    forces = force_subsystem(system)
    elements = []
    if damping:
        for i in range(1, matter.get_num_bodies()):
            elements.append(kt.Force.MobilityLinearDamper(
                forces, matter.get_mobilized_body(i), 0, damping))
    if spring is not None:
        b1, s1, b2, s2, k, x0 = spring
        elements.append(kt.Force.TwoPointLinearSpring(
            forces, matter.get_mobilized_body(b1), s1, matter.get_mobilized_body(b2), s2, k,
            x0))
    return elements


class Row:
    """One line of the final table."""

    def __init__(self, key, case, anchor, unit, t_kt, t_anchor, target, agreement):
        self.key, self.case, self.anchor, self.unit = key, case, anchor, unit
        self.t_kt, self.t_anchor, self.target, self.agreement = (t_kt, t_anchor, target,
                                                                  agreement)

    @property
    def ratio(self):
        return self.t_kt / self.t_anchor


def scaled(t, unit):
    return t * 1e6 if unit == "µs" else t


# ------------------------------------------------------------- rows 1-2: Pinocchio
def spring_tree(parents, kinds, damping, spring, seed=0):
    """(calls, max relative |Δu̇|, agreement line): the tree of ``parents`` from
    ``random_model(seed)`` with the force elements, in both. The calls: kinetree's
    realization; Pinocchio's ``aba`` given tau = -c v and the spring as ``fext`` (computed
    beforehand for this q); ``aba`` given the whole generalized force as tau; and
    Pinocchio's whole job in Python (kinematics, the spring into ``fext``, ``aba``)."""
    import pinocchio as pin
    from forward_dynamics import build

    frames, bodies, q, u = random_model(parents, seed)
    system, model = build(parents, kinds, frames, bodies)     # joint id = body index
    add_force_elements(system, damping, spring)
    state = system.realize_topology()

    def kinetree_call():
        state.set_q(q)
        state.set_u(u)
        system.realize(state, ACC)

    kinetree_call()
    udot = np.array(state.get_u_dot())

    b1, s1, b2, s2, k, x0 = spring
    s1, s2 = np.asarray(s1, dtype=float), np.asarray(s2, dtype=float)
    data = model.createData()
    fext = pin.StdVec_Force()
    for _ in range(model.njoints):
        fext.append(pin.Force.Zero())
    to_joint1 = pin.SE3(np.eye(3), s1)        # a force at the station, moved to the joint
    to_joint2 = pin.SE3(np.eye(3), s2)
    zero3 = np.zeros(3)

    def whole_job():
        pin.forwardKinematics(model, data, q)
        X1, X2 = data.oMi[b1], data.oMi[b2]
        d = X2.act(s2) - X1.act(s1)
        length = math.sqrt(d @ d)
        f = (k * (length - x0) / length) * d            # on station 1, toward station 2
        fext[b1] = to_joint1.act(pin.Force(X1.rotation.T @ f, zero3))
        fext[b2] = to_joint2.act(pin.Force(-(X2.rotation.T @ f), zero3))
        return pin.aba(model, data, q, u, -damping * u, fext)

    a_pin = np.array(whole_job())                        # fext now holds the spring
    tau_damping = -damping * u
    a_fext = np.array(pin.aba(model, data, q, u, tau_damping, fext))
    # the same generalized force from the inverse dynamics: tau = rnea - J^T fext
    zero = np.zeros(model.nv)
    tau = tau_damping + pin.rnea(model, data, q, zero, zero) \
        - pin.rnea(model, data, q, zero, zero, fext)
    a_tau = np.array(pin.aba(model, data, q, u, tau))
    a_no_forces = np.array(pin.aba(model, data, q, u, np.zeros(model.nv)))
    effect = relative_error(a_pin, a_no_forces)
    assert effect > 1e-3, "the force elements hardly change u̇: the check would be blind"
    err = max(relative_error(udot, a) for a in (a_pin, a_fext, a_tau))
    line = (f"|Δu̇| kinetree vs aba with fext {relative_error(udot, a_fext):.1e}, vs aba "
            f"with the force as tau {relative_error(udot, a_tau):.1e} (the force elements "
            f"change u̇ by {effect:.2f})")
    calls = [kinetree_call, lambda: pin.aba(model, data, q, u, tau_damping, fext),
             lambda: pin.aba(model, data, q, u, tau), whole_job]
    return calls, err, line


def pinocchio_row(key, title, parents, kinds, damping, spring, target, args):
    print(f"\n[{key}] {title}")
    calls, err, line = spring_tree(parents, kinds, damping, spring)
    print("    " + line)
    t_kt, t_fext, t_tau, t_job = interleaved_best(calls, args.rounds)
    print(f"    kinetree {t_kt * 1e6:.1f} µs; Pinocchio aba with fext {t_fext * 1e6:.1f} µs, "
          f"with tau only {t_tau * 1e6:.1f} µs, the whole job in Python (kinematics, spring, "
          f"aba) {t_job * 1e6:.1f} µs (ratio {t_kt / t_job:.2f} against it)")
    return [Row(key, title, "Pinocchio aba+fext", "µs", t_kt, t_fext, target,
                f"u̇ {err:.0e}")]


def row1(args):
    parents, kinds = fig3_tree()
    # between the tips of the first two chains (bodies 21 and 41), stretched
    spring = (21, [0.05, -0.1, 0.02], 41, [-0.03, -0.2, 0.04], 100.0, 0.1)
    return pinocchio_row("1", "Fig. 3 + dampers + spring, realize", parents, kinds,
                         DAMPING, spring, 1.2, args)


def row2(args):
    parents, kinds = chain_tree(10)
    spring = (3, [0.05, -0.1, 0.02], 10, [-0.03, -0.2, 0.04], 100.0, 0.1)
    return pinocchio_row("2", "10-pin chain + spring, realize", parents, kinds, 0.0,
                         spring, 2.0, args)


# --------------------------------------------------------- row 3: OpenSim Manager
def add_opensim_dampers(model, n, damping):
    """A SpringGeneralizedForce (stiffness 0, viscosity c) on each joint's coordinate:
    Simbody's MobilityLinearDamper, f = -c q̇ (q̇ = u for pins and sliders)."""
    import opensim as osim
    joints = model.getJointSet()
    for i in range(n):
        name = joints.get(f"j{i + 1}").get_coordinates(0).getName()
        damper = osim.SpringGeneralizedForce(name)
        damper.setName(f"damper{i + 1}")
        damper.setStiffness(0.0)
        damper.setRestLength(0.0)
        damper.setViscosity(damping)
        model.addForce(damper)


def row3(args):
    import opensim as osim
    from fig3 import SimbodyIntegratorStats, run_kinetree, run_opensim

    t_final = 2.0 if args.quick else 20.0
    agree_time = 0.5
    print(f"\n[3] Fig. 3 + dampers, {t_final:g} s, Runge-Kutta-Merson, CPU best of "
          f"{args.repeat}")
    parents, kinds = fig3_tree()
    n = len(parents)
    frames, bodies, q, u = random_model(parents)
    system = build_kinetree(parents, kinds, frames, bodies)
    dampers = add_force_elements(system, DAMPING, None)
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(u)
    run_kinetree(system, state, 1e-2, 0.05)          # compile and warm the kernels
    model = build_opensim(parents, kinds, frames, bodies)
    add_opensim_dampers(model, n, DAMPING)
    o_state = model.initSystem()
    set_opensim_state(model, o_state, q, u)
    stats = SimbodyIntegratorStats()

    work = state.copy()
    system.realize(work, ACC)
    model.realizeAcceleration(o_state)
    udot_os = [c.getAccelerationValue(o_state) for c in opensim_coordinates(model, n)]
    err = relative_error(work.get_u_dot(), udot_os)
    undamped = state.copy()
    for damper in dampers:
        damper.disable(undamped)
    system.realize(undamped, ACC)
    effect = relative_error(undamped.get_u_dot(), udot_os)
    assert effect > 1e-3, "the dampers hardly change u̇: the check would be blind"
    print(f"    |Δu̇| at t = 0: {err:.1e} (the dampers change u̇ by {effect:.2f})")

    osim.Logger.setLevelString("warn")               # the Manager logs every integrate()
    rows = []
    for alpha in (1e-3, 1e-6):
        dq_short = np.abs(run_kinetree(system, state, alpha, agree_time)[-1]
                          - run_opensim(model, o_state, alpha, agree_time, stats, n)[-1])
        runs_kt, runs_os = [], []
        for _ in range(args.repeat):
            runs_kt.append(run_kinetree(system, state, alpha, t_final))
            runs_os.append(run_opensim(model, o_state, alpha, t_final, stats, n))
        cpu_kt = min(r[0] for r in runs_kt)
        cpu_os = min(r[0] for r in runs_os)
        _, steps_kt, real_kt, _, q_kt = runs_kt[0]
        _, steps_os, real_os, q_os = runs_os[0]
        dq_end = float(np.abs(q_kt - q_os).max())
        print(f"    α {alpha:.0e}: kinetree {cpu_kt:.3f} s ({steps_kt} steps, {real_kt} "
              f"realizations, {cpu_kt / real_kt * 1e6:.0f} µs each), OpenSim "
              f"{cpu_os:.3f} s ({steps_os} steps, {real_os} realizations, "
              f"{cpu_os / real_os * 1e6:.0f} µs each); ratio {cpu_kt / cpu_os:.3f}; "
              f"|Δq| at {agree_time:g} s {dq_short.max():.1e}, at {t_final:g} s "
              f"{dq_end:.1e}", flush=True)
        rows.append(Row(f"3 {alpha:.0e}", f"Fig. 3 + dampers, {t_final:g} s, α {alpha:.0e}",
                        "OpenSim Manager", "s", cpu_kt, cpu_os, 0.15,
                        f"q(0.5 s) {dq_short.max():.0e}"))
    return rows


# ------------------------------------------------------- row 4: Hunt-Crossley sphere
# a ball with an off-centre mass centre and a full inertia, its sphere off the origin
BALL_RADIUS, BALL_MASS = 0.08, 1.5
BALL_COM = np.array([0.002, 0.004, -0.001])
BALL_INERTIA = (0.004, 0.0042, 0.0045, 0.0001, 0.0002, -0.0001)   # about the COM
BALL_SHAPE_AT = np.array([-0.002, 0.001, 0.003])
# stiffness (Pa), dissipation (s/m), static, dynamic, viscous friction (s/m); both shapes
HUNT_CROSSLEY = (3e6, 0.6, 0.7, 0.45, 0.05)
HC_TRANSITION_VELOCITY = 0.05
FLOOR_XYZ = np.array([0.0, 0.0, -np.pi / 2])    # Simbody's half space x > 0 -> y < 0


def hunt_crossley_kinetree():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    contacts = kt.GeneralContactSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    inertia = kt.Inertia(*BALL_INERTIA).shift_from_mass_center(BALL_COM, BALL_MASS)
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(BALL_MASS, BALL_COM, inertia)))
    contact_set = contacts.create_contact_set()
    ball_index = contacts.add_body(contact_set, ball, kt.ContactGeometry.Sphere(BALL_RADIUS),
                                   kt.Transform(kt.Rotation(), BALL_SHAPE_AT))
    floor_index = contacts.add_body(
        contact_set, matter.Ground(), kt.ContactGeometry.HalfSpace(),
        kt.Transform(kt.Rotation.from_body_fixed_xyz(FLOOR_XYZ), [0, 0, 0]))
    force = kt.HuntCrossleyForce(forces, contacts, contact_set)
    for index in (ball_index, floor_index):
        force.set_body_parameters(index, *HUNT_CROSSLEY)
    force.set_transition_velocity(HC_TRANSITION_VELOCITY)
    return system, ball


def hunt_crossley_opensim():
    """The ball on a FreeJoint; one ContactParameters holds both shapes, so both get
    HUNT_CROSSLEY, as the kinetree model gives them."""
    import opensim as osim
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -9.81, 0))
    body = osim.Body("ball", BALL_MASS, osim.Vec3(*BALL_COM), osim.Inertia(*BALL_INERTIA))
    model.addBody(body)
    model.addJoint(osim.FreeJoint("free", model.getGround(), body))
    model.addContactGeometry(osim.ContactSphere(BALL_RADIUS, osim.Vec3(*BALL_SHAPE_AT), body,
                                                "sphere"))
    model.addContactGeometry(osim.ContactHalfSpace(osim.Vec3(0), osim.Vec3(*FLOOR_XYZ),
                                                   model.getGround(), "floor"))
    force = osim.HuntCrossleyForce()
    force.setName("contact")
    stiffness, dissipation, static, dynamic, viscous = HUNT_CROSSLEY
    force.setStiffness(stiffness)
    force.setDissipation(dissipation)
    force.setStaticFriction(static)
    force.setDynamicFriction(dynamic)
    force.setViscousFriction(viscous)
    force.setTransitionVelocity(HC_TRANSITION_VELOCITY)
    force.addGeometry("sphere")
    force.addGeometry("floor")
    model.addForce(force)
    return model


def row4(args):
    print("\n[4] one sphere on a half space, HuntCrossleyForce, realize")
    system, ball = hunt_crossley_kinetree()
    state = system.realize_topology()
    model = hunt_crossley_opensim()
    o_state = model.initSystem()

    R = kt.Rotation.from_body_fixed_xyz([0.3, -0.4, 0.5])
    depth = 0.003
    p = np.array([0.02, BALL_RADIUS - depth - (R.as_matrix() @ BALL_SHAPE_AT)[1], -0.01])
    w, v = np.array([1.5, -2.0, 4.0]), np.array([0.4, -0.05, -0.3])
    ball.set_q_to_fit_transform(state, kt.Transform(R, p))
    system.realize(state, kt.Stage.POSITION)
    ball.set_u_to_fit_velocity(state, np.r_[w, v])
    q = np.array(state.get_q())

    # OpenSim's FreeJoint: body-fixed XYZ angles then the translation; u = [w; v] in
    # Ground in either q mode, as kinetree's Free
    joint = model.getJointSet().get("free")
    angles = R.convert_rotation_to_body_fixed_xyz()
    for i in range(3):
        joint.get_coordinates(i).setValue(o_state, float(angles[i]), False)
        joint.get_coordinates(i + 3).setValue(o_state, float(p[i]), False)
        joint.get_coordinates(i).setSpeedValue(o_state, float(w[i]))
        joint.get_coordinates(i + 3).setSpeedValue(o_state, float(v[i]))
    o_q = type(o_state.getQ())(o_state.getQ())

    def kinetree_call():
        state.set_q(q)
        system.realize(state, ACC)

    def opensim_call():
        o_state.setQ(o_q)
        model.realizeAcceleration(o_state)

    kinetree_call()
    opensim_call()
    udot_os = o_state.getUDot()
    udot_os = np.array([udot_os.get(i) for i in range(udot_os.size())])
    udot = np.array(state.get_u_dot())
    assert abs(udot[4]) > 1.0, "not in contact"
    err = relative_error(udot, udot_os)
    print(f"    |Δu̇| kinetree vs OpenSim {err:.1e} (u̇ = {np.array2string(udot, precision=3)})")
    t_kt, t_os = interleaved_best([kinetree_call, opensim_call], args.rounds)
    print(f"    kinetree {t_kt * 1e6:.1f} µs, OpenSim {t_os * 1e6:.1f} µs")
    return [Row("4", "1 sphere, HuntCrossleyForce, realize", "OpenSim realizeAcc.", "µs",
                t_kt, t_os, 0.5, f"u̇ {err:.0e}")]


# ------------------------------------------------------------- row 5: MuJoCo contact
CONTACT_MATERIAL = (1e7, 0.5, 0.5, 0.4, 0.01)    # bench/contact.py's defaults
CONTACT_DEPTH = 1e-4


def mujoco_free_to_kinetree(qacc):
    """MuJoCo free-joint accelerations ([v̇ in world; ẇ in the body], z up) as kinetree's
    u̇ ([ẇ; v̇] in Ground, y up) for bodies whose rotation is the identity."""
    a = np.asarray(qacc).reshape(-1, 6)
    out = np.empty_like(a)
    for cols_mj, cols_kt in ((slice(0, 3), slice(3, 6)), (slice(3, 6), slice(0, 3))):
        x, y, z = a[:, cols_mj].T
        out[:, cols_kt] = np.column_stack([x, z, -y])
    return out.ravel()


def row5(args):
    import contact
    import mujoco

    print("\n[5] 10 spheres resting on a half space, realize vs mj_forward")
    n = 10
    friction = CONTACT_MATERIAL[3]
    # the same model apart (no contact): u̇ is gravity's in both
    apart = contact.scene("apart", n, CONTACT_DEPTH)
    _, count_apart, udot_apart = contact.kinetree_case(apart, CONTACT_MATERIAL)
    _, data_apart = contact.build_mujoco(apart, friction)
    err = relative_error(udot_apart, mujoco_free_to_kinetree(data_apart.qacc))
    centres = contact.scene("ground", n, CONTACT_DEPTH)
    kt_call, count, udot = contact.kinetree_case(centres, CONTACT_MATERIAL)
    model, data = contact.build_mujoco(centres, friction)
    print(f"    contacts: kinetree {count}, MuJoCo {data.ncon} (apart: {count_apart}, "
          f"{data_apart.ncon}); |Δu̇| apart {err:.1e}; resting, vertical u̇ kinetree "
          f"{udot.reshape(-1, 6)[0, 4]:.2f}, MuJoCo {data.qacc[2]:.2f} m/s² (soft "
          f"constraints, not Hertz)")
    assert count == data.ncon == n and count_apart == data_apart.ncon == 0
    t_kt, t_mj = interleaved_best([kt_call, lambda: mujoco.mj_forward(model, data)],
                                  args.rounds)
    print(f"    kinetree {t_kt * 1e6:.1f} µs, MuJoCo {t_mj * 1e6:.1f} µs")
    return [Row("5", "10 spheres on ground, realize", "MuJoCo mj_forward", "µs", t_kt, t_mj,
                1.0, f"{count}={data.ncon} contacts")]


# --------------------------------------------------------------- row 6: RK4 step
def mujoco_tree(parents, frames, bodies, timestep, integrator):
    """The pin tree of ``fig3_model`` in MuJoCo: body i + 1 at (p, R) in its parent with a
    hinge about its z axis (Simbody's Pin, X_BM = identity), its inertia about the mass
    centre; gravity -y as kinetree's; no geoms."""
    import mujoco
    children = {}
    for i, parent in enumerate(parents):
        children.setdefault(parent, []).append(i + 1)

    def body_xml(b):
        (R, p), (m, com, I_c) = frames[b - 1], bodies[b - 1]
        x, y, z, w = SciRot.from_matrix(R).as_quat()
        inner = "".join(body_xml(c) for c in children.get(b, ()))
        return (f'<body pos="{p[0]:.17g} {p[1]:.17g} {p[2]:.17g}" '
                f'quat="{w:.17g} {x:.17g} {y:.17g} {z:.17g}"><joint type="hinge" '
                f'axis="0 0 1"/><inertial pos="{com[0]:.17g} {com[1]:.17g} {com[2]:.17g}" '
                f'mass="{m:.17g}" fullinertia="{I_c[0, 0]:.17g} {I_c[1, 1]:.17g} '
                f'{I_c[2, 2]:.17g} {I_c[0, 1]:.17g} {I_c[0, 2]:.17g} {I_c[1, 2]:.17g}"/>'
                f'{inner}</body>')

    xml = (f'<mujoco><option timestep="{timestep!r}" integrator="{integrator}" '
           f'gravity="0 -9.81 0"/><worldbody>{"".join(body_xml(c) for c in children[0])}'
           f'</worldbody></mujoco>')
    model = mujoco.MjModel.from_xml_string(xml)
    return model, mujoco.MjData(model)


def row6(args):
    import mujoco

    h, n_check = 1e-3, 200
    print(f"\n[6] one fixed step (h = {h:g} s) of a 10-pin chain: kinetree's "
          f"Runge-Kutta-Merson vs MuJoCo's RK4")
    system, state, (parents, frames, bodies, q, u) = pin_chain()
    model, data = mujoco_tree(parents, frames, bodies, h, "RK4")

    def start():
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_fixed_step_size(h)
        integ.initialize(state)
        mujoco.mj_resetData(model, data)
        data.qpos[:] = q
        data.qvel[:] = u
        return integ

    integ = start()
    mujoco.mj_forward(model, data)
    err_udot = relative_error(integ.get_state().get_u_dot(), data.qacc)
    for _ in range(n_check):
        integ.step_to(integ.get_time() + h)
        mujoco.mj_step(model, data)
    assert integ.get_num_steps_taken() == n_check
    final = integ.get_state()
    dq = float(np.abs(final.get_q() - data.qpos).max())
    du = float(np.abs(final.get_u() - data.qvel).max())
    per_step = integ.get_num_realizations() / n_check
    print(f"    |Δu̇| at t = 0 {err_udot:.1e}; after {n_check} steps |Δq| {dq:.1e} rad, "
          f"|Δu| {du:.1e} rad/s; kinetree {per_step:.2f} realizations per step")

    integ = start()
    unprojected = kt.RungeKuttaMersonIntegrator(system)
    unprojected.set_fixed_step_size(h)
    unprojected.set_projection_every_step(False)
    unprojected.initialize(state)
    calls = [lambda: integ.step_to(integ.get_time() + h),
             lambda: mujoco.mj_step(model, data),
             lambda: unprojected.step_to(unprojected.get_time() + h)]
    t_kt, t_mj, t_unprojected = interleaved_best(calls, args.rounds)
    print(f"    kinetree {t_kt * 1e6:.1f} µs per step ({t_unprojected * 1e6:.1f} with "
          f"set_projection_every_step(False)), MuJoCo {t_mj * 1e6:.1f} µs")
    return [Row("6", "10-pin chain, one fixed RK step", "MuJoCo mj_step RK4", "µs", t_kt,
                t_mj, 1.5, f"q(0.2 s) {dq:.0e}")]


# ------------------------------------------------------------------- row 7: pile
def row7(args):
    import contact

    t_final = 0.2 if args.quick else 1.0
    step = 1e-4
    print(f"\n[7] pile of 100 spheres, {t_final:g} s simulated: kinetree simulate "
          f"(SemiExplicitEuler, fixed {step:g} s; Merson at α 1e-3) vs MuJoCo mj_step (2 ms)")
    half_width = 0.3
    centres = contact.pile_layout()
    system, state, compliant = contact.build_kinetree(centres, CONTACT_MATERIAL,
                                                    contact.box(half_width))
    kt.simulate(system, state, 0.005, accuracy=1e-3, progress=False)     # warm up
    kt.simulate(system, state, 0.005, integrator="SemiExplicitEuler", fixed_step_size=step,
                progress=False)
    model, data = contact.build_mujoco(centres, CONTACT_MATERIAL[3], half_width)
    runs = {"euler": [], "merson": [], "mj": []}

    def timed(run, *a):
        c0 = time.process_time()
        result = run(*a)
        result["cpu"] = time.process_time() - c0
        return result

    for _ in range(args.repeat):
        runs["euler"].append(timed(contact.pile_kinetree, system, state, compliant, t_final,
                                   1e-3, step))
        runs["merson"].append(timed(contact.pile_kinetree, system, state, compliant,
                                    t_final, 1e-3))
        runs["mj"].append(timed(contact.pile_mujoco, model, data, t_final))
    # The same pile at half the step, for how far the fixed-step run is from converged.
    half = contact.pile_kinetree(system, state, compliant, t_final, 1e-3, step / 2)
    best = {name: min(r, key=lambda r: r["cpu"]) for name, r in runs.items()}
    labels = {"euler": f"kinetree SemiExplicitEuler h {step:g}",
              "merson": "kinetree Merson α 1e-3", "mj": "MuJoCo"}
    for name, run in best.items():
        print(f"    {labels[name]}: {run['cpu']:.3f} s CPU, {run['steps']} steps, "
              f"{run['realizations']} realizations, {run['contacts']} contacts at the end, "
              f"highest centre {run['top']:.3f} m")
    print(f"    kinetree SemiExplicitEuler h {step / 2:g}: {half['contacts']} contacts at "
          f"the end, highest centre {half['top']:.3f} m")
    euler, merson, mj = best["euler"], best["merson"], best["mj"]
    agreement = (f"top {euler['top']:.3f}/{merson['top']:.3f}/{mj['top']:.3f} m, "
                 f"contacts {euler['contacts']}/{merson['contacts']}/{mj['contacts']}")
    return [Row("7", f"100-sphere pile, {t_final:g} s, fixed step", "MuJoCo mj_step", "s",
                euler["cpu"], mj["cpu"], 1.5, agreement),
            Row("7m", f"100-sphere pile, {t_final:g} s, Merson α 1e-3", "MuJoCo mj_step",
                "s", merson["cpu"], mj["cpu"], None, "")]


# ------------------------------------------------------------------------- main
ROWS = {1: row1, 2: row2, 3: row3, 4: row4, 5: row5, 6: row6, 7: row7}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", default=",".join(map(str, ROWS)),
                        help="comma-separated rows to run (default: all)")
    parser.add_argument("--quick", action="store_true",
                        help="row 3 over 2 s, row 7 over 0.2 s, one run of each, 5 "
                        "timing rounds")
    parser.add_argument("--rounds", type=int, default=9,
                        help="interleaved batches per call; the best is kept")
    parser.add_argument("--repeat", type=int, default=2,
                        help="runs per library of the simulations (rows 3, 7); best kept")
    args = parser.parse_args(argv)
    if args.quick:
        args.rounds, args.repeat = min(args.rounds, 5), 1
    keys = [int(k) for k in args.rows.split(",") if k.strip()]
    unknown = set(keys) - set(ROWS)
    if unknown:
        parser.error(f"no such rows: {sorted(unknown)}")
    t0 = time.perf_counter()
    rows = []
    for key in keys:
        rows.extend(ROWS[key](args))

    print(f"\n{'row':<6} {'case':<42} {'kinetree':>10} {'anchor':>10} {'':<20} "
          f"{'ratio':>6} {'target':>7} {'met':>4}  agreement")
    for row in rows:
        width = ".3f" if row.unit == "s" else ".1f"
        met = "—" if row.target is None else "yes" if row.ratio <= row.target else "no"
        target = "—" if row.target is None else "≤ " + format(row.target, "g")
        print(f"{row.key:<6} {row.case:<42} "
              f"{format(scaled(row.t_kt, row.unit), width):>7} {row.unit:<2} "
              f"{format(scaled(row.t_anchor, row.unit), width):>7} {row.unit:<2} "
              f"{row.anchor:<20} {row.ratio:>6.3f} {target:>7} "
              f"{met:>4}  {row.agreement}")
    print(f"\n{time.perf_counter() - t0:.0f} s in all")
    return rows


if __name__ == "__main__":
    main()
