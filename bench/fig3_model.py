"""The model of the Simbody paper's Fig. 3, shared by the benchmarks: a base on a slider
carrying 11 chains of 20 bodies on randomly oriented pins (221 bodies), gravity along -y.

Each joint's inboard frame F is a random rotation with an offset of about half a metre
below the parent's origin; the outboard frame M is the body frame (X_BM = identity). Links
have random masses, mass centres and central inertias. ``random_model`` draws the frames,
the links and a random q and u from one seeded generator, in the order
``bench/forward_dynamics.py`` has always used, so every benchmark runs the same model from
the same state. Builders: kinetree (``build_kinetree``) and OpenSim (``build_opensim``,
imported lazily: the bench scripts that do not need it run without it).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation as SciRot

import kinetree as kt

G = np.array([0.0, -9.81, 0.0])


def fig3_tree(rng=None):
    """(parents, kinds): body 1 slides on Ground; 11 chains of 20 pins hang from it."""
    parents, kinds = [0], ["slider"]
    for _ in range(11):
        prev = 1
        for _ in range(20):
            parents.append(prev)
            kinds.append("pin")
            prev = len(parents)
    return parents, kinds


def chain_tree(n):
    return list(range(n)), ["pin"] * n


def random_bodies(rng, n):
    """n (mass, com, central inertia) triples of plausible links."""
    out = []
    for _ in range(n):
        m = rng.uniform(0.5, 2.0)
        com = rng.uniform(-0.1, 0.1, 3) + [0, -0.25, 0]
        moments = rng.uniform(0.02, 0.04, 3)    # any two sum to more than the third
        out.append((m, com, np.diag(moments)))
    return out


def random_frames(rng, n):
    """n inboard frames (R, p): a random rotation, about half a metre below the parent."""
    return [(SciRot.random(random_state=rng.integers(1 << 31)).as_matrix(),
             rng.uniform(-0.1, 0.1, 3) + [0, -0.5, 0]) for _ in range(n)]


def random_model(parents, seed=0):
    """(frames, bodies, q, u) for the tree with these parents, from one seeded generator."""
    rng = np.random.default_rng(seed)
    n = len(parents)
    frames = random_frames(rng, n)
    bodies = random_bodies(rng, n)
    q = rng.uniform(-1, 1, n)
    u = rng.uniform(-1, 1, n)
    return frames, bodies, q, u


def build_kinetree(parents, kinds, frames, bodies):
    """The tree in kinetree, gravity as a force element; returns the System. Body i + 1
    is created i-th, so q and u follow the order of ``parents``."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, G)
    mobods = [matter.Ground()]
    for parent, kind, (R, p), (m, com, I_c) in zip(parents, kinds, frames, bodies,
                                                   strict=True):
        inertia_origin = kt.Inertia(I_c).shift_from_mass_center(com, m)
        body = kt.Body.Rigid(kt.MassProperties(m, com, inertia_origin))
        cls = kt.MobilizedBody.Pin if kind == "pin" else kt.MobilizedBody.Slider
        mobods.append(cls(mobods[parent], kt.Transform(kt.Rotation(R), p), body,
                          kt.Transform()))
    return system


def pin_chain(n=10):
    """The n-pin chain in kinetree at its random q and u: (System, State, (parents,
    frames, bodies, q, u)) for building the same chain elsewhere (MuJoCo, OpenSim)."""
    parents, kinds = chain_tree(n)
    frames, bodies, q, u = random_model(parents)
    system = build_kinetree(parents, kinds, frames, bodies)
    state = system.realize_topology()
    state.set_q(q)
    state.set_u(u)
    return system, state, (parents, frames, bodies, q, u)


def build_opensim(parents, kinds, frames, bodies):
    """The same tree in OpenSim (PinJoint about Z and SliderJoint along X of the inboard
    frame, as Simbody's Pin and Slider); returns the Model. Joint i + 1 is ``j{i + 1}``."""
    import opensim as osim

    model = osim.Model()
    model.setGravity(osim.Vec3(*G))
    o_bodies = [model.getGround()]
    for i, (parent, kind, (R, p), (m, com, I_c)) in enumerate(
            zip(parents, kinds, frames, bodies, strict=True)):
        body = osim.Body(f"b{i + 1}", m, osim.Vec3(*com), osim.Inertia(*np.diag(I_c)))
        angles = SciRot.from_matrix(R).as_euler("XYZ")     # body-fixed X-Y-Z, as OpenSim
        cls = osim.PinJoint if kind == "pin" else osim.SliderJoint
        joint = cls(f"j{i + 1}", o_bodies[parent], osim.Vec3(*p), osim.Vec3(*angles),
                    body, osim.Vec3(0), osim.Vec3(0))
        model.addBody(body)
        model.addJoint(joint)
        o_bodies.append(body)
    return model


def opensim_coordinates(model, n):
    """The coordinates of joints j1 ... jn (call after ``initSystem``). OpenSim hands the
    bodies to Simbody in its own order, so q and u are mapped through these rather than
    through the State's slots."""
    joints = model.getJointSet()
    return [joints.get(f"j{i + 1}").get_coordinates(0) for i in range(n)]


def set_opensim_state(model, state, q, u):
    """q and u (in the order of ``parents``) into OpenSim's State, without assembly."""
    for c, qi, ui in zip(opensim_coordinates(model, len(q)), q, u, strict=True):
        c.setValue(state, float(qi), False)
        c.setSpeedValue(state, float(ui))


def get_opensim_q(model, state, n):
    return np.array([c.getValue(state) for c in opensim_coordinates(model, n)])
