"""kinetree's Force.SmoothSphereHalfSpaceForce against Simbody's, through OpenSim 4.6's
SmoothSphereHalfSpaceForce (which builds Simbody's element), and against the law itself.

1. Built in code in both engines: a ball (off-centre mass centre, full inertia) on a
   FreeJoint, its ContactSphere off the body origin (and turned, which both ignore), and
   a platform on a second FreeJoint carrying the ContactHalfSpace at an offset and a
   general orientation, so that both bodies move, the normal is tilted and the force's
   moment arms are all nonzero. Every parameter differs from its default. At five
   contacts (penetrating, sliding fast, near rest where the slip speed is c_f's floor,
   separating faster than 2/(3c) where the Hunt-Crossley tanh switches off, and 5 mm
   clear of the surface where only the tanh tails act), compared: the element's spatial
   forces on both bodies (OpenSim's getRecordValues, i.e. Simbody's calcForceContribution)
   to round-off, both bodies' accelerations, and the total potential energy.
2. A .osim file written here (a foot on a FreeJoint, a heel sphere on the body and a toe
   sphere on an offset frame, a floor on Ground at an offset and tilt; the heel's element
   in the ForceSet with the pre-4.2 ``derivative_smoothing`` property, which OpenSim
   ignores, the toe's among the Model's components, as Moco's models have them), loaded by
   ``load_osim`` and by OpenSim: nothing skipped, and at random states the u̇ of every
   coordinate, each element's forces and the total potential energy agree.
3. Independent of both engines: the forces of case 1 equal the law written out here in
   numpy from Simbody's documentation (depth from the signed distance to the plane,
   contact point midway, Hertz and Hunt-Crossley with their tanh switches, the smoothed
   Stribeck friction), and the two bodies' spatial forces are equal and opposite at the
   contact point (Newton's third law).
4. 0.4 s of a ball dropped spinning and sliding onto a floor, both with Runge-Kutta-Merson
   at accuracy 1e-8: the trajectories agree to integration error.

Measured (Linux x86-64, opensim 4.6, 25 random placements): forces against OpenSim within
1.5e-14 of the largest component, accelerations within 1.7e-14 of the largest, the total
potential energy within 4e-15 J; the numpy law within 1.2e-14; the .osim file's u̇ within
1e-14 relative; the drop within 1.2e-9 m in position, 1.1e-8 in the rotation matrix,
1.4e-8 m/s and 8.4e-8 rad/s (the integrators' own errors; TOLERANCES are ~10 times these).
"""

import math

import numpy as np
import pytest
from osim_xml import body, document, joint
from test_opensim_contact import quiet_opensim
from test_opensim_joints import osim, vec3  # skips if opensim is missing

import kinetree as kt
from kinetree.io import load_osim

G = 9.81
RADIUS = 0.05
BALL = (2.0, np.array([0.003, -0.002, 0.001]), (0.008, 0.0085, 0.009, 0.0003, -0.0002, 0.0001))
PLATFORM = (5.0, np.array([0.01, 0.02, -0.005]), (0.05, 0.06, 0.07, 0.001, 0.002, -0.001))
SPHERE_LOCATION = np.array([0.004, 0.002, -0.003])     # in the ball's frame, m
SPHERE_ORIENTATION = np.array([0.3, 0.2, 0.1])           # ignored by both
FLOOR_LOCATION = np.array([0.02, -0.01, 0.03])           # in the platform's frame, m
FLOOR_ORIENTATION = np.array([0.1, -0.05, -np.pi / 2 + 0.2])  # body-fixed XYZ, rad
# stiffness (Pa), dissipation (s/m), mu_s, mu_d, mu_v (s/m), v_t (m/s), c_f, b_d (1/m),
# b_v (s/m): none the default
PARAMETERS = (1e6, 2.0, 0.8, 0.6, 0.3, 0.05, 2e-5, 250.0, 40.0)
SETTERS = ("stiffness", "dissipation", "static_friction", "dynamic_friction",
           "viscous_friction", "transition_velocity", "constant_contact_force",
           "hertz_smoothing", "hunt_crossley_smoothing")
