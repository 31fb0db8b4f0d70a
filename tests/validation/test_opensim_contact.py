"""kinetree's GeneralContactSubsystem forces against Simbody's, through OpenSim: a ball on a
FreeJoint dropped with sliding and spin onto a half space, once with OpenSim's
HuntCrossleyForce (a ContactSphere) and once with its ElasticFoundationForce (a
ContactMesh, an icosphere of 1280 faces written to an OBJ file that both engines read).

The ball has an off-centre mass centre, a full inertia matrix and its contact shape off
the body origin (the mesh also rotated), so contact also makes it wobble. OpenSim's model
is built through its Python API and runs as OpenSim runs it: Simbody's FreeJoint in
Euler-angle mode (body-fixed XYZ, then the translation), its u being [w; v] of the body in
Ground, the same u as kinetree's quaternion-mode Free. The initial state is set through
OpenSim's Coordinates and read back as body velocities in Ground. The vertical spin is kept
small enough that the middle Euler angle stays well away from gimbal lock (checked).

Each engine is mapped as OpenSim maps itself onto Simbody (its extendAddToSystem): one
contact set per force, each geometry of each ContactParameters added with its own frame;
HuntCrossleyForce gives every geometry its parameters (here the ball and the floor get
different ones, through two ContactParameters, so that s1 != 1/2 moves the contact
point), while ElasticFoundationForce adds the half space to the set but gives parameters
only to the meshes (Simbody throws for any other shape), so kinetree's floor is added
without parameters too.

Compared:

* the contact element's spatial forces on the ball and on Ground, and u̇, at random
  penetrating states (OpenSim's getRecordValues, i.e. Simbody's calcForceContribution,
  against the element's calc_force): equal to round-off;
* 1 s of motion, both with Runge-Kutta-Merson at accuracy 1e-8, reported every 10 ms
  (OpenSim's Manager stops at each report time; kinetree's simulate interpolates): body
  origin, rotation matrix, angular and linear velocity in Ground.

Measured max differences over the 1 s (Linux x86-64, opensim 4.6): as run, and in
brackets the largest seen over variants that only change the step sequences (kinetree's
initial state nudged by up to 1e-14, the floor's rotation built another way, a 1.6e-16
difference, or Simbody switched to quaternions as in test_opensim_simulation):

    case                    p (m)              R                  v (m/s)           w (rad/s)
    Hunt-Crossley sphere    6.5e-9 [1.7e-8]    6.5e-8 [9.2e-8]    6.4e-7 [2.0e-6]   1.1e-6 [1.3e-6]
    elastic foundation      5.9e-8 [1.3e-7]    1.1e-7 [1.0e-6]    8.7e-6 [2.5e-5]   5.1e-6 [1.2e-5]

They are the two integrators' own errors, not a modelling difference: at accuracy 1e-10
they drop to about 3e-10 m (Hunt-Crossley) and 1.5e-9 m (elastic foundation). The mesh
case has larger ones because every face centroid crossing the floor is a kink in the
force that both step-size controllers must find. The tolerances are about five times the
largest seen.
"""

import contextlib
import re

import numpy as np
import pytest
from test_opensim_joints import osim, vec3  # skips if opensim is missing

import kinetree as kt

G = 9.81
RADIUS, MASS = 0.1, 2.0
COM = np.array([0.003, -0.002, 0.001])  # in the body frame, m
INERTIA = (0.008, 0.0085, 0.009, 0.0003, -0.0002, 0.0001)  # about the COM: xx yy zz xy xz yz
SHAPE_LOCATION = np.array([0.004, 0.002, -0.003])  # the sphere's / mesh's frame in the body
MESH_ORIENTATION = np.array([0.3, -0.2, 0.5])  # body-fixed XYZ, rad
FLOOR_ORIENTATION = np.array([0.0, 0.0, -np.pi / 2])  # Simbody's half space x > 0 -> y < 0

# Hunt-Crossley: stiffness (Pa), dissipation (s/m), static, dynamic, viscous (s/m) friction
HC_BALL = (2e6, 0.8, 0.8, 0.5, 0.1)
HC_FLOOR = (5e6, 0.5, 0.9, 0.6, 0.2)
# elastic foundation on the mesh: stiffness (N/m^3), dissipation, friction
EF_MESH = (1e8, 0.5, 0.8, 0.5, 0.1)
EF_SUBDIVISIONS = 3  # icosphere of 20 * 4**3 = 1280 faces
TRANSITION_VELOCITY = 0.1

