"""Simbody's TestExponentialSpring, ported: ExponentialSpringParameters' setters, getters
and comparisons; an ExponentialSpringForce's construction, its per-State μs and μk (kept
0 <= μk <= μs), the stage each of its getters needs, resetting its anchor point; then a
10 kg block (half side 0.1 m, free) with a spring at each of its eight corners against a
floor and eight more against a wall tilted 60° about y, run with Runge-Kutta-Merson at
accuracy 1e-5 (steps at most 10 ms) from each of Simbody's sets of initial conditions
(dropped, sliding, spinning, spinning and sliding, spinning like a top, tumbling), with
and without damping and friction and once on a floor turned -15° about its normal. At
every state a periodic reporter (1/60 s) recorded, every spring's reports must be
consistent (normal force along the normal, parts summing to the whole in both frames,
μk <= μ <= μs, the friction at most μ fz, the anchor point in the plane, the station where
the body puts it); without damping and friction the energy at each state a triggered
reporter took at the body's turning points (its origin's vertical speed crossing zero)
must stay within t · 1e-5 of the first one's.

As in Simbody, a reporter stores a copy of the State realized only through INSTANCE
(Simbody's State copy keeps the cache through Instance): here ``copy()`` then
``invalidate_all(TIME)``. Simbody's ``getDiscreteVariable(state, index)`` of one spring's
μs, μk, Sliding or anchor point reads the one value; kinetree keeps the four of every
spring of a force subsystem in one discrete variable, so the port reads the entry at
``get_state_slots()``. Simbody's own oddities are kept: the "minmax" checks re-check the
periodic states, and the energy checks of the wall springs use a floor spring.
"""

import numpy as np
import pytest
from simtk_testing import assert_eq, assert_eq_tol

import kinetree as kt

VIZ_OFF = True    # Simbody's global flag turning off the visualization (none here)


class SimulationOptions:
    """Which initial conditions (1..7), damping, friction, the floor's tilt about its
    normal (deg), and the final time (s)."""

    def __init__(self, condition, damping, friction, tilt, tf):
        self.condition = condition
        self.damping = damping
        self.friction = friction
        self.viz = False
        self.tilt = tilt
        self.tf = tf


def simulation_copy(state):
    """A copy of ``state`` as Simbody copies a State: variables, and the cache only
    through INSTANCE."""
    copied = state.copy()
    copied.invalidate_all(kt.Stage.TIME)
    return copied


# =============================================================================== reporters
class PeriodicStateRecorder(kt.PeriodicEventReporter):
    """Records the State at a regular interval."""

    def __init__(self, report_interval):
        super().__init__(report_interval)
        self.storage = []

    def handle_event(self, state):
        self.storage.append(simulation_copy(state))

    def clear_state_array(self):
        self.storage.clear()

    def get_state_array(self):
        return self.storage


class MinMaxHeightStateRecorder(kt.TriggeredEventReporter):
    """Records the State where the body's origin reaches a lowest or highest point (its
    vertical velocity changes sign), so that contact events the periodic reporter could
    step over are checked too."""

    def __init__(self, system, body):
        super().__init__(kt.Stage.VELOCITY)
        self.system, self.body = system, body
        self.storage = []
        self.get_trigger_info().set_trigger_on_rising_sign_transition(True)

    def get_value(self, state):
        vel = self.body.get_body_origin_velocity(state)
        return vel[1]

    def handle_event(self, state):
        self.system.realize(state, kt.Stage.VELOCITY)
        self.body.get_body_origin_location(state)
        self.body.get_body_origin_velocity(state)
        self.storage.append(simulation_copy(state))

    def clear_state_array(self):
        self.storage.clear()

    def get_state_array(self):
        return self.storage


