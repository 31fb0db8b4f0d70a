"""kinetree's ExponentialSpringForce against Simbody's, through OpenSim 4.6's
ExponentialContactForce: a 4 kg block (off-centre mass centre, full inertia matrix) on a
FreeJoint with a contact force at each of its eight corners against one plane, built
through OpenSim's Python API, written to a .osim file, and read by both engines (kinetree
through ``load_osim``, so the file's properties are what is tested).

Compared:

* every report of every spring (normal force and its elastic and damping parts, the
  friction force and its parts, the whole force in Ground and in the plane, μ, the
  friction limit, the next Sliding and anchor point, the station's position and
  velocity), the system's potential energy and u̇, at random states: the anchor points
  reset and then the block moved by centimetres (the friction springs saturated, the
  Sliding update 1) or by a tenth of a millimetre (Sliding's update between 0 and 1),
  random μs, μk and Sliding per spring, and the parameters varied from corner to corner
  so that the normal force's cap (max_normal_force 150 N), its floor (an upward speed
  beyond 1/cz) and the no-friction branch (μs = μk = 0) all occur: equal to round-off
  (1e-11 relative to the largest force);
* 1.5 s of motion, both with Runge-Kutta-Merson at accuracy 1e-6, the coordinates and
  speeds every 10 ms (OpenSim's Manager stops at each report time; kinetree's TimeStepper
  interpolates): a block sliding at 1 m/s with a spin on a level floor until it rests,
  and a block put down at rest on a plane inclined 20° (below the friction angles,
  atan 0.5 = 26.6° and atan 0.7 = 35°), where it stays.

The Sliding state is updated from the anchor point's speed between integrator steps
(``|Δp0| / Δt``), so the model itself depends on the step sequence, and two integrators
agree no better than one integrator does with itself at another accuracy. Measured max
differences (Linux x86-64, opensim 4.6), kinetree against OpenSim at accuracy 1e-6, and
in brackets OpenSim at 1e-6 against OpenSim at 1e-7:

    case               q angles (rad)     q translations (m)   u (rad/s, m/s)
    slide to rest      5.4e-6 [5.4e-6]    3.1e-6 [3.2e-6]      6.7e-4 [6.6e-4]
    rest on incline    1.8e-6 [1.4e-6]    8.7e-7 [6.8e-7]      1.6e-4 [1.3e-4]
    straight slide     5.4e-7 [1.5e-5]    2.9e-7 [8.0e-6]      5.6e-5 [1.5e-3]

(kinetree at 1e-6 against kinetree at 1e-7: up to 1.7e-5, 9.2e-6, 1.7e-3.) The
tolerances are about five times the first two rows' largest.

Independent checks, of kinetree alone: the
normal force is d1 exp(-d2 (pz - d0)) (1 - cz vz) at given heights and speeds, capped at
max_normal_force and floored at 0; the sliding block decelerates at μk g (Coulomb's law)
while it slides fast; on the incline the springs' forces sum to the block's weight (the
friction m g sin θ along the incline, the normal forces m g cos θ) and the block does not
drift.

OpenSim 4.6 hands a Station's location to Simbody as if it were in the body's frame even
when the Station's frame is an offset frame; kinetree puts the station where the Station
is (``test_station_on_an_offset_frame``).
"""


import numpy as np
import pytest
from test_opensim_contact import quiet_opensim
from test_opensim_joints import osim, vec3  # skips if opensim is missing

import kinetree as kt

G = 9.81
MASS = 4.0
COM = np.array([0.004, -0.003, 0.002])  # in the body frame, m
INERTIA = (0.03, 0.035, 0.04, 0.001, -0.0015, 0.0008)  # about the COM: xx yy zz xy xz yz
HALF = np.array([0.12, 0.05, 0.08])  # the block's half sides, m
CORNERS = [HALF * np.array(signs) for signs in (
    (1, -1, 1), (1, -1, -1), (-1, -1, -1), (-1, -1, 1),
    (1, 1, 1), (1, 1, -1), (-1, 1, -1), (-1, 1, 1))]