# the drop: body origin 0.3 m up, sliding in x and z, spinning about x, y (vertical) and z
P0 = np.array([0.0, 0.3, 0.0])
W0 = np.array([3.0, 1.0, -15.0])
V0 = np.array([1.0, 0.0, 0.4])
ACCURACY = 1e-8
T_FINAL, REPORT = 1.0, 0.01

# about five times the largest differences seen (module docstring)
TOLERANCES = {
    "hunt_crossley": dict(p=1e-7, R=5e-7, v=1e-5, w=1e-5),
    "elastic_foundation": dict(p=6e-7, R=5e-6, v=1.2e-4, w=6e-5),
}


@contextlib.contextmanager
def quiet_opensim():
    """OpenSim's Manager logs three lines per integrate(); keep the output readable."""
    level = osim.Logger.getLevelString()
    osim.Logger.setLevelString("warn")
    try:
        yield
    finally:
        osim.Logger.setLevelString(level)


def write_icosphere(path):
    """An icosphere of RADIUS as a plain OBJ (v and f lines, full double precision)."""
    trimesh = pytest.importorskip("trimesh")
    mesh = trimesh.creation.icosphere(subdivisions=EF_SUBDIVISIONS, radius=RADIUS)
    lines = ["v " + " ".join(repr(float(x)) for x in v) for v in mesh.vertices]
    lines += ["f " + " ".join(str(int(i) + 1) for i in f) for f in mesh.faces]
    path.write_text("\n".join(lines) + "\n")
    return len(mesh.faces)


# ---------------------------------------------------------------------------- OpenSim
def opensim_ball(shape):
    """A Model with the ball on a FreeJoint, the floor and ``shape`` (a ContactGeometry
    named "shape" on the ball, made by shape(body))."""
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    body = osim.Body("ball", MASS, vec3(COM), osim.Inertia(*INERTIA))
    joint = osim.FreeJoint("free", model.getGround(), body)
    model.addBody(body)
    model.addJoint(joint)
    model.addContactGeometry(shape(body))
    model.addContactGeometry(osim.ContactHalfSpace(osim.Vec3(0), vec3(FLOOR_ORIENTATION),
                                                   model.getGround(), "floor"))
    return model


def set_parameters(force, parameters):
    stiffness, dissipation, static, dynamic, viscous = parameters
    force.setStiffness(stiffness)
    force.setDissipation(dissipation)
    force.setStaticFriction(static)
    force.setDynamicFriction(dynamic)
    force.setViscousFriction(viscous)


def add_hunt_crossley(model, geometries):
    """A HuntCrossleyForce "contact" whose one ContactParameters gives HC_BALL to the
    named geometries."""
    force = osim.HuntCrossleyForce()
    force.setName("contact")
    set_parameters(force, HC_BALL)
    for name in geometries:
        force.addGeometry(name)
    force.setTransitionVelocity(TRANSITION_VELOCITY)
    model.addForce(force)
    model.finalizeConnections()


def opensim_hunt_crossley(tmp_path):
    """The ball with a ContactSphere and a HuntCrossleyForce whose two ContactParameters
    give the ball HC_BALL and the floor HC_FLOOR. The Python bindings reach only the first
    ContactParameters (HuntCrossleyForce::ContactParameters is not wrapped), so the model
    is written out, the floor's block added to the XML, and the file read back."""
    model = opensim_ball(lambda body: osim.ContactSphere(RADIUS, vec3(SHAPE_LOCATION), body,
                                                         "shape"))
    add_hunt_crossley(model, ["shape"])
    path = tmp_path / "hunt_crossley.osim"
    model.printToXML(str(path))
    text = path.read_text()
    blocks = re.findall(r"[ \t]*<HuntCrossleyForce::ContactParameters>.*?"
                        r"</HuntCrossleyForce::ContactParameters>\n", text, re.S)
    assert len(blocks) == 1 and "<geometry>shape</geometry>" in blocks[0]
    floor = blocks[0].replace("<geometry>shape</geometry>", "<geometry>floor</geometry>")
    names = ("stiffness", "dissipation", "static_friction", "dynamic_friction",
             "viscous_friction")
    for name, value in zip(names, HC_FLOOR, strict=True):
        floor, n = re.subn(rf"<{name}>[^<]*</{name}>", f"<{name}>{value!r}</{name}>", floor)
        assert n == 1
    path.write_text(text.replace(blocks[0], blocks[0] + floor))
    return osim.Model(str(path))