# =============================================================================== sub tests
@pytest.mark.parametrize("condition, damping, friction, tilt, tf", [
    pytest.param(1, False, False, 0.0, 2.4, id="VerticalBounceNoDampNoFric"),
    pytest.param(1, False, True, 0.0, 2.4, id="VerticalBounceNoDampWithFric"),
    pytest.param(1, True, False, 0.0, 3.0, id="VerticalBounceWithDampNoFric"),
    pytest.param(1, True, True, 0.0, 3.0, id="VerticalBounceWithDampWithFric"),
    pytest.param(2, False, False, 0.0, 1.0, id="SlideNoDampNoFric"),
    pytest.param(2, True, True, 0.0, 3.0, id="SlideWithDampWithFric"),
    pytest.param(3, False, False, 0.0, 2.0, id="SpinNoDampNoFric"),
    pytest.param(3, True, True, 0.0, 3.0, id="SpinWithDampWithFric"),
    pytest.param(3, True, True, -15.0, 8.0, id="SpinWithDampWithFricTilt15"),
    pytest.param(4, False, False, 0.0, 0.8, id="SpinAndSlideNoDampNoFric"),
    pytest.param(4, False, True, 0.0, 1.6, id="SpinAndSlideNoDampWithFric"),
    pytest.param(4, True, False, 0.0, 1.6, id="SpinAndSlideWithDampNoFric"),
    pytest.param(4, True, True, 0.0, 5.5, id="SpinAndSlideWithDampWithFric"),
    pytest.param(5, False, False, 0.0, 2.0, id="SpinLikeTopNoDampNoFric"),
    pytest.param(5, True, True, 0.0, 2.0, id="SpinLikeTopWithDampWithFric"),
    pytest.param(6, False, False, 0.0, 2.2, id="TumbleNoDampNoFric"),
    pytest.param(6, True, True, 0.0, 10.0, id="TumbleWithDampWithFric"),
])
def test_block(condition, damping, friction, tilt, tf):
    """testBlock<Motion><Damping><Friction>: simulateBlock with these options."""
    options = SimulationOptions(condition, damping, friction, tilt, tf)
    if VIZ_OFF:
        options.viz = False
    simulate_block(options)