PLANE_ORIGIN = np.array([0.05, -0.01, 0.02])  # p_GP, m
SHAPE = (0.006, 0.6, 1100.0)  # d0 (m), d1 (N), d2 (1/m)
PARAMETERS = dict(normal_viscosity=0.8, friction_elasticity=25000.0, friction_viscosity=300.0,
                  settle_velocity=0.02, initial_mu_static=0.7, initial_mu_kinetic=0.5)
VARIED = {1: dict(max_normal_force=150.0),             # the cap on the normal force
          2: dict(initial_mu_static=0.0, initial_mu_kinetic=0.0)}   # no friction
"""Corners whose parameters differ, for the comparison of forces."""
ACCURACY, T_FINAL, REPORT = 1e-6, 1.5, 0.01
TILT = np.deg2rad(20.0)
TOLERANCES = {"slide": dict(angles=3e-5, translations=1.5e-5, speeds=3.5e-3),
              "incline": dict(angles=3e-5, translations=1.5e-5, speeds=3.5e-3)}
"""About five times the largest differences seen (module docstring)."""


def plane_rotation(tilt):
    """R_GP: the plane's z axis up (Ground's y), the plane turned by ``tilt`` about
    Ground's z (an incline rising along -x for tilt > 0)."""
    return kt.Rotation.about_z(tilt) @ kt.Rotation.about_x(-np.pi / 2)


def write_model(path, tilt=0.0, varied=False):
    """The block with its eight ExponentialContactForces, written to ``path`` by OpenSim;
    returns OpenSim's Model read back from it."""
    model = osim.Model()
    model.setName("block")
    model.setGravity(osim.Vec3(0, -G, 0))
    body = osim.Body("block", MASS, vec3(COM), osim.Inertia(*INERTIA))
    model.addBody(body)
    model.addJoint(osim.FreeJoint("free", model.getGround(), body))
    R = osim.Rotation()
    R.setRotationToBodyFixedXYZ(vec3(plane_rotation(tilt).convert_rotation_to_body_fixed_xyz()))
    X_GP = osim.Transform(R, vec3(PLANE_ORIGIN))
    for i, corner in enumerate(CORNERS):
        force = osim.ExponentialContactForce(X_GP, body, vec3(corner))
        force.setName(f"corner{i}")
        force.setExponentialShapeParameters(osim.Vec3(*SHAPE))
        values = {**PARAMETERS, **(VARIED.get(i, {}) if varied else {})}
        for name, value in values.items():
            getattr(force, "set" + "".join(w.capitalize() for w in name.split("_")))(value)
        model.addForce(force)
    model.finalizeConnections()
    model.printToXML(str(path))
    return osim.Model(str(path))


def build_both(tmp_path, tilt=0.0, varied=False):
    """(OpenSim model, its State, kinetree Model, its State, OpenSim's springs,
    kinetree's springs)."""
    path = tmp_path / "block.osim"
    model = write_model(path, tilt, varied)
    o_state = model.initSystem()
    loaded = kt.load_osim(path)
    k_state = loaded.get_default_state()
    o_springs = [osim.ExponentialContactForce.safeDownCast(
        model.getForceSet().get(f"corner{i}")) for i in range(8)]
    k_springs = []
    for i in range(8):
        (spring,) = loaded.force_elements[f"corner{i}"]
        k_springs.append(spring)
    return model, o_state, loaded, k_state, o_springs, k_springs


def coordinate_names(model):
    return [model.getCoordinateSet().get(i).getName() for i in range(6)]


def set_coordinates(model, o_state, loaded, k_state, q, u):
    """The FreeJoint's coordinates (body-fixed x-y-z angles, then the translation) and
    speeds, by name, in both."""
    for name, value, speed in zip(coordinate_names(model), q, u, strict=True):
        coordinate = model.getCoordinateSet().get(name)
        coordinate.setValue(o_state, float(value), False)
        coordinate.setSpeedValue(o_state, float(speed))
        loaded.coordinates[name].set_value(k_state, float(value))
        loaded.coordinates[name].set_speed_value(k_state, float(speed))
    model.realizeVelocity(o_state)