def opensim_elastic_foundation(mesh_path):
    """The ball with a ContactMesh and an ElasticFoundationForce listing the mesh and the
    floor in one ContactParameters (OpenSim gives the parameters to the mesh only)."""
    model = opensim_ball(lambda body: osim.ContactMesh(str(mesh_path), vec3(SHAPE_LOCATION),
                                                       vec3(MESH_ORIENTATION), body, "shape"))
    force = osim.ElasticFoundationForce()
    force.setName("contact")
    set_parameters(force, EF_MESH)
    force.addGeometry("shape")
    force.addGeometry("floor")
    force.setTransitionVelocity(TRANSITION_VELOCITY)
    model.addForce(force)
    return model


def set_opensim_state(model, state, R_GB, p, w, v):
    """The FreeJoint's Coordinates: body-fixed XYZ angles of R_GB, then p; the speeds are
    w and v (Simbody's Free u = [w_GB; v_GB] in Ground, in either q mode)."""
    joint = model.getJointSet().get("free")
    angles = R_GB.convert_rotation_to_body_fixed_xyz()
    for i in range(3):
        joint.get_coordinates(i).setValue(state, float(angles[i]), False)
        joint.get_coordinates(i + 3).setValue(state, float(p[i]), False)
        joint.get_coordinates(i).setSpeedValue(state, float(w[i]))
        joint.get_coordinates(i + 3).setSpeedValue(state, float(v[i]))
    model.realizeVelocity(state)


def opensim_motion(model, state):
    """(p, R, v, w, middle Euler angle) of the ball in Ground at the report times."""
    body = model.getBodySet().get("ball")
    middle = model.getJointSet().get("free").get_coordinates(1)
    manager = osim.Manager(model)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(ACCURACY)
    manager.initialize(state)
    rows = []
    for t in report_times():
        s = manager.integrate(t) if t > 0 else state
        assert s.getTime() == pytest.approx(t, abs=1e-12)
        model.realizeVelocity(s)
        X, V = body.getTransformInGround(s), body.getVelocityInGround(s)
        rows.append((np.array([X.p().get(i) for i in range(3)]),
                     np.array([[X.R().get(i, j) for j in range(3)] for i in range(3)]),
                     np.array([V.get(1).get(i) for i in range(3)]),
                     np.array([V.get(0).get(i) for i in range(3)]),
                     middle.getValue(s)))
    return [np.array(column) for column in zip(*rows, strict=True)]