# ====================================================================== the routines
def simulate_block(options):
    """A 10 kg block (mobilized by a Free joint) bouncing and sliding on the floor, an
    ExponentialSpringForce at each corner, and a second plane, a wall, with eight more;
    then the springs' calculations checked at the recorded states."""
    # The system and its basic subsystems.
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0.0, -9.8, 0.0])

    # The corners of the block.
    hs = 0.1
    corner = [np.array(c) for c in (
        (hs, -hs, hs), (hs, -hs, -hs), (-hs, -hs, -hs), (-hs, -hs, hs),
        (hs, hs, hs), (hs, hs, -hs), (-hs, hs, -hs), (-hs, hs, hs))]

    # The mobilized body.
    body_props = kt.Body.Rigid(kt.MassProperties(10.0, [0, 0, 0], kt.Inertia(1)))
    body = kt.MobilizedBody.Free(matter.Ground(), body_props)

    # Parameters: damping, friction.
    params = kt.ExponentialSpringParameters()
    if not options.damping:
        params.set_normal_viscosity(0.0)
        params.set_friction_viscosity(0.0)
    muk, mus = 0.25, 0.5
    if not options.friction:
        muk = mus = 0.0
    params.set_initial_mu_static(mus)
    params.set_initial_mu_kinetic(muk)

    # The floor plane: its z axis first pointed up (-90° about x), then turned about
    # Ground's z by the tilt (a space-fixed sequence).
    angle1 = np.deg2rad(-90.0)
    angle2 = np.deg2rad(options.tilt)
    R = kt.Rotation.about_z(angle2) @ kt.Rotation.about_x(angle1)
    floor_plane = kt.Transform(R, [0.0, 0.0, 0.0])
    spr_floor = [kt.ExponentialSpringForce(forces, floor_plane, body, corner[i], params)
                 for i in range(8)]

    # The wall plane: 1.5 m along +x, turned -60° about y so that the motion it makes is
    # not aligned with the coordinate axes.
    angle = np.deg2rad(-60.0)
    r = kt.Rotation.about_y(angle)
    wall_plane = kt.Transform(r, [1.5, 0.0, 0.0])
    spr_wall = [kt.ExponentialSpringForce(forces, wall_plane, body, corner[i], params)
                for i in range(8)]

    # The reporters.
    periodic_recorder = PeriodicStateRecorder(1.0 / 60.0)
    system.add_event_reporter(periodic_recorder)
    minmax_recorder = MinMaxHeightStateRecorder(system, body)
    system.add_event_reporter(minmax_recorder)

    # Realize through MODEL (construct the State).
    system.realize_topology()
    state = system.get_default_state()
    system.realize_model(state)

    # The initial conditions of the block.
    R = kt.Rotation.about_x(0.0)             # no rotation
    x = np.array([0.5, 0.11, 0.0])           # a hair above the floor
    w = np.zeros(3)                          # no angular velocity
    u = np.zeros(6)                          # all speeds 0
    if options.condition == 1:               # dropped
        x = np.array([0.5, 1.0, 0.0])
    elif options.condition == 2:             # sliding
        x = np.array([-0.5, 0.11, 0.0])
        u = np.array([0, 0, 0, 4.0, 0, 0])
    elif options.condition == 3:             # spinning
        w = np.array([0.0, 8.0, 0.0])
    elif options.condition == 4:             # sliding and spinning
        u = np.array([0, 0, 0, 2.0, 0, 0])
        w = np.array([0.0, 12.0, 0.0])
    elif options.condition == 5:             # spinning top
        R = kt.Rotation.about_axis(np.deg2rad(54.74), [1, 0, 1])
        x = np.array([0.5, 0.20, 0.0])
        w = np.array([0.0, 12.0, 0.0])
    elif options.condition == 6:             # tumbling
        x = np.array([-1.0, 1.0, 0.5])
        u = np.array([0, 0, 0, 4.0, 0, 0])
        w = np.array([-1.0, 0.0, -6.0])
    elif options.condition == 7:             # corner shot
        x = np.array([0.0, 2.5, 1.0])
        u = np.array([0, 0, 0, 2.0, 0, -2.0])
        w = np.array([-2.0, 0.0, 0.0])
    body.set_q_to_fit_rotation(state, R)
    body.set_q_to_fit_translation(state, x)
    body.set_u(state, u)
    body.set_u_to_fit_angular_velocity(state, w)

    # Reset the spring zeros.
    for i in range(8):
        spr_floor[i].reset_anchor_point(state)
        spr_wall[i].reset_anchor_point(state)

    # Simulate.
    integ = kt.RungeKuttaMersonIntegrator(system)
    acc = 1.0e-5
    integ.set_accuracy(acc)
    integ.set_maximum_step_size(0.01)
    ts = kt.TimeStepper(system, integ)
    ts.initialize(state)
    ts.step_to(options.tf)

    # The recorded state arrays.
    periodic_array = periodic_recorder.get_state_array()
    minmax_array = minmax_recorder.get_state_array()
    assert len(periodic_array) >= 60 * options.tf     # (not in Simbody) they were recorded

    # Getting data before DYNAMICS is realized throws.
    pstate = periodic_array[0]
    with pytest.raises(kt.StageTooLowError):
        spr_floor[0].get_normal_force(pstate)

    # The low-level checks of each spring.
    for i in range(8):
        # periodic, floor plane
        check_spring_calculations(options, system, acc, spr_floor[i], periodic_array)
        if not options.damping and not options.friction:
            check_conservation_of_energy(system, acc, spr_floor[i], minmax_array)
        # minmax, floor plane
        check_spring_calculations(options, system, acc, spr_floor[i], periodic_array)
        if not options.damping and not options.friction:
            check_conservation_of_energy(system, acc, spr_floor[i], minmax_array)
        # periodic, wall plane
        check_spring_calculations(options, system, acc, spr_wall[i], periodic_array)
        if not options.damping and not options.friction:
            check_conservation_of_energy(system, acc, spr_floor[i], minmax_array)
        # minmax, wall plane
        check_spring_calculations(options, system, acc, spr_wall[i], periodic_array)
        if not options.damping and not options.friction:
            check_conservation_of_energy(system, acc, spr_floor[i], minmax_array)