def vector(v):
    return np.array([v.get(i) for i in range(v.size())])


def resting_pose(tilt):
    """(q, u): the block at rest on the plane, its bottom parallel to it and its corners
    about where the normal forces carry its weight."""
    R_GB = kt.Rotation.about_z(tilt)
    p_GB = PLANE_ORIGIN + R_GB.as_matrix() @ np.array([0.0, HALF[1] + 0.0035, 0.0])
    return np.r_[R_GB.convert_rotation_to_body_fixed_xyz(), p_GB], np.zeros(6)


# ------------------------------------------------------------------------- the loader
def test_load_osim_builds_the_contact_forces(tmp_path):
    model, _, loaded, k_state, o_springs, k_springs = build_both(tmp_path, TILT, True)
    assert not [s for s in loaded.skipped if "ExponentialContactForce" in s]
    for i, (o, k) in enumerate(zip(o_springs, k_springs, strict=True)):
        p = k.get_parameters()
        assert np.array_equal(p.get_shape_parameters(), vector(o.getExponentialShapeParameters()))
        for name in ("normal_viscosity", "max_normal_force", "friction_elasticity",
                     "friction_viscosity", "settle_velocity", "initial_mu_static",
                     "initial_mu_kinetic"):
            osim_getter = "get" + "".join(w.capitalize() for w in name.split("_"))
            assert getattr(p, "get_" + name)() == getattr(o, osim_getter)(), (i, name)
        assert np.array_equal(k.get_station(), CORNERS[i])
        X = k.get_contact_plane_transform()
        np.testing.assert_allclose(X.R.as_matrix(), plane_rotation(TILT).as_matrix(),
                                   rtol=0, atol=1e-15)
        assert np.array_equal(X.p, PLANE_ORIGIN)
        assert k.get_mu_static(k_state) == p.get_initial_mu_static()
    assert k_springs[2].get_mu_static(k_state) == k_springs[2].get_mu_kinetic(k_state) == 0.0


def test_station_on_an_offset_frame(tmp_path):
    """A Station's location is in its frame; OpenSim 4.6 passes it to Simbody as if it
    were in the body's (its getStationPosition differs from the Station's
    getLocationInGround by the offset); kinetree's station is the Station's."""
    model = osim.Model()
    body = osim.Body("block", 2.0, osim.Vec3(0), osim.Inertia(0.01, 0.01, 0.01))
    model.addBody(body)
    model.addJoint(osim.FreeJoint("free", model.getGround(), body))
    foot = osim.PhysicalOffsetFrame("foot", body, osim.Transform(
        osim.Rotation(0.3, osim.CoordinateAxis(2)), osim.Vec3(0.02, -0.03, 0.01)))
    body.addComponent(foot)
    force = osim.ExponentialContactForce(osim.Transform(), foot, osim.Vec3(0.1, 0, 0))
    force.setName("contact")
    model.addForce(force)
    model.finalizeConnections()
    path = tmp_path / "offset.osim"
    model.printToXML(str(path))
    model = osim.Model(str(path))
    o_state = model.initSystem()
    loaded = kt.load_osim(path)
    k_state = loaded.get_default_state()
    q = [0.2, -0.1, 0.4, 0.1, 0.5, -0.2]
    set_coordinates(model, o_state, loaded, k_state, q, np.zeros(6))
    model.realizeDynamics(o_state)
    loaded.system.realize(k_state, kt.Stage.DYNAMICS)
    o_force = osim.ExponentialContactForce.safeDownCast(model.getForceSet().get("contact"))
    station = vector(o_force.getStation().getLocationInGround(o_state))
    (spring,) = loaded.force_elements["contact"]
    np.testing.assert_allclose(spring.get_station_position(k_state), station, rtol=0,
                               atol=1e-15)
    simbody = vector(o_force.getStationPosition(o_state))
    assert np.abs(simbody - station).max() > 0.01      # OpenSim's, off by the offset