# ---------------------------------------------------------------------------- kinetree
def kinetree_ball(shape, X_BS):
    """(system, ball, contacts, contact set, ball's entry, floor's entry)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    contacts = kt.GeneralContactSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    inertia = kt.Inertia(*INERTIA).shift_from_mass_center(COM, MASS)  # about the origin
    ball = kt.MobilizedBody.Free(matter.Ground(),
                                 kt.Body.Rigid(kt.MassProperties(MASS, COM, inertia)))
    # in OpenSim's order: the ball's geometry first, then the floor
    cset = contacts.create_contact_set()
    i_ball = contacts.add_body(cset, ball, shape, X_BS)
    i_floor = contacts.add_body(cset, matter.Ground(), kt.ContactGeometry.HalfSpace(),
                                kt.Transform(kt.Rotation.from_body_fixed_xyz(FLOOR_ORIENTATION),
                                             [0, 0, 0]))
    return system, forces, ball, contacts, cset, i_ball, i_floor


def kinetree_hunt_crossley():
    system, forces, ball, contacts, cset, i_ball, i_floor = kinetree_ball(
        kt.ContactGeometry.Sphere(RADIUS), kt.Transform(kt.Rotation(), SHAPE_LOCATION))
    force = kt.HuntCrossleyForce(forces, contacts, cset)
    force.set_body_parameters(i_ball, *HC_BALL)
    force.set_body_parameters(i_floor, *HC_FLOOR)
    force.set_transition_velocity(TRANSITION_VELOCITY)
    return system, ball, force


def kinetree_elastic_foundation(mesh_path):
    mesh = kt.ContactGeometry.TriangleMesh.load(mesh_path)
    system, forces, ball, contacts, cset, i_ball, _ = kinetree_ball(
        mesh, kt.Transform(kt.Rotation.from_body_fixed_xyz(MESH_ORIENTATION), SHAPE_LOCATION))
    force = kt.ElasticFoundationForce(forces, contacts, cset)
    force.set_body_parameters(i_ball, *EF_MESH)  # the floor gets none, as in OpenSim
    force.set_transition_velocity(TRANSITION_VELOCITY)
    return system, ball, force


def set_kinetree_state(system, ball, state, R_GB, p, w, v):
    ball.set_q_to_fit_transform(state, kt.Transform(R_GB, p))
    system.realize(state, kt.Stage.POSITION)
    ball.set_u_to_fit_velocity(state, np.r_[w, v])
    system.realize(state, kt.Stage.VELOCITY)


def kinetree_motion(system, ball, state):
    traj = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY, report_interval=REPORT,
                       progress=False)
    np.testing.assert_allclose(traj.t, report_times(), rtol=0, atol=1e-12)
    rows = []
    for s in traj.states():
        system.realize(s, kt.Stage.VELOCITY)
        X = ball.get_body_transform(s)
        rows.append((np.array(X.p), X.R.as_matrix(), ball.get_body_origin_velocity(s),
                     ball.get_body_angular_velocity(s)))
    return [np.array(column) for column in zip(*rows, strict=True)]


# ---------------------------------------------------------------------------- the cases
def report_times():
    return np.round(np.arange(round(T_FINAL / REPORT) + 1) * REPORT, 12)


def build_both(case, tmp_path):
    """(OpenSim model, its State, kinetree system, ball, contact force element, State)."""
    if case == "hunt_crossley":
        model = opensim_hunt_crossley(tmp_path)
        system, ball, force = kinetree_hunt_crossley()
    else:
        mesh_path = tmp_path / "icosphere.obj"
        assert write_icosphere(mesh_path) == 20 * 4 ** EF_SUBDIVISIONS
        model = opensim_elastic_foundation(mesh_path)
        system, ball, force = kinetree_elastic_foundation(mesh_path)
    o_state = model.initSystem()
    k_state = system.realize_topology()
    assert o_state.getNU() == k_state.get_num_u() == 6
    return model, o_state, system, ball, force, k_state


def array(v):
    return np.array([v.get(i) for i in range(v.size())])


def assert_forces_match_simbody(model, o_state, system, ball, k_state, force, reach, seed):
    """At four random penetrating states, the contact element's spatial forces on the ball
    and on Ground, and u̇, equal OpenSim's to round-off; ``reach(R_GB)`` is how far the
    shape reaches below the body origin's height at that orientation, less the offset."""
    rng = np.random.default_rng(seed)
    for _ in range(4):
        quat = rng.normal(size=4)
        R_GB = kt.Rotation.from_quaternion(quat / np.linalg.norm(quat))
        # the shape's lowest point 2-6 mm into the floor
        depth = rng.uniform(0.002, 0.006)
        p = [rng.uniform(-0.1, 0.1),
             reach(R_GB) - depth - (R_GB.as_matrix() @ SHAPE_LOCATION)[1],
             rng.uniform(-0.1, 0.1)]
        w, v = rng.uniform(-3, 3, 3), rng.uniform(-1, 1, 3)
        set_kinetree_state(system, ball, k_state, R_GB, p, w, v)
        set_opensim_state(model, o_state, R_GB, p, w, v)
        model.realizeAcceleration(o_state)
        system.realize(k_state, kt.Stage.ACCELERATION)
        # OpenSim records [force, torque] for the ball, then for the floor (Ground), about
        # each body's origin in Ground; kinetree's body forces are [torque, force]
        record = array(model.getForceSet().get("contact").getRecordValues(o_state))
        simbody = record.reshape(2, 2, 3)[:, ::-1].reshape(2, 6)
        body_forces = np.zeros((system.get_matter_subsystem().get_num_bodies(), 6))
        force.calc_force(k_state, body_forces, None, None)
        scale = np.abs(simbody).max()
        assert scale > 10.0  # in contact, well beyond round-off
        np.testing.assert_allclose(body_forces[[ball.get_mobilized_body_index(), 0]], simbody,
                                   rtol=0, atol=1e-11 * scale)
        udot = array(o_state.getUDot())
        np.testing.assert_allclose(k_state.get_u_dot(), udot, rtol=0,
                                   atol=1e-11 * np.abs(udot).max())