def check_spring_calculations(options, system, acc, spr, state_array):
    """The spring's forces are consistent at each recorded state."""
    if len(state_array) == 0:
        return
    for state in state_array:
        # Realize through DYNAMICS.
        system.realize(state, kt.Stage.DYNAMICS)

        # A tolerance for comparisons.
        tol = 1.0e-12

        # The normal force expressed in the contact plane.
        fz_elas = spr.get_normal_force_elastic_part(state, False)
        fz_damp = spr.get_normal_force_damping_part(state, False)
        fz = spr.get_normal_force(state, False)
        # x components are 0
        assert fz_elas[0] == 0.0
        assert fz_damp[0] == 0.0
        assert fz[0] == 0.0
        # y components are 0
        assert fz_elas[1] == 0.0
        assert fz_damp[1] == 0.0
        assert fz[1] == 0.0
        # elastic plus damping
        fz_calc = fz_elas + fz_damp
        assert_eq(fz_calc, fz)

        # The normal force expressed in Ground.
        fz_elas_G = spr.get_normal_force_elastic_part(state)
        fz_damp_G = spr.get_normal_force_damping_part(state)
        fz_G = spr.get_normal_force(state)
        fz_calc_G = fz_elas_G + fz_damp_G
        assert_eq(fz_calc_G, fz_G)

        # The same magnitude of fz in Ground and in the contact plane.
        assert_eq(np.linalg.norm(fz_G), np.linalg.norm(fz))

        # 0 <= Sliding <= 1.
        sliding = spr.get_sliding(state)
        assert sliding <= 1.0
        assert sliding >= 0.0

        # μk <= μ <= μs.
        mus = spr.get_mu_static(state)
        muk = spr.get_mu_kinetic(state)
        mu = spr.get_mu(state)
        assert muk <= mu + acc
        assert mu <= mus + acc
        if options.friction:
            assert mu > 0.0

        # The friction limit is μ fz.
        mufz = mu * fz_G
        fric_limit = spr.get_friction_force_limit(state)
        assert_eq_tol(fric_limit, np.linalg.norm(mufz), tol)

        # The friction force expressed in the contact plane.
        fric_elas = spr.get_friction_force_elastic_part(state, False)
        fric_damp = spr.get_friction_force_damping_part(state, False)
        fric = spr.get_friction_force(state, False)
        # z components are 0
        assert fric_elas[2] == 0.0
        assert fric_damp[2] == 0.0
        assert fric[2] == 0.0
        # elastic plus damping
        fric_calc = fric_elas + fric_damp
        assert_eq(fric_calc, fric)

        # The friction force expressed in Ground.
        fric_elas_G = spr.get_friction_force_elastic_part(state)
        fric_damp_G = spr.get_friction_force_damping_part(state)
        fric_G = spr.get_friction_force(state)
        fric_calc_G = fric_elas_G + fric_damp_G
        assert_eq(fric_calc_G, fric_G)

        # The same magnitude of friction in Ground and in the contact plane.
        assert_eq(np.linalg.norm(fric_G), np.linalg.norm(fric))

        # |friction| <= the friction limit.
        assert np.linalg.norm(fric) <= fric_limit + tol

        # The whole force expressed in the contact plane.
        f = spr.get_force(state, False)
        f_calc = fz_calc + fric_calc
        assert_eq(f_calc, f)

        # The whole force expressed in Ground.
        f_G = spr.get_force(state)
        f_calc_G = fz_calc_G + fric_calc_G
        assert_eq(f_calc_G, f_G)

        # The same magnitude of the whole force in Ground and in the contact plane.
        assert_eq(np.linalg.norm(f_G), np.linalg.norm(f))

        # The force is applied at the body station, expressed in Ground.
        p_G = spr.get_station_position(state)
        station = spr.get_station()
        station_G = spr.get_body().find_station_location_in_ground(state, station)
        assert_eq(station_G, p_G)

        # The spring zero lies in the contact plane.
        p0 = spr.get_anchor_point_position(state, False)
        assert p0[2] == 0.0


def check_conservation_of_energy(system, acc, spr, state_array):
    """Without damping and friction, with gravity the only other force, the energy stays
    within t · acc of its first value."""
    if len(state_array) <= 1:
        return
    # The energy at the first state.
    state0 = state_array[0]
    system.realize(state0, kt.Stage.DYNAMICS)
    energy0 = system.calc_energy(state0)
    for state in state_array:
        system.realize(state, kt.Stage.DYNAMICS)
        tol = state.get_time() * acc * energy0
        energy = system.calc_energy(state)
        assert_eq_tol(energy, energy0, tol)