# ------------------------------------------------------------------------- the forces
REPORTS = {
    "force": lambda s, st: s.get_force(st), "force_P": lambda s, st: s.get_force(st, False),
    "normal": lambda s, st: s.get_normal_force(st),
    "normal_elastic": lambda s, st: s.get_normal_force_elastic_part(st),
    "normal_damping": lambda s, st: s.get_normal_force_damping_part(st),
    "friction": lambda s, st: s.get_friction_force(st),
    "friction_elastic": lambda s, st: s.get_friction_force_elastic_part(st),
    "friction_damping": lambda s, st: s.get_friction_force_damping_part(st),
    "friction_P": lambda s, st: s.get_friction_force(st, False),
    "mu": lambda s, st: s.get_mu(st), "limit": lambda s, st: s.get_friction_force_limit(st),
    "sliding": lambda s, st: s.get_sliding(st),
    "anchor": lambda s, st: s.get_anchor_point_position(st),
    "anchor_P": lambda s, st: s.get_anchor_point_position(st, False),
    "station": lambda s, st: s.get_station_position(st),
    "station_velocity": lambda s, st: s.get_station_velocity(st),
}
"""kinetree's report of a spring; OpenSim's is the getter of the same name in camelCase
(``get_friction_force_elastic_part`` -> ``getFrictionForceElasticPart``)."""


def opensim_report(o, state, name):
    getter, in_ground = {
        "force": ("getForce", True), "force_P": ("getForce", False),
        "normal": ("getNormalForce", True),
        "normal_elastic": ("getNormalForceElasticPart", True),
        "normal_damping": ("getNormalForceDampingPart", True),
        "friction": ("getFrictionForce", True),
        "friction_elastic": ("getFrictionForceElasticPart", True),
        "friction_damping": ("getFrictionForceDampingPart", True),
        "friction_P": ("getFrictionForce", False), "mu": ("getMu", None),
        "limit": ("getFrictionForceLimit", None), "sliding": ("getSliding", None),
        "anchor": ("getAnchorPointPosition", True),
        "anchor_P": ("getAnchorPointPosition", False),
        "station": ("getStationPosition", True),
        "station_velocity": ("getStationVelocity", True)}[name]
    if in_ground is None:
        return getattr(o, getter)(state)
    return vector(getattr(o, getter)(state, in_ground))