@pytest.mark.parametrize("case", ["hunt_crossley", "elastic_foundation"])
def test_contact_forces_match_simbody(case, tmp_path):
    model, o_state, system, ball, force, k_state = build_both(case, tmp_path)
    assert_forces_match_simbody(model, o_state, system, ball, k_state, force,
                                lambda R_GB: RADIUS, seed=7)


@pytest.mark.parametrize("case", ["hunt_crossley", "elastic_foundation"])
def test_ball_drop_simulates_like_simbody(case, tmp_path):
    model, o_state, system, ball, _, k_state = build_both(case, tmp_path)
    set_kinetree_state(system, ball, k_state, kt.Rotation(), P0, W0, V0)
    set_opensim_state(model, o_state, kt.Rotation(), P0, W0, V0)
    body = model.getBodySet().get("ball")
    V = body.getVelocityInGround(o_state)  # the Coordinate speeds made the same motion
    np.testing.assert_allclose([V.get(0).get(i) for i in range(3)], W0, atol=1e-14)
    np.testing.assert_allclose([V.get(1).get(i) for i in range(3)], V0, atol=1e-14)

    with quiet_opensim():
        p_o, R_o, v_o, w_o, middle = opensim_motion(model, o_state)
    p_k, R_k, v_k, w_k = kinetree_motion(system, ball, k_state)

    # the motion: it lands (the origin comes down to about the radius), slides and rolls
    # on, and stays clear of the Euler-angle singularity of OpenSim's FreeJoint
    assert p_o[:, 1].min() < RADIUS + 0.005
    assert p_o[-1, 0] > 0.9 and p_o[-1, 2] > 0.4
    assert np.abs(middle).max() < 1.2

    tol = TOLERANCES[case]
    for name, a, b in (("p", p_k, p_o), ("R", R_k, R_o), ("v", v_k, v_o), ("w", w_k, w_o)):
        err = np.abs(a - b).reshape(len(a), -1).max(axis=1)
        assert err.max() < tol[name], (
            f"{case}: {name} differs by {err.max():.3g} at t = "
            f"{report_times()[err.argmax()]:.2f} s (tolerance {tol[name]:.3g})")


# ------------------------------------------------------------ an ellipsoid, from the file
ELLIPSOID_RADII = (0.1, 0.06, 0.08)


def test_hunt_crossley_ellipsoid_from_file_matches_simbody(tmp_path):
    """A ContactEllipsoid (rotated, off the body origin) on the floor under OpenSim's
    HuntCrossleyForce, the model written by OpenSim and read by ``load_osim``: the contact
    forces and u̇ equal Simbody's to round-off. Simbody's older contact API takes the Hertz
    radius from the ellipsoid's central section parallel to the floor, not from the
    surface's curvature at the contact; the curvature's radius gives forces that differ by
    several percent at states like these, so this also checks that kinetree takes
    Simbody's."""
    model = opensim_ball(lambda body: osim.ContactEllipsoid(
        vec3(ELLIPSOID_RADII), vec3(SHAPE_LOCATION), vec3(MESH_ORIENTATION), body, "shape"))
    add_hunt_crossley(model, ["shape", "floor"])
    path = tmp_path / "ellipsoid.osim"
    model.printToXML(str(path))
    o_state = model.initSystem()

    loaded = kt.load_osim(path)
    assert "shape" not in [s.split()[-1] for s in loaded.skipped]
    system, ball = loaded.system, loaded.bodies["ball"]
    (element,) = loaded.force_elements["contact"]
    shape = loaded.contact.get_body_geometry(element.get_contact_set_index(), 0)
    np.testing.assert_array_equal(shape.get_radii(), ELLIPSOID_RADII)
    k_state = system.realize_topology()

    def reach(R_GB):
        """The ellipsoid's support along -y: how far below its centre it reaches."""
        R_GS = R_GB.as_matrix() @ kt.Rotation.from_body_fixed_xyz(MESH_ORIENTATION).as_matrix()
        return np.sqrt(np.sum((R_GS[1] * ELLIPSOID_RADII) ** 2))

    assert_forces_match_simbody(model, o_state, system, ball, k_state, element, reach,
                                seed=11)