CASES = {  # depth (m), normal speed (m/s, > 0 penetrating), slip speed (m/s)
    "penetrating": (0.003, 0.2, 0.3),
    "sliding": (0.002, -0.05, 1.5),
    "near_rest": (0.0015, 1e-4, 2e-4),
    "separating": (0.001, -0.6, 0.4),
    "clear": (-0.005, 0.1, 0.2),
}
FORCE_RTOL = 1e-13       # of the largest force component; 4e-15 seen
ACCEL_RTOL = 1e-12       # of the largest acceleration component; 1e-14 seen
ACCURACY, T_FINAL, REPORT = 1e-8, 0.4, 0.01
TOLERANCES = dict(p=1.5e-8, R=1.5e-7, v=2e-7, w=1e-6)  # the drop: ~10 x the largest seen


def ground(v):
    return np.array([v.get(i) for i in range(3)])


def values(array):
    """An OpenSim ArrayDouble as numbers."""
    return np.array([array.get(i) for i in range(array.getSize())])


def inertia_about_origin(mass, com, inertia):
    return kt.Inertia(*inertia).shift_from_mass_center(com, mass)


# ---------------------------------------------------------------------------- building
def opensim_two_bodies():
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    bodies = {}
    for name, (mass, com, inertia) in (("ball", BALL), ("platform", PLATFORM)):
        b = osim.Body(name, mass, vec3(com), osim.Inertia(*inertia))
        model.addBody(b)
        model.addJoint(osim.FreeJoint(f"{name}_free", model.getGround(), b))
        bodies[name] = b
    sphere = osim.ContactSphere(RADIUS, vec3(SPHERE_LOCATION), bodies["ball"], "sphere")
    sphere.set_orientation(vec3(SPHERE_ORIENTATION))
    floor = osim.ContactHalfSpace(vec3(FLOOR_LOCATION), vec3(FLOOR_ORIENTATION),
                                  bodies["platform"], "floor")
    model.addContactGeometry(sphere)
    model.addContactGeometry(floor)
    force = osim.SmoothSphereHalfSpaceForce("contact", sphere, floor)
    for name, value in zip(SETTERS, PARAMETERS, strict=True):
        getattr(force, f"set_{name}")(value)
    model.addForce(force)
    return model


def kinetree_two_bodies():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    mobods = {}
    for name, (mass, com, inertia) in (("ball", BALL), ("platform", PLATFORM)):
        mobods[name] = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
            kt.MassProperties(mass, com, inertia_about_origin(mass, com, inertia))))
    force = kt.Force.SmoothSphereHalfSpaceForce(forces)
    force.set_parameters(*PARAMETERS)
    force.set_contact_sphere_body(mobods["ball"])
    force.set_contact_sphere_location_in_body(SPHERE_LOCATION)
    force.set_contact_sphere_radius(RADIUS)
    force.set_contact_half_space_body(mobods["platform"])
    force.set_contact_half_space_frame(kt.Transform(
        kt.Rotation.from_body_fixed_xyz(FLOOR_ORIENTATION), FLOOR_LOCATION))
    return system, mobods, force


def placement(case, rng):
    """{body: (R_GB, p, w, v)} giving the contact of CASES[case]: a random platform pose
    and motion, and the ball placed and moving so that its sphere has the case's depth
    and normal and slip speeds at the contact point."""
    depth, vn, slip = CASES[case]
    R_P = kt.Rotation.from_quaternion(rng.normal(size=4))
    p_P, w_P, v_P = rng.uniform(-0.3, 0.3, 3), rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3)
    R_PF = kt.Rotation.from_body_fixed_xyz(FLOOR_ORIENTATION).as_matrix()
    n = R_P.as_matrix() @ R_PF[:, 0]                  # into the floor's material
    e1 = R_P.as_matrix() @ R_PF[:, 1]
    e2 = R_P.as_matrix() @ R_PF[:, 2]
    origin = p_P + R_P.as_matrix() @ FLOOR_LOCATION
    centre = origin + rng.uniform(-0.1, 0.1) * e1 + rng.uniform(-0.1, 0.1) * e2 \
        - (RADIUS - depth) * n
    R_B = kt.Rotation.from_quaternion(rng.normal(size=4))
    p_B = centre - R_B.as_matrix() @ SPHERE_LOCATION
    contact = centre + (RADIUS - depth / 2) * n
    angle = rng.uniform(0, 2 * np.pi)
    wanted = vn * n + slip * (math.cos(angle) * e1 + math.sin(angle) * e2)
    w_B = rng.uniform(-2, 2, 3)
    v_B = wanted + v_P + np.cross(w_P, contact - p_P) - np.cross(w_B, contact - p_B)
    return {"ball": (R_B, p_B, w_B, v_B), "platform": (R_P, p_P, w_P, v_P)}