@pytest.mark.parametrize("move", ["centimetres", "tenth_mm"])
def test_forces_match_simbody(move, tmp_path):
    model, o_state, loaded, k_state, o_springs, k_springs = build_both(tmp_path, 0.0, True)
    rng = np.random.default_rng(11 if move == "centimetres" else 12)
    scale = 0.02 if move == "centimetres" else 1e-4
    seen_sliding, seen_capped, seen_floored = [], False, False
    for trial in range(6):
        # the anchor points reset where the block is
        o_state.setTime(0.0)
        k_state.set_time(0.0)
        q0, _ = resting_pose(0.0)
        q0 = q0 + np.r_[rng.uniform(-0.05, 0.05, 3), rng.uniform(-0.1, 0.1), 0.0,
                        rng.uniform(-0.1, 0.1)]
        set_coordinates(model, o_state, loaded, k_state, q0, np.zeros(6))
        osim.ExponentialContactForce.resetAnchorPoints(model, o_state)
        for spring in k_springs:
            spring.reset_anchor_point(k_state)
        # then moved, its lowest corner 3-8 mm below d0, and given a velocity
        loaded.system.realize(k_state, kt.Stage.POSITION)
        low = min(s.get_station_position(k_state, False)[2] for s in k_springs)
        q = q0 + np.r_[rng.uniform(-scale, scale, 3), rng.uniform(-scale, scale),
                       SHAPE[0] - low - rng.uniform(0.003, 0.008), rng.uniform(-scale, scale)]
        u = rng.uniform(-0.5, 0.5, 6)
        if trial == 5:
            u[4] = 2.0          # upward faster than 1/cz: the normal force floored at 0
        set_coordinates(model, o_state, loaded, k_state, q, u)
        o_state.setTime(0.01)
        k_state.set_time(0.01)
        # random μs, μk and Sliding (the anchor points last changed at t = 0)
        for i, (o, k) in enumerate(zip(o_springs, k_springs, strict=True)):
            if i == 2:
                continue                    # its μs = μk = 0
            mus = rng.uniform(0.3, 1.0)
            muk = rng.uniform(0.1, mus)
            sliding = rng.uniform(0.0, 1.0)
            o.setMuStatic(o_state, mus)
            o.setMuKinetic(o_state, muk)
            o.setDiscreteVariableValue(o_state, "sliding", sliding)
            k.set_mu_static(k_state, mus)
            k.set_mu_kinetic(k_state, muk)
            slots = k.get_state_slots()
            loaded.forces.upd_discrete_variable(
                k_state, k.get_sliding_state_index())[slots["sliding"]] = sliding
        model.realizeAcceleration(o_state)
        loaded.system.realize(k_state, kt.Stage.ACCELERATION)

        largest = max(np.abs(opensim_report(o, o_state, name)).max() for o in o_springs
                      for name in ("force", "normal_elastic"))
        assert largest > 5.0                        # in contact, well beyond round-off
        for i, (o, k) in enumerate(zip(o_springs, k_springs, strict=True)):
            for name, report in REPORTS.items():
                # forces to 1e-11 of the largest; μ and Sliding (from the anchor point's
                # move, a difference of positions) to 1e-10; positions and velocities
                # (m, m/s) to 1e-14
                atol = {"mu": 1e-10, "sliding": 1e-10, "anchor": 1e-14, "anchor_P": 1e-14,
                        "station": 1e-14, "station_velocity": 1e-14}.get(
                            name, 1e-11 * largest)
                np.testing.assert_allclose(
                    report(k, k_state), opensim_report(o, o_state, name), rtol=0,
                    atol=atol, err_msg=f"corner {i}: {name}")
            fz = k.get_normal_force(k_state, False)[2]
            seen_capped |= fz == 150.0
            seen_floored |= fz == 0.0 and k.get_normal_force_elastic_part(k_state)[1] > 1.0
            if i != 2:
                seen_sliding.append(k.get_sliding(k_state))
        assert k_springs[2].get_friction_force_limit(k_state) == 0.0
        np.testing.assert_allclose(
            loaded.system.calc_potential_energy(k_state),
            model.calcPotentialEnergy(o_state), rtol=1e-13, atol=0)
        udot = vector(o_state.getUDot())
        np.testing.assert_allclose(k_state.get_u_dot(), udot, rtol=0,
                                   atol=1e-11 * np.abs(udot).max())
    assert seen_capped and seen_floored
    seen_sliding = np.array(seen_sliding)
    if move == "centimetres":       # the anchor points ran: Sliding's update is 1
        assert np.mean(seen_sliding == 1.0) > 0.9
    else:                           # crept: some updates between 0 and 1
        assert np.sum((seen_sliding > 0.01) & (seen_sliding < 0.99)) >= 5


# ------------------------------------------------------------------------- the motion
def report_times():
    return np.round(np.arange(round(T_FINAL / REPORT) + 1) * REPORT, 12)


def opensim_motion(model, o_state):
    names = coordinate_names(model)
    manager = osim.Manager(model)
    manager.setIntegratorMethod(osim.Manager.IntegratorMethod_RungeKuttaMerson)
    manager.setIntegratorAccuracy(ACCURACY)
    manager.initialize(o_state)
    rows = []
    with quiet_opensim():
        for t in report_times():
            s = manager.integrate(t) if t > 0 else o_state
            assert s.getTime() == pytest.approx(t, abs=1e-12)
            coordinates = [model.getCoordinateSet().get(n) for n in names]
            rows.append(np.r_[[c.getValue(s) for c in coordinates],
                              [c.getSpeedValue(s) for c in coordinates]])
    return np.array(rows)


class Forces(kt.PeriodicEventReporter):
    """Each spring's normal and friction forces in Ground (N) and its Sliding at each
    report."""

    def __init__(self, springs):
        super().__init__(REPORT)
        self.springs, self.rows = springs, []

    def handle_event(self, state):
        self.rows.append((state.get_time(),
                          np.array([s.get_normal_force(state) for s in self.springs]),
                          np.array([s.get_friction_force(state) for s in self.springs]),
                          np.array([s.get_sliding(state) for s in self.springs])))


