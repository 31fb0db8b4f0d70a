"""Force.SmoothSphereHalfSpaceForce against kinetree's HuntCrossleyForce (itself checked
against Simbody through OpenSim) in the limit where the smoothing vanishes, and the
element's parameters held per State and checked where they enter.

With c_f → 0 and b_d, b_v → ∞ Simbody's smooth law is its HuntCrossleyForce between a
sphere and a half space of the same plane-strain modulus E: k^(3/2) = (½ E^(2/3))^(3/2) is
the composite E* of two equal materials (each deforming half, so the contact point is
midway), the dissipation and friction coefficients combine to themselves, and the friction
curve is the same. At c_f = 1e-16 the two differ by about (3/4) c_f / x² (relative; 7.5e-11
at the smallest depth used, 1 mm; seen at c_f = 1e-14: 6e-9, as predicted); the tanh
switches are exactly 1 at b_d = b_v = 1e7.
"""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

E, C, US, UD, UV, VT = 2e6, 1.2, 0.9, 0.6, 0.2, 0.1
RADIUS = 0.04
SPHERE_AT = np.array([0.01, -0.02, 0.005])              # in the ball's frame, m
X_PH = kt.Transform(kt.Rotation.from_body_fixed_xyz([0.2, -0.1, -1.4]), [0.03, 0.01, -0.02])


def two_bodies():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    inertia = kt.Inertia(0.01, 0.012, 0.011, 0.001, 0.0, -0.002)
    ball = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(kt.MassProperties(
        1.5, [0.002, 0.0, -0.001], inertia)))
    platform = kt.MobilizedBody.Free(matter.Ground(), kt.Body.Rigid(kt.MassProperties(
        4.0, [0.0, 0.01, 0.0], inertia)))
    return system, matter, forces, ball, platform


def smooth_element(forces, ball, platform, cf, bd, bv):
    smooth = kt.Force.SmoothSphereHalfSpaceForce(forces)
    smooth.set_parameters(E, C, US, UD, UV, VT, cf, bd, bv)
    smooth.set_contact_sphere_body(ball)
    smooth.set_contact_sphere_location_in_body(SPHERE_AT)
    smooth.set_contact_sphere_radius(RADIUS)
    smooth.set_contact_half_space_body(platform)
    smooth.set_contact_half_space_frame(X_PH)
    return smooth


def random_contact(system, ball, platform, state, rng):
    """A random pose and motion with the sphere 1-4 mm into the half space, approaching
    or leaving slowly and slipping at 0.02-1 m/s."""
    R_P = kt.Rotation.from_quaternion(rng.normal(size=4))
    p_P = rng.uniform(-0.2, 0.2, 3)
    R_GH = R_P.as_matrix() @ X_PH.R.as_matrix()
    n, e1 = R_GH[:, 0], R_GH[:, 1]
    centre = p_P + R_P.as_matrix() @ X_PH.p + 0.05 * e1 - (RADIUS - rng.uniform(1e-3, 4e-3)) * n
    R_B = kt.Rotation.from_quaternion(rng.normal(size=4))
    platform.set_q_to_fit_transform(state, kt.Transform(R_P, p_P))
    ball.set_q_to_fit_transform(state, kt.Transform(R_B, centre - R_B.as_matrix() @ SPHERE_AT))
    system.realize(state, kt.Stage.POSITION)
    V_P = rng.uniform(-1, 1, 6)                    # [w; v] of the platform in Ground
    platform.set_u_to_fit_velocity(state, V_P)
    # the centre moves at `slip` relative to the platform's point there; the contact point
    # lies along n from it, so the spins add only tangential slip
    slip = rng.uniform(0.02, 1.0) * R_GH[:, 2] + rng.uniform(-0.05, 0.1) * n
    v_centre = slip + V_P[3:] + np.cross(V_P[:3], centre - p_P)
    w_B = rng.uniform(-2, 2, 3)
    p_B = centre - R_B.as_matrix() @ SPHERE_AT
    ball.set_u_to_fit_velocity(state, np.r_[w_B, v_centre + np.cross(w_B, p_B - centre)])
    system.realize(state, kt.Stage.VELOCITY)


