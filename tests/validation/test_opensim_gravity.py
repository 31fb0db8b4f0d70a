"""Force.Gravity against Simbody's own Force::Gravity, which is OpenSim's model gravity: the
same tree under a tilted gravity vector has, at random states, the same potential energy
(signs and zero included), the same spatial gravity force on every body, and the same u̇."""

import numpy as np
import pytest

import kinetree as kt

osim = pytest.importorskip("opensim")

JOINTS = {"PinJoint": "Pin", "SliderJoint": "Slider", "UniversalJoint": "Universal",
          "GimbalJoint": "Gimbal", "PlanarJoint": "Planar"}
GRAVITY = np.array([1.5, -9.0, 2.5])


def vec3(v):
    return osim.Vec3(*map(float, v))


def build_both(seed):
    rng = np.random.default_rng(seed)
    model = osim.Model()
    model.setGravity(vec3(GRAVITY))
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    gravity = kt.Force.Gravity(forces, matter, GRAVITY)
    o_parent, k_parent = model.getGround(), matter.Ground()
    for i, kind in enumerate(rng.permutation(list(JOINTS))):
        mass, com, moments = rng.uniform(0.5, 2), rng.uniform(-0.2, 0.2, 3), \
            rng.uniform(0.02, 0.04, 3)
        loc_p, ori_p = rng.uniform(-0.5, 0.5, 3), rng.uniform(-1, 1, 3)
        loc_c, ori_c = rng.uniform(-0.5, 0.5, 3), rng.uniform(-1, 1, 3)
        body = osim.Body(f"b{i}", mass, vec3(com), osim.Inertia(*moments))
        joint = getattr(osim, kind)(f"j{i}", o_parent, vec3(loc_p), vec3(ori_p), body,
                                    vec3(loc_c), vec3(ori_c))
        model.addBody(body)
        model.addJoint(joint)
        inertia = kt.Inertia(*moments).shift_from_mass_center(com, mass)
        k_parent = getattr(kt.MobilizedBody, JOINTS[kind])(
            k_parent, kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_p), loc_p),
            kt.Body.Rigid(kt.MassProperties(mass, com, inertia)),
            kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_c), loc_c))
        o_parent = body
    return model, system, gravity


@pytest.mark.parametrize("seed", [0, 1])
def test_gravity_matches_simbody(seed):
    rng = np.random.default_rng(200 + seed)
    model, system, gravity = build_both(seed)
    o_state = model.initSystem()
    k_state = system.realize_topology()
    assert o_state.getNQ() == k_state.get_num_q()
    for _ in range(3):
        q = rng.uniform(-1, 1, k_state.get_num_q())
        u = rng.uniform(-1, 1, k_state.get_num_u())
        k_state.set_q(q)
        k_state.set_u(u)
        o_state.setQ(osim.Vector(list(q)))
        o_state.setU(osim.Vector(list(u)))
        model.realizeAcceleration(o_state)
        system.realize(k_state, kt.Stage.ACCELERATION)
        assert system.calc_potential_energy(k_state) == pytest.approx(
            model.calcPotentialEnergy(o_state), rel=1e-12, abs=1e-12)
        o_forces = model.getGravityBodyForces(o_state)
        k_forces = gravity.get_body_forces(k_state)
        for b in range(1, k_forces.shape[0]):
            F = o_forces.get(b)
            np.testing.assert_allclose(
                k_forces[b], [*(F.get(0).get(i) for i in range(3)),
                              *(F.get(1).get(i) for i in range(3))], rtol=1e-12, atol=1e-12)
        udot_o = np.array([o_state.getUDot().get(i) for i in range(o_state.getNU())])
        np.testing.assert_allclose(k_state.get_u_dot(), udot_o, rtol=1e-9,
                                   atol=1e-9 * np.abs(udot_o).max())