def kinetree_motion(loaded, k_state, springs, names):
    forces = Forces(springs)
    loaded.system.add_event_reporter(forces)
    integ = kt.RungeKuttaMersonIntegrator(loaded.system)
    integ.set_accuracy(ACCURACY)
    stepper = kt.TimeStepper(loaded.system, integ)
    stepper.initialize(k_state)
    rows = []
    for t in report_times():
        if t > 0:
            stepper.step_to(t)
        s = stepper.get_state()
        assert s.get_time() == pytest.approx(t, abs=1e-12)
        rows.append(np.r_[[loaded.coordinates[n].get_value(s) for n in names],
                          [loaded.coordinates[n].get_speed_value(s) for n in names]])
    return np.array(rows), forces.rows


def run_both(tmp_path, tilt, u0):
    model, o_state, loaded, k_state, _, k_springs = build_both(tmp_path, tilt)
    q0, _ = resting_pose(tilt)
    set_coordinates(model, o_state, loaded, k_state, q0, u0)
    osim.ExponentialContactForce.resetAnchorPoints(model, o_state)
    for spring in k_springs:
        spring.reset_anchor_point(k_state)
    o_rows = opensim_motion(model, o_state)
    k_rows, forces = kinetree_motion(loaded, k_state, k_springs, coordinate_names(model))
    return o_rows, k_rows, forces


def assert_close_motion(case, o_rows, k_rows):
    tol = TOLERANCES[case]
    for name, columns in (("angles", slice(0, 3)), ("translations", slice(3, 6)),
                          ("speeds", slice(6, 12))):
        err = np.abs(k_rows[:, columns] - o_rows[:, columns]).max(axis=1)
        assert err.max() < tol[name], (
            f"{case}: {name} differ by {err.max():.3g} at t = "
            f"{report_times()[err.argmax()]:.2f} s (tolerance {tol[name]:.3g})")


def test_block_slides_to_rest_like_simbody(tmp_path):
    u0 = np.array([0.0, 0.3, 0.0, 1.0, 0.0, 0.2])    # spinning about y, sliding along x
    o_rows, k_rows, _ = run_both(tmp_path, 0.0, u0)
    assert_close_motion("slide", o_rows, k_rows)
    # it slid about v0²/(2 μk g) = 0.1 m, and rests
    x = k_rows[:, 3]
    assert 0.09 < x[-1] - x[0] < 0.12
    assert np.abs(k_rows[-20:, 6:]).max() < 2e-3
    assert np.ptp(k_rows[-50:, 3:6], axis=0).max() < 2e-5     # no drift once at rest


def test_sliding_block_decelerates_at_mu_kinetic_g(tmp_path):
    """Coulomb's law: while the block slides fast (Sliding 1, the damping past its limit)
    each corner's friction is μk times its normal force, against the slip, so the
    block's momentum obeys m Δvx = -μk ∫Σfz dt = -μk m (g Δt + Δvy): it slows at μk g
    but for the small vertical bounce."""
    _, k_rows, forces = run_both(tmp_path, 0.0, np.array([0, 0, 0, 1.0, 0, 0]))
    t, vx, vy = report_times(), k_rows[:, 9], k_rows[:, 10]
    mu_k = PARAMETERS["initial_mu_kinetic"]
    fast = np.flatnonzero((vx < 0.9) & (vx > 0.1))
    i, j = fast[0], fast[-1]
    assert t[j] - t[i] > 0.1
    assert vx[j] - vx[i] == pytest.approx(-mu_k * (G * (t[j] - t[i]) + vy[j] - vy[i]),
                                          rel=2e-3)
    for time, normal, friction, sliding in forces:
        if 0.1 < np.interp(time, t, vx) < 0.9:
            bottom = slice(0, 4)            # the four lower corners carry the block
            assert np.all(sliding[bottom] == 1.0)
            np.testing.assert_allclose(np.linalg.norm(friction[bottom], axis=1),
                                       mu_k * np.linalg.norm(normal[bottom], axis=1),
                                       rtol=1e-12)