def set_opensim(model, state, motion):
    """Each FreeJoint's coordinates: body-fixed XYZ angles, then the translation; its
    speeds are w and v in Ground (Simbody's Free u, in either q mode)."""
    for name, (R, p, w, v) in motion.items():
        j = model.getJointSet().get(f"{name}_free")
        angles = R.convert_rotation_to_body_fixed_xyz()
        for i in range(3):
            j.get_coordinates(i).setValue(state, float(angles[i]), False)
            j.get_coordinates(i + 3).setValue(state, float(p[i]), False)
            j.get_coordinates(i).setSpeedValue(state, float(w[i]))
            j.get_coordinates(i + 3).setSpeedValue(state, float(v[i]))
    model.realizeAcceleration(state)


def set_kinetree(system, mobods, state, motion):
    for name, (R, p, _, _) in motion.items():
        mobods[name].set_q_to_fit_transform(state, kt.Transform(R, p))
    system.realize(state, kt.Stage.POSITION)
    for name, (_, _, w, v) in motion.items():
        mobods[name].set_u_to_fit_velocity(state, np.r_[w, v])
    system.realize(state, kt.Stage.ACCELERATION)


# ---------------------------------------------------------------------------- the law
def law(motion):
    """The spatial forces [moment about the origin; force] (in Ground) on the ball and
    on the platform, from Simbody's documented law, computed here without kinetree."""
    E, c, us, ud, uv, vt, cf, bd, bv = PARAMETERS
    R_B, p_B, w_B, v_B = motion["ball"]
    R_P, p_P, w_P, v_P = motion["platform"]
    R_GF = R_P.as_matrix() @ kt.Rotation.from_body_fixed_xyz(FLOOR_ORIENTATION).as_matrix()
    n = R_GF[:, 0]
    centre = p_B + R_B.as_matrix() @ SPHERE_LOCATION
    # the deepest point of the sphere lies `depth` past the plane, along n
    depth = float(n @ (centre - (p_P + R_P.as_matrix() @ FLOOR_LOCATION))) + RADIUS
    point = centre + (RADIUS - depth / 2) * n
    slip = (v_B + np.cross(w_B, point - p_B)) - (v_P + np.cross(w_P, point - p_P))
    v_n = float(slip @ n)
    v_t = slip - v_n * n
    k = 0.5 * E ** (2 / 3)
    f_hertz = 4 / 3 * k * math.sqrt(RADIUS * k) * (depth ** 2 + cf) ** 0.75 \
        * (1 + math.tanh(bd * depth)) / 2
    f_normal = f_hertz * (1 + 1.5 * c * v_n) * (1 + math.tanh(bv * (v_n + 2 / (3 * c)))) / 2
    speed = math.sqrt(float(v_t @ v_t) + cf)
    ratio = speed / vt
    mu = min(ratio, 1) * (ud + 2 * (us - ud) / (1 + ratio ** 2)) + uv * speed
    on_platform = f_normal * n + f_normal * mu * v_t / speed
    return {"ball": np.r_[np.cross(point - p_B, -on_platform), -on_platform],
            "platform": np.r_[np.cross(point - p_P, on_platform), on_platform]}, \
        point, f_normal, f_hertz


# ---------------------------------------------------------------------------- tests
@pytest.fixture(scope="module")
def both():
    model = opensim_two_bodies()
    o_state = model.initSystem()
    system, mobods, force = kinetree_two_bodies()
    return model, o_state, system, mobods, force, system.realize_topology()