def test_sharp_limit_is_hunt_crossley_force():
    system, matter, forces, ball, platform = two_bodies()
    smooth = smooth_element(forces, ball, platform, 1e-16, 1e7, 1e7)
    contacts = kt.GeneralContactSubsystem(system)
    cset = contacts.create_contact_set()
    i_ball = contacts.add_body(cset, ball, kt.ContactGeometry.Sphere(RADIUS),
                               kt.Transform(kt.Rotation(), SPHERE_AT))
    i_floor = contacts.add_body(cset, platform, kt.ContactGeometry.HalfSpace(), X_PH)
    hunt_crossley = kt.HuntCrossleyForce(forces, contacts, cset)
    for index in (i_ball, i_floor):
        hunt_crossley.set_body_parameters(index, E, C, US, UD, UV)
    hunt_crossley.set_transition_velocity(VT)
    state = system.realize_topology()
    rng = np.random.default_rng(11)
    for _ in range(8):
        random_contact(system, ball, platform, state, rng)
        ours, theirs = (np.zeros((3, 6)) for _ in range(2))
        smooth.calc_force(state, ours, None, np.zeros(12))
        hunt_crossley.calc_force(state, theirs, None, np.zeros(12))
        scale = np.abs(theirs).max()
        assert scale > 1.0
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-9 * scale)
        assert smooth.calc_potential_energy(state) == pytest.approx(
            hunt_crossley.calc_potential_energy(state), rel=1e-9)


def test_parameters_per_state_and_their_checks():
    system, matter, forces, ball, platform = two_bodies()
    smooth = smooth_element(forces, ball, platform, 1e-5, 300.0, 50.0)
    state = system.realize_topology()
    random_contact(system, ball, platform, state, np.random.default_rng(2))
    system.realize(state, kt.Stage.DYNAMICS)

    # each per-State setter changes that State's value only, backing it up to VELOCITY
    for name, value in (("stiffness", 3e6), ("dissipation", 0.5), ("static_friction", 1.1),
                        ("dynamic_friction", 0.3), ("viscous_friction", 0.0),
                        ("transition_velocity", 0.2), ("constant_contact_force", 2e-5),
                        ("hertz_smoothing", 500.0), ("hunt_crossley_smoothing", 80.0)):
        trial = state.copy()
        getattr(smooth, f"set_{name}")(trial, value)
        assert trial.get_system_stage() == kt.Stage.VELOCITY
        assert getattr(smooth, f"get_{name}")(trial) == value
        assert getattr(smooth, f"get_{name}")(state) == getattr(smooth, f"get_{name}")()
    trial = state.copy()
    smooth.set_contact_sphere_radius(trial, 0.05)
    smooth.set_contact_sphere_location_in_body(trial, [0, 0, 0])
    smooth.set_contact_half_space_frame(trial, kt.Transform())
    assert smooth.get_contact_sphere_radius(trial) == 0.05
    np.testing.assert_array_equal(smooth.get_contact_sphere_location_in_body(trial), 0.0)
    assert smooth.get_contact_sphere_radius(state) == RADIUS

    # the per-State values are what the compiled realization uses: the same force as a
    # System built with them
    trial = state.copy()
    smooth.set_parameters(trial, 3e6, 0.5, 1.1, 0.3, 0.0, 0.2, 2e-5, 500.0, 80.0)
    system2, _, forces2, ball2, platform2 = two_bodies()
    other = smooth_element(forces2, ball2, platform2, 2e-5, 500.0, 80.0)
    other.set_parameters(3e6, 0.5, 1.1, 0.3, 0.0, 0.2, 2e-5, 500.0, 80.0)
    state2 = system2.realize_topology()
    state2.upd_q()[:] = trial.get_q()
    state2.upd_u()[:] = trial.get_u()
    system2.realize(state2, kt.Stage.VELOCITY)
    system.realize(trial, kt.Stage.VELOCITY)
    F1, F2 = np.zeros((3, 6)), np.zeros((3, 6))
    smooth.calc_force(trial, F1, None, np.zeros(12))
    other.calc_force(state2, F2, None, np.zeros(12))
    np.testing.assert_array_equal(F1, F2)
    assert np.abs(F1).max() > 1.0

    # refused where they enter, naming the setter and the range
    with pytest.raises(InvalidArgumentError, match="hertz_smoothing must be > 0"):
        smooth.set_hertz_smoothing(state, 0.0)
    with pytest.raises(InvalidArgumentError, match="static_friction must be finite"):
        smooth.set_static_friction(state, -0.1)
    with pytest.raises(InvalidArgumentError, match="set_stiffness"):
        smooth.set_stiffness(state, 1.0, 2.0)
    # and a State file's values are checked the same way
    params = np.array(smooth._params(state))
    assert smooth.check_parameters(params) is None
    for index, bad in ((3, -0.04), (4, 2.0), (21, 0.0), (17, -1.0), (16, np.nan)):
        wrong = params.copy()
        wrong[index] = bad
        assert smooth.check_parameters(wrong) is not None, index