def test_block_rests_on_an_incline_like_simbody(tmp_path):
    o_rows, k_rows, forces = run_both(tmp_path, TILT, np.zeros(6))
    assert_close_motion("incline", o_rows, k_rows)
    # it stays put: after the friction springs take the load (a fifth of a millimetre)
    # and while the rocking dies down, its origin moves less than a micrometre along
    # the plane in the last half second, where friction of damping alone
    # (m g sin θ / (4 cxy) = 1.1 cm/s) would creep 5 mm
    in_plane = (k_rows[:, 3:6] - k_rows[0, 3:6]) @ plane_rotation(TILT).as_matrix()[:, :2]
    assert np.abs(in_plane).max() < 1e-3
    settled = report_times() >= 1.0
    assert np.ptp(in_plane[settled], axis=0).max() < 1e-6
    assert np.all(forces[-1][3][:4] == 0.0)         # the lower corners' Sliding: fixed
    # the springs carry the weight: friction m g sin θ along the incline, normal forces
    # m g cos θ along its normal (averaged over the last half second, as the rocking
    # dies down)
    normal = np.mean([row[1].sum(axis=0) for row in forces if row[0] >= 1.0], axis=0)
    friction = np.mean([row[2].sum(axis=0) for row in forces if row[0] >= 1.0], axis=0)
    n = plane_rotation(TILT).as_matrix()[:, 2]
    weight = MASS * G
    np.testing.assert_allclose(normal + friction, [0.0, weight, 0.0], rtol=0,
                               atol=2e-4 * weight)
    assert np.linalg.norm(friction) == pytest.approx(weight * np.sin(TILT), rel=2e-4)
    assert normal @ n == pytest.approx(weight * np.cos(TILT), rel=2e-4)


# ------------------------------------------------------------------------- analytic
def test_normal_force_is_the_exponential():
    """fz = d1 exp(-d2 (pz - d0)) (1 - cz vz), in [0, max_fz], at given heights and
    normal speeds of a station of a slider above a tilted plane."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    body = kt.MobilizedBody.Translation(
        matter.Ground(), kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(1))))
    X_GP = kt.Transform(kt.Rotation.about_axis(0.4, [1, 2, 3]), [0.1, -0.2, 0.3])
    d0, d1, d2 = SHAPE
    cz, max_fz = 0.8, 300.0
    params = kt.ExponentialSpringParameters().set_shape_parameters(d0, d1, d2)
    params.set_normal_viscosity(cz).set_max_normal_force(max_fz)
    station = np.array([0.02, -0.01, 0.03])
    spring = kt.ExponentialSpringForce(forces, X_GP, body, station, params)
    state = system.realize_topology()
    normal = X_GP.R.as_matrix()[:, 2]
    for pz in (0.03, 0.01, d0, 0.002, 0.0, -0.002):
        for vz in (-1.0, -0.1, 0.0, 0.5, 1.0 / cz, 2.0):
            # the station at height pz above the plane, moving at vz along its normal
            p_G = X_GP.p + pz * normal + 0.05 * X_GP.R.as_matrix()[:, 0]
            body.set_q_to_fit_translation(state, p_G - station)
            body.set_u_to_fit_linear_velocity(state, vz * normal)
            system.realize(state, kt.Stage.DYNAMICS)
            elastic = d1 * np.exp(-d2 * (pz - d0))
            expected = min(max(elastic * (1.0 - cz * vz), 0.0), max_fz)
            fz = spring.get_normal_force(state, False)[2]
            # (to round-off of pz, 1e-16 m, amplified d2 times, and of 1 - cz vz)
            assert fz == pytest.approx(expected, rel=1e-12,
                                       abs=1e-12 * elastic * (1.0 + cz * abs(vz))), (pz, vz)
            assert spring.get_station_position(state, False)[2] == pytest.approx(pz, abs=1e-14)
            np.testing.assert_allclose(spring.get_normal_force(state), fz * normal,
                                       rtol=0, atol=1e-12 * max(fz, 1.0))