@pytest.mark.parametrize("case", sorted(CASES))
def test_forces_and_accelerations_match_simbody(both, case):
    model, o_state, system, mobods, force, k_state = both
    rng = np.random.default_rng(sorted(CASES).index(case))
    motion = placement(case, rng)
    set_opensim(model, o_state, motion)
    set_kinetree(system, mobods, k_state, motion)
    for name, (_, p, w, _) in motion.items():        # the same motion in both
        b = model.getBodySet().get(name)
        np.testing.assert_allclose(ground(b.getPositionInGround(o_state)), p, atol=1e-15)
        np.testing.assert_allclose(ground(b.getVelocityInGround(o_state).get(0)), w,
                                   atol=1e-14)

    # OpenSim records [force; torque] on the sphere's body, then on the half space's
    record = values(model.getForceSet().get("contact").getRecordValues(o_state))
    simbody = record.reshape(2, 2, 3)[:, ::-1].reshape(2, 6)
    body_forces = np.zeros((system.get_matter_subsystem().get_num_bodies(), 6))
    force.calc_force(k_state, body_forces, None, np.zeros(k_state.get_num_u()))
    ours = body_forces[[mobods["ball"].get_mobilized_body_index(),
                        mobods["platform"].get_mobilized_body_index()]]
    scale = np.abs(simbody).max()
    # in contact (N), or the tanh tails only: clear of the surface, and separating fast
    assert scale > {"clear": 1e-3, "separating": 1e-12}.get(case, 1.0)
    np.testing.assert_allclose(ours, simbody, rtol=0, atol=FORCE_RTOL * scale)

    for name, mobod in mobods.items():
        A = model.getBodySet().get(name).getAccelerationInGround(o_state)
        expected = np.r_[ground(A.get(0)), ground(A.get(1))]
        np.testing.assert_allclose(mobod.get_body_acceleration(k_state), expected, rtol=0,
                                   atol=ACCEL_RTOL * max(1.0, np.abs(expected).max()))
    energy = model.calcPotentialEnergy(o_state)
    assert system.calc_potential_energy(k_state) == pytest.approx(energy, rel=1e-13,
                                                                  abs=1e-13)


@pytest.mark.parametrize("case", sorted(CASES))
def test_forces_follow_the_documented_law(both, case):
    _, _, system, mobods, force, k_state = both
    rng = np.random.default_rng(100 + sorted(CASES).index(case))
    motion = placement(case, rng)
    set_kinetree(system, mobods, k_state, motion)
    body_forces = np.zeros((system.get_matter_subsystem().get_num_bodies(), 6))
    force.calc_force(k_state, body_forces, None, np.zeros(k_state.get_num_u()))
    expected, point, f_normal, f_hertz = law(motion)
    scale = max(np.abs(e).max() for e in expected.values())
    for name, mobod in mobods.items():
        np.testing.assert_allclose(body_forces[mobod.get_mobilized_body_index()],
                                   expected[name], rtol=0, atol=1e-12 * scale)
    if case == "separating":      # faster than 2/(3c): the Hunt-Crossley tanh is off
        assert abs(f_normal) < 1e-8 * f_hertz
    else:
        assert f_normal > 0.1 * f_hertz
    # third law: the two spatial forces cancel once both are taken about the point
    F_ball = body_forces[mobods["ball"].get_mobilized_body_index()]
    F_platform = body_forces[mobods["platform"].get_mobilized_body_index()]
    p_B, p_P = motion["ball"][1], motion["platform"][1]
    about_point = [F[:3] - np.cross(point - p, F[3:])
                   for F, p in ((F_ball, p_B), (F_platform, p_P))]
    np.testing.assert_allclose(about_point, 0.0, atol=1e-12 * scale)
    np.testing.assert_allclose(F_ball[3:] + F_platform[3:], 0.0, atol=1e-12 * scale)


def test_normal_force_is_the_smoothed_hertz_force_at_rest(both):
    """With no relative motion the force is normal, the smoothed Hertz force
    f_h = (4/3) k √(r k) (x² + c_f)^(3/4) (1 + tanh(b_d x)) / 2 times the Hunt-Crossley
    factor (1 + tanh(b_v 2/(3c))) / 2, and the potential energy (2/5) f_h x."""
    _, _, system, mobods, force, k_state = both
    E, c, _, _, _, _, cf, bd, bv = PARAMETERS
    k = 0.5 * E ** (2 / 3)
    for depth in (-0.004, -0.001, 0.0, 0.0005, 0.002, 0.006):
        motion = placement("penetrating", np.random.default_rng(5))
        R_P, p_P, w_P, v_P = motion["platform"]
        R_B, p_B, _, _ = motion["ball"]
        n = R_P.as_matrix() @ kt.Rotation.from_body_fixed_xyz(FLOOR_ORIENTATION).as_matrix()[:, 0]
        p_B = p_B + (depth - CASES["penetrating"][0]) * n
        # the ball moves rigidly with the platform: no relative velocity anywhere
        motion["ball"] = (R_B, p_B, w_P, v_P + np.cross(w_P, p_B - p_P))
        set_kinetree(system, mobods, k_state, motion)
        body_forces = np.zeros((system.get_matter_subsystem().get_num_bodies(), 6))
        force.calc_force(k_state, body_forces, None, np.zeros(k_state.get_num_u()))
        f_h = 4 / 3 * k * math.sqrt(RADIUS * k) * (depth * depth + cf) ** 0.75 \
            * (1 + math.tanh(bd * depth)) / 2
        f = f_h * (1 + math.tanh(bv * 2 / (3 * c))) / 2
        on_platform = body_forces[mobods["platform"].get_mobilized_body_index(), 3:]
        # v_t = 0: no friction, though v_s = √c_f > 0
        np.testing.assert_allclose(on_platform @ n, f, rtol=1e-13)
        assert np.linalg.norm(on_platform - (on_platform @ n) * n) < 1e-12 * f
        # (at depth 0 kinetree's depth is round-off, ~1e-17 m)
        assert force.calc_potential_energy(k_state) == pytest.approx(0.4 * f_h * depth,
                                                                     rel=1e-13, abs=1e-15 * f_h)


