"""kinetree against Simbody itself, through OpenSim: the same chain of OpenSim joints
(Pin, Slider, Universal, Gimbal, Ball, Free, Planar, Weld, Ellipsoid) with random frames
and mass properties, built in both; at random states the body positions and u̇ agree.

The states are set in OpenSim's underlying Simbody State directly (q, u vectors). OpenSim
runs Simbody with Euler angles for Ball, Free and Ellipsoid joints (each keeps one unused
q slot at the end of its block) and its Python API does not expose the switch, so kinetree
is compared in Euler-angle mode; the quaternion mode is held to the same u̇ by the internal
ABA-vs-mass-matrix tests."""

import numpy as np
import pytest

import kinetree as kt

osim = pytest.importorskip("opensim")

JOINTS = {  # OpenSim joint -> kinetree mobilizer
    "PinJoint": "Pin", "SliderJoint": "Slider", "UniversalJoint": "Universal",
    "GimbalJoint": "Gimbal", "BallJoint": "Ball", "FreeJoint": "Free",
    "PlanarJoint": "Planar", "WeldJoint": "Weld", "EllipsoidJoint": "Ellipsoid",
}
EULER_PADDED = ("BallJoint", "FreeJoint", "EllipsoidJoint")
G = 9.80665


def vec3(v):
    return osim.Vec3(*map(float, v))


def random_link(rng):
    mass = rng.uniform(0.5, 2.0)
    com = rng.uniform(-0.2, 0.2, 3)
    moments = rng.uniform(0.02, 0.04, 3)
    return mass, com, moments


def build_both(kinds, seed, parents=None):
    """The same model in OpenSim and kinetree: body i hangs from body parents[i] (0 is
    Ground; a chain by default)."""
    rng = np.random.default_rng(seed)
    parents = parents or list(range(len(kinds)))
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    o_bodies, k_bodies = [model.getGround()], [matter.Ground()]
    for i, kind in enumerate(kinds):
        o_parent, k_parent = o_bodies[parents[i]], k_bodies[parents[i]]
        mass, com, moments = random_link(rng)
        loc_p, ori_p = rng.uniform(-0.5, 0.5, 3), rng.uniform(-1, 1, 3)
        loc_c, ori_c = rng.uniform(-0.5, 0.5, 3), rng.uniform(-1, 1, 3)
        body = osim.Body(f"b{i}", mass, vec3(com), osim.Inertia(*moments))
        radii = rng.uniform(0.1, 0.4, 3) if kind == "EllipsoidJoint" else None
        extra = (vec3(radii),) if radii is not None else ()
        joint = getattr(osim, kind)(f"j{i}", o_parent, vec3(loc_p), vec3(ori_p), body,
                                    vec3(loc_c), vec3(ori_c), *extra)
        model.addBody(body)
        model.addJoint(joint)
        o_bodies.append(body)
        inertia = kt.Inertia(*moments).shift_from_mass_center(com, mass)
        k_body = kt.Body.Rigid(kt.MassProperties(mass, com, inertia))
        X_PF = kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_p), loc_p)
        X_BM = kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_c), loc_c)
        k_extra = (radii,) if radii is not None else ()
        k_bodies.append(getattr(kt.MobilizedBody, JOINTS[kind])(k_parent, X_PF, k_body,
                                                                X_BM, *k_extra))
    return model, system, matter


@pytest.mark.parametrize("seed, branched", [(0, False), (1, False), (2, True), (3, True)])
def test_opensim_joints_match_simbody(seed, branched):
    rng = np.random.default_rng(100 + seed)
    kinds = list(rng.permutation(list(JOINTS)))
    # Branched trees are numbered breadth first (parents non-decreasing), the order in
    # which OpenSim hands its bodies to Simbody, so q and u line up one to one.
    parents = (sorted(int(rng.integers(0, i + 1)) for i in range(len(kinds))) if branched
               else None)
    model, system, matter = build_both(kinds, seed, parents)
    o_state = model.initSystem()
    k_state = system.realize_topology()
    matter.set_use_euler_angles(k_state, True)
    system.realize_model(k_state)
    padded = [k in EULER_PADDED for k in kinds]
    assert o_state.getNQ() == k_state.get_num_q() + sum(padded)
    assert o_state.getNU() == k_state.get_num_u()
    for _ in range(3):
        q = rng.uniform(-1, 1, k_state.get_num_q())
        u = rng.uniform(-1, 1, k_state.get_num_u())
        k_state.set_q(q)
        k_state.set_u(u)
        o_q = []
        for i, pad in enumerate(padded):
            o_q.extend(matter.get_mobilized_body(i + 1).get_q(k_state))
            o_q.extend([0.0] * pad)
        o_state.setQ(osim.Vector(o_q))
        o_state.setU(osim.Vector(list(u)))
        model.realizeAcceleration(o_state)
        system.realize(k_state, kt.Stage.ACCELERATION)
        for i in range(len(kinds)):
            p = model.getBodySet().get(i).getPositionInGround(o_state)
            np.testing.assert_allclose(
                matter.get_mobilized_body(i + 1).get_body_origin_location(k_state),
                [p.get(0), p.get(1), p.get(2)], atol=1e-12)
        udot_o = np.array([o_state.getUDot().get(i) for i in range(o_state.getNU())])
        udot_k = k_state.get_u_dot()
        np.testing.assert_allclose(udot_k, udot_o, rtol=1e-9,
                                   atol=1e-9 * np.abs(udot_o).max())