# ====================================================================== initialization
def test_initialization():
    """testInitialization: 1. the parameters' setters and getters; 2. construction with
    default and other parameters; 3. realization, μs and μk, resetting the anchor
    point."""
    # ------------------------------------------- 1. Setting and getting parameters
    params, params_def = kt.ExponentialSpringParameters(), kt.ExponentialSpringParameters()

    # The default parameters.
    d0_def, d1_def, d2_def = params_def.get_shape_parameters()
    cz_def = params_def.get_normal_viscosity()
    max_fz_def = params_def.get_max_normal_force()
    kxy_def = params_def.get_friction_elasticity()
    cxy_def = params_def.get_friction_viscosity()
    v_settle_def = params_def.get_settle_velocity()
    init_mus_def = params_def.get_initial_mu_static()
    init_muk_def = params_def.get_initial_mu_kinetic()

    # Other values.
    delta = 0.1
    d0 = d0_def + delta
    d1 = d1_def + delta
    d2 = d2_def + delta
    cz = cz_def + delta
    max_fz = max_fz_def + delta
    kxy = kxy_def + delta
    cxy = cxy_def + delta
    v_settle = v_settle_def + delta
    init_mus = init_mus_def + delta
    init_muk = init_muk_def + delta

    # The equality operator.
    assert params == params_def
    params.set_shape_parameters(d0, d1, d2)
    assert not (params == params_def)
    params.set_normal_viscosity(cz)
    assert not (params == params_def)
    params.set_max_normal_force(max_fz)
    assert not (params == params_def)
    params.set_friction_elasticity(kxy)
    assert not (params == params_def)
    params.set_friction_viscosity(cxy)
    assert not (params == params_def)
    assert not (params == params_def)
    params.set_settle_velocity(v_settle)
    assert not (params == params_def)
    assert not (params == params_def)
    params.set_initial_mu_static(init_mus)
    assert not (params == params_def)
    params.set_initial_mu_kinetic(init_muk)
    assert not (params == params_def)
    # Back to the defaults, one member at a time: each combination differs.
    params.set_shape_parameters(d0_def, d1_def, d2_def)
    assert not (params == params_def)
    params.set_normal_viscosity(cz_def)
    assert not (params == params_def)
    params.set_max_normal_force(max_fz_def)
    assert not (params == params_def)
    params.set_friction_elasticity(kxy_def)
    assert not (params == params_def)
    params.set_friction_viscosity(cxy_def)
    assert not (params == params_def)
    assert not (params == params_def)
    params.set_settle_velocity(v_settle_def)
    assert not (params == params_def)
    assert not (params == params_def)
    params.set_initial_mu_static(init_mus_def)
    assert not (params == params_def)
    params.set_initial_mu_kinetic(init_muk_def)
    assert params == params_def

    # The inequality operator.
    params.set_shape_parameters(d0, d1, d2)
    assert params != params_def
    params.set_normal_viscosity(cz)
    assert params != params_def
    params.set_max_normal_force(max_fz)
    assert params != params_def
    params.set_friction_elasticity(kxy)
    assert params != params_def
    params.set_friction_viscosity(cxy)
    assert params != params_def
    assert params != params_def
    params.set_settle_velocity(v_settle)
    assert params != params_def
    assert params != params_def
    params.set_initial_mu_static(init_mus)
    assert params != params_def
    params.set_initial_mu_kinetic(init_muk)
    assert params != params_def

    # The setters, member by member.
    tol = 1.0e-10 * delta
    d0, d1, d2 = params.get_shape_parameters()
    assert_eq(d0 - d0_def, delta)
    assert_eq(d1 - d1_def, delta)
    assert_eq_tol(d2 - d2_def, delta, tol)
    assert_eq(params.get_normal_viscosity() - cz_def, delta)
    assert_eq_tol(params.get_max_normal_force() - max_fz_def, delta, tol)
    assert_eq_tol(params.get_friction_elasticity() - kxy_def, delta, tol)
    assert_eq_tol(params.get_friction_viscosity() - cxy_def, delta, tol)
    assert_eq(params.get_settle_velocity() - v_settle_def, delta)
    assert_eq(params.get_initial_mu_static() - init_mus_def, delta)
    assert_eq(params.get_initial_mu_kinetic() - init_muk_def, delta)

    # The viscosity for critical damping, with the default mass (1 kg)
    kp1 = 100000.0
    kv1 = 2.0 * np.sqrt(kp1)
    params.set_elasticity_and_viscosity_for_critical_damping(kp1)
    assert_eq(params.get_friction_viscosity(), kv1)
    # and another mass.
    mass = 20.0
    kv1 = 2.0 * np.sqrt(kp1 * mass)
    params.set_elasticity_and_viscosity_for_critical_damping(kp1, mass)
    assert_eq(params.get_friction_viscosity(), kv1)

    # Back to the other values.
    params.set_friction_elasticity(kxy)
    params.set_friction_viscosity(cxy)

    # ------------------------------ 2. Construction with default and other parameters
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0.0, -9.8, 0.0])
    body_props = kt.Body.Rigid(kt.MassProperties(10.0, [0, 0, 0], kt.Inertia(1)))

    # The contact plane: its origin 1 along x, tilted +45° about z.
    angle = 0.25 * np.pi
    plane_tilt = kt.Rotation.about_z(angle)
    plane_origin = np.array([1.0, 0.0, 0.0])

    # Several exponential springs.
    plane = kt.Transform(plane_tilt, plane_origin)
    body = kt.MobilizedBody.Free(matter.Ground(), body_props)
    station = np.array([0.1, -0.1, 0.1])
    spr_def0 = kt.ExponentialSpringForce(forces, plane, body, station)
    spr_def1 = kt.ExponentialSpringForce(forces, plane, body, station, params_def)
    spr = kt.ExponentialSpringForce(forces, plane, body, station, params)

    # The other parameters were taken.
    assert spr_def0.get_parameters() == spr_def1.get_parameters()
    assert spr.get_parameters() != spr_def0.get_parameters()
    p = spr.get_parameters()
    d0, d1, d2 = p.get_shape_parameters()
    assert_eq(d0 - d0_def, delta)
    assert_eq(d1 - d1_def, delta)
    assert_eq_tol(d2 - d2_def, delta, tol)
    assert_eq(p.get_normal_viscosity() - cz_def, delta)
    assert_eq_tol(p.get_max_normal_force() - max_fz_def, delta, tol)
    assert_eq_tol(p.get_friction_elasticity() - kxy_def, delta, tol)
    assert_eq_tol(p.get_friction_viscosity() - cxy_def, delta, tol)
    assert_eq(p.get_settle_velocity() - v_settle_def, delta)
    assert_eq(params.get_initial_mu_static() - init_mus_def, delta)
    assert_eq(params.get_initial_mu_kinetic() - init_muk_def, delta)

    # The contact plane, body and station.
    X = spr.get_contact_plane_transform()
    assert np.array_equal(X.R.as_matrix(), plane.R.as_matrix())
    assert np.array_equal(X.p, plane.p)
    assert spr.get_body() is body
    assert np.array_equal(spr.get_station(), station)

    # ---------------- 3. Realization, μs and μk, resetting the spring zeros
    # Realize through MODEL (construct the State).
    system.realize_topology()
    state = system.get_default_state()
    system.realize_model(state)

    # μs and μk through the ExponentialSpringForce API
    mus = params.get_initial_mu_static()
    assert spr.get_mu_static(state) == mus
    muk = params.get_initial_mu_kinetic()
    assert spr.get_mu_kinetic(state) == muk

    # and through the Subsystem API, at the state indices.
    subsys = spr.get_force_subsystem()
    mus_by_index = subsys.get_discrete_variable(
        state, spr.get_mu_static_state_index())[spr.get_state_slots()["mu_static"]]
    assert mus_by_index == mus
    muk_by_index = subsys.get_discrete_variable(
        state, spr.get_mu_kinetic_state_index())[spr.get_state_slots()["mu_kinetic"]]
    assert muk_by_index == muk

    # Setting μs and μk through the ExponentialSpringForce API.
    mus_new = mus + 1.0
    spr.set_mu_static(state, mus_new)
    assert spr.get_mu_static(state) == mus_new
    muk_new = muk + 1.0
    spr.set_mu_kinetic(state, muk_new)
    assert spr.get_mu_kinetic(state) == muk_new

    # μk <= μs is kept:
    # μk >= μs (μs is set to μk)
    muk_new = mus_new + 1.0
    spr.set_mu_kinetic(state, muk_new)
    assert spr.get_mu_static(state) == muk_new
    assert spr.get_mu_kinetic(state) == muk_new
    # μs <= μk (μk is set to μs)
    mus_new = mus_new - 1.5
    spr.set_mu_static(state, mus_new)
    assert spr.get_mu_static(state) == mus_new
    assert spr.get_mu_kinetic(state) == mus_new
    # μk < 0 (μk is set to 0; μs does not change)
    muk_new = -0.5
    mus_new = spr.get_mu_static(state)
    spr.set_mu_kinetic(state, muk_new)
    assert spr.get_mu_static(state) == mus_new
    assert spr.get_mu_kinetic(state) == 0.0
    # μs < 0 (μs and μk are both set to 0)
    mus_new = -0.5
    muk_new = 0.5
    spr.set_mu_kinetic(state, muk_new)
    spr.set_mu_static(state, mus_new)
    assert spr.get_mu_static(state) == 0.0
    assert spr.get_mu_kinetic(state) == 0.0

    # The initial coordinates of the body.
    R = kt.Rotation.about_x(0.0)        # no rotation
    x = np.array([0.0, 0.2, 0.0])       # 20 cm above the floor
    w = np.zeros(3)                     # no angular velocity
    u = np.zeros(6)                     # all speeds 0
    body.set_q_to_fit_rotation(state, R)
    body.set_q_to_fit_translation(state, x)
    body.set_u(state, u)
    body.set_u_to_fit_angular_velocity(state, w)

    # The stage each getter needs.
    dynamics_getters = [
        spr.get_normal_force_elastic_part, spr.get_normal_force_damping_part,
        spr.get_normal_force, spr.get_mu, spr.get_friction_force_limit,
        spr.get_friction_force_elastic_part, spr.get_friction_force_damping_part,
        spr.get_friction_force, spr.get_force, spr.get_anchor_point_position]
    # At MODEL all of them throw.
    system.realize_model(state)
    for getter in dynamics_getters + [spr.get_station_velocity, spr.get_station_position]:
        with pytest.raises(kt.StageTooLowError):
            getter(state)
    # At POSITION all but get_station_position throw.
    system.realize(state, kt.Stage.POSITION)
    for getter in dynamics_getters + [spr.get_station_velocity]:
        with pytest.raises(kt.StageTooLowError):
            getter(state)
    spr.get_station_position(state)
    # At VELOCITY all but get_station_position and get_station_velocity throw.
    system.realize(state, kt.Stage.VELOCITY)
    for getter in dynamics_getters:
        with pytest.raises(kt.StageTooLowError):
            getter(state)
    spr.get_station_velocity(state)
    spr.get_station_position(state)
    # At DYNAMICS none throws,
    system.realize(state, kt.Stage.DYNAMICS)
    for getter in dynamics_getters + [spr.get_station_velocity, spr.get_station_position]:
        getter(state)
    # nor at ACCELERATION.
    system.realize(state, kt.Stage.ACCELERATION)
    for getter in dynamics_getters + [spr.get_station_velocity, spr.get_station_position]:
        getter(state)

    # Resetting the spring zero puts it at the station's projection onto the contact
    # plane, so that the elastic part of the friction force is zero.
    # the station in Ground
    s_G = body.find_station_location_in_ground(state, station)
    # in the contact plane
    s = plane.shift_base_station_to_frame(s_G)
    # projected onto the contact plane
    p0_after = s.copy()
    p0_after[2] = 0.0
    # back in Ground
    p0_after_G = plane.shift_frame_station_to_base(p0_after)
    # the reset
    spr.reset_anchor_point(state)
    system.realize(state, kt.Stage.DYNAMICS)
    # (Simbody compares with ==, both sides being the same code there; here p0_after is
    # numpy's and the anchor point the compiled force's, equal to round-off.)
    assert_eq(p0_after, spr.get_anchor_point_position(state, False))
    assert_eq(p0_after_G, spr.get_anchor_point_position(state))
    # The elastic part of the friction force is zero.
    f_elastic = spr.get_friction_force_elastic_part(state)
    assert_eq(f_elastic, np.zeros(3))

    # The Sliding state through the Subsystem API, at its state index.
    sliding = spr.get_sliding(state)
    sliding_by_index = subsys.get_discrete_variable(
        state, spr.get_sliding_state_index())[spr.get_state_slots()["sliding"]]
    assert sliding_by_index == sliding

    # The anchor point through the Subsystem API, at its state index.
    anchor = spr.get_anchor_point_position(state, False)
    anchor_by_index = subsys.get_discrete_variable(
        state, spr.get_anchor_point_state_index())[spr.get_state_slots()["anchor_point"]]
    assert np.array_equal(anchor_by_index, anchor)