# ------------------------------------------------------------------------- a .osim file
def foot_model(path):
    """A foot on a FreeJoint (its child frame offset from the body), a heel sphere on the
    body itself and a toe sphere on the joint's offset frame, and a floor on Ground at an
    offset and tilt; two SmoothSphereHalfSpaceForce elements, one in the ForceSet, one
    among the Model's components."""
    foot = body("foot", 1.2, (0.05, 0.01, 0.0), (0.002, 0.006, 0.005, 0.0002, 0.0, 0.0001))
    free = joint("FreeJoint", "free", "ground", (0, 0, 0), "foot", (0.02, -0.01, 0.005),
                 [(c, 0.0) for c in ("rx", "ry", "rz", "tx", "ty", "tz")],
                 c_ori=(0.1, 0.2, -0.3))
    geometry = (
        '<ContactGeometrySet name="contactgeometryset"><objects>'
        '<ContactHalfSpace name="floor"><socket_frame>/ground</socket_frame>'
        '<location>0.01 -0.02 0.03</location><orientation>0.05 0.02 -1.5207963267948966'
        '</orientation></ContactHalfSpace>'
        '<ContactSphere name="heel"><socket_frame>/bodyset/foot</socket_frame>'
        '<location>-0.02 -0.03 0.01</location><orientation>0.4 0 0</orientation>'
        '<radius>0.035</radius></ContactSphere>'
        '<ContactSphere name="toe"><socket_frame>/jointset/free/free_c</socket_frame>'
        '<location>0.15 -0.02 -0.01</location><radius>0.02</radius></ContactSphere>'
        '</objects></ContactGeometrySet>')
    heel = (
        '<SmoothSphereHalfSpaceForce name="heel_contact">'
        '<socket_sphere>/contactgeometryset/heel</socket_sphere>'
        '<socket_half_space>/contactgeometryset/floor</socket_half_space>'
        '<stiffness>3067776</stiffness><dissipation>2</dissipation>'
        '<static_friction>0.8</static_friction><dynamic_friction>0.6</dynamic_friction>'
        '<viscous_friction>0.5</viscous_friction><transition_velocity>0.2'
        '</transition_velocity><derivative_smoothing>0.001</derivative_smoothing>'
        '</SmoothSphereHalfSpaceForce>')
    toe = (
        '<SmoothSphereHalfSpaceForce name="toe_contact">'
        '<socket_sphere>/contactgeometryset/toe</socket_sphere>'
        '<socket_half_space>/contactgeometryset/floor</socket_half_space>'
        '<stiffness>2000000</stiffness><dissipation>1.5</dissipation>'
        '<static_friction>0.9</static_friction><dynamic_friction>0.7</dynamic_friction>'
        '<viscous_friction>0.2</viscous_friction><transition_velocity>0.1'
        '</transition_velocity><constant_contact_force>3e-05</constant_contact_force>'
        '<hertz_smoothing>200</hertz_smoothing>'
        '<hunt_crossley_smoothing>60</hunt_crossley_smoothing>'
        '</SmoothSphereHalfSpaceForce>')
    # the heel's in the ForceSet, the toe's among the Model's components (as Moco's
    # example models keep theirs): OpenSim applies both
    forces = f'<ForceSet name="forceset"><objects>{heel}</objects></ForceSet>'
    path.write_text(document("foot", [foot], [free],
                             forces + geometry + f"<components>{toe}</components>"))
    return path


def lowest_sphere_depth(om, state):
    """The largest depth (m) of the two spheres into the floor (OpenSim's geometry)."""
    geometries = om.getContactGeometrySet()
    floor = geometries.get("floor")
    R = osim.Rotation(osim.BodyRotationSequence, *[
        a for i in range(3) for a in (floor.get_orientation().get(i), osim.CoordinateAxis(i))])
    n = ground(R.multiply(osim.Vec3(1, 0, 0)))            # Ground is the floor's frame
    origin = ground(floor.get_location())
    depths = []
    for name in ("heel", "toe"):
        g = geometries.get(name)
        centre = ground(g.getFrame().findStationLocationInGround(state, g.get_location()))
        depths.append(float(n @ (centre - origin)) + osim.ContactSphere.safeDownCast(
            g).getRadius())
    return max(depths)


def test_osim_file_matches_opensim(tmp_path):
    path = foot_model(tmp_path / "foot.osim")
    model = load_osim(path)
    assert model.skipped == []
    assert set(model.force_elements) == {"heel_contact", "toe_contact"}
    heel = model.force_elements["heel_contact"][0]
    assert isinstance(heel, kt.Force.SmoothSphereHalfSpaceForce)
    # OpenSim's defaults where the file has none; derivative_smoothing ignored as by OpenSim
    assert (heel.get_constant_contact_force(), heel.get_hertz_smoothing(),
            heel.get_hunt_crossley_smoothing()) == (1e-5, 300.0, 50.0)
    om = osim.Model(str(path))
    assert osim.SmoothSphereHalfSpaceForce.safeDownCast(
        om.getForceSet().get("heel_contact")).get_constant_contact_force() == 1e-5
    state = model.get_default_state()
    coordinates = om.getCoordinateSet()
    rng = np.random.default_rng(3)
    ty = coordinates.get("ty")
    for trial in range(4):
        # random angles and speeds, the foot coming down at 0.1 m/s (trial 3: near rest)
        ostate = om.initSystem()
        slow = 0.01 if trial == 3 else 1.0
        for i in range(6):
            c = coordinates.get(i)
            c.setValue(ostate, rng.uniform(-0.4, 0.4) if i < 3 else rng.uniform(-0.1, 0.1),
                       False)
            c.setSpeedValue(ostate, slow * (rng.uniform(-0.5, 0.5) if i < 3 else
                                            -0.1 if i == 4 else rng.uniform(-0.3, 0.3)))
        for _ in range(6):               # lower the foot until the deepest sphere is in 3 mm
            om.realizePosition(ostate)
            ty.setValue(ostate, ty.getValue(ostate) + (lowest_sphere_depth(om, ostate) - 0.003),
                        False)
        om.realizeAcceleration(ostate)
        assert lowest_sphere_depth(om, ostate) == pytest.approx(0.003, abs=1e-9)
        for name in ("rx", "ry", "rz", "tx", "ty", "tz"):
            c, k = coordinates.get(name), model.coordinates[name]
            k.set_value(state, c.getValue(ostate))
            k.set_speed_value(state, c.getSpeedValue(ostate))
        model.system.realize(state, kt.Stage.ACCELERATION)
        for name in ("rx", "ry", "rz", "tx", "ty", "tz"):
            expected = coordinates.get(name).getAccelerationValue(ostate)
            got = model.coordinates[name].get_acceleration_value(state)
            assert got == pytest.approx(expected, rel=1e-10, abs=1e-10), (trial, name)
        assert model.system.calc_potential_energy(state) == pytest.approx(
            om.calcPotentialEnergy(ostate), rel=1e-12, abs=1e-12)
        foot = model.bodies["foot"].get_mobilized_body_index()
        largest = 0.0
        for name, (element,) in model.force_elements.items():
            record = values(osim.Force.safeDownCast(om.getComponent(
                f"/forceset/{name}" if name == "heel_contact" else f"/{name}"))
                .getRecordValues(ostate))
            body_forces = np.zeros((model.matter.get_num_bodies(), 6))
            element.calc_force(state, body_forces, None, np.zeros(state.get_num_u()))
            got = np.r_[body_forces[foot, 3:], body_forces[foot, :3], body_forces[0, 3:],
                        body_forces[0, :3]]
            scale = np.abs(record).max()
            largest = max(largest, scale)
            np.testing.assert_allclose(got, record, rtol=0, atol=FORCE_RTOL * scale,
                                       err_msg=f"trial {trial} {name}")
        assert largest > 5.0         # one sphere well in contact, its force switched on


# ------------------------------------------------------------------------- a drop
def drop_models():
    """A ball on a FreeJoint above a floor on Ground, in both engines."""
    om = osim.Model()
    om.setGravity(osim.Vec3(0, -G, 0))
    mass, com, inertia = BALL
    b = osim.Body("ball", mass, vec3(com), osim.Inertia(*inertia))
    om.addBody(b)
    om.addJoint(osim.FreeJoint("ball_free", om.getGround(), b))
    sphere = osim.ContactSphere(RADIUS, vec3(SPHERE_LOCATION), b, "sphere")
    floor = osim.ContactHalfSpace(osim.Vec3(0), osim.Vec3(0, 0, -np.pi / 2), om.getGround(),
                                  "floor")
    om.addContactGeometry(sphere)
    om.addContactGeometry(floor)
    force = osim.SmoothSphereHalfSpaceForce("contact", sphere, floor)
    for name, value in zip(SETTERS, PARAMETERS, strict=True):
        getattr(force, f"set_{name}")(value)
    om.addForce(force)

    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(
        kt.MassProperties(mass, com, inertia_about_origin(mass, com, inertia))))
    contact = kt.Force.SmoothSphereHalfSpaceForce(forces)
    contact.set_parameters(*PARAMETERS)
    contact.set_contact_sphere_body(ball)
    contact.set_contact_sphere_location_in_body(SPHERE_LOCATION)
    contact.set_contact_sphere_radius(RADIUS)
    contact.set_contact_half_space_body(matter.Ground())
    contact.set_contact_half_space_frame(kt.Transform(kt.Rotation.about_z(-np.pi / 2),
                                                      [0, 0, 0]))
    return om, system, ball


def drop_times():
    return np.round(np.arange(round(T_FINAL / REPORT) + 1) * REPORT, 12)


def test_drop_simulates_like_simbody():
    om, system, ball = drop_models()
    start = {"ball": (kt.Rotation(), np.array([0.0, 0.12, 0.0]), np.array([2.0, 0.5, -8.0]),
                      np.array([0.8, -0.5, 0.3]))}
    ostate = om.initSystem()
    set_opensim(om, ostate, start)
    kstate = system.realize_topology()
    set_kinetree(system, {"ball": ball}, kstate, start)

    body = om.getBodySet().get("ball")
    manager = osim.Manager(om)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(ACCURACY)
    with quiet_opensim():
        manager.initialize(ostate)
        theirs = []
        for t in drop_times():
            s = manager.integrate(t) if t > 0 else ostate
            om.realizeVelocity(s)
            X, V = body.getTransformInGround(s), body.getVelocityInGround(s)
            theirs.append((ground(X.p()), np.array([[X.R().get(i, j) for j in range(3)]
                                                    for i in range(3)]),
                           ground(V.get(1)), ground(V.get(0))))
    traj = kt.simulate(system, kstate, T_FINAL, accuracy=ACCURACY, report_interval=REPORT,
                       progress=False)
    np.testing.assert_allclose(traj.t, drop_times(), rtol=0, atol=1e-12)
    ours = []
    for s in traj.states():
        system.realize(s, kt.Stage.VELOCITY)
        X = ball.get_body_transform(s)
        ours.append((np.array(X.p), X.R.as_matrix(), ball.get_body_origin_velocity(s),
                     ball.get_body_angular_velocity(s)))
    theirs = [np.array(column) for column in zip(*theirs, strict=True)]
    ours = [np.array(column) for column in zip(*ours, strict=True)]
    # it lands (the centre comes within the radius of the floor) and slides on
    assert theirs[0][:, 1].min() < RADIUS
    assert np.abs(theirs[0][-1, [0, 2]]).max() > 0.05
    for name, a, b in zip("pRvw", ours, theirs, strict=True):
        err = np.abs(a - b).reshape(len(a), -1).max(axis=1)
        assert err.max() < TOLERANCES[name], (
            f"{name} differs by {err.max():.3g} at t = {drop_times()[err.argmax()]:.2f} s")
