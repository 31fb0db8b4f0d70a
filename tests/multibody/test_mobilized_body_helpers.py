"""MobilizedBody's Simbody helpers: q and u indices, vectors expressed in other frames,
poses relative to another body and the mass centre in Ground, each checked against the
body transforms it is built from by an independent route (4x4 matrices), and Simbody's
other names for the mobilizers."""

import numpy as np
import pytest
from support import world

import kinetree as kt


@pytest.fixture
def two_bodies():
    system, matter, forces, link = world()
    a = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform([0.1, 0.2, 0.3]), link,
                              kt.Transform([0, 0.5, 0]))
    b = kt.MobilizedBody.Pin(a, kt.Transform(kt.Rotation.about_x(0.4), [0, -1, 0]), link,
                             kt.Transform())
    state = system.realize_topology()
    state.set_q(state.get_q() + np.random.default_rng(5).uniform(-1, 1, state.get_num_q()))
    system.realize(state, kt.Stage.POSITION)
    return matter, a, b, state


def test_first_q_and_u_indices_locate_each_mobilizer(two_bodies):
    matter, a, b, state = two_bodies
    assert (a.get_first_q_index(state), a.get_num_q(state)) == (0, 4)
    assert (a.get_first_u_index(state), a.get_num_u(state)) == (0, 3)
    assert (b.get_first_q_index(state), b.get_first_u_index(state)) == (4, 3)
    assert state.get_q()[b.get_first_q_index(state)] == b.get_one_q(state, 0)


def test_vectors_and_poses_in_other_frames(two_bodies):
    matter, a, b, state = two_bodies
    X_GA, X_GB = a.get_body_transform(state).to_mat44(), b.get_body_transform(state).to_mat44()
    v = np.array([0.3, -0.2, 0.7])
    np.testing.assert_allclose(b.express_vector_in_ground_frame(state, v), X_GB[:3, :3] @ v)
    np.testing.assert_allclose(b.express_ground_vector_in_body_frame(state, v),
                               np.linalg.solve(X_GB[:3, :3], v))
    np.testing.assert_allclose(b.express_vector_in_another_body_frame(state, v, a),
                               np.linalg.solve(X_GA[:3, :3], X_GB[:3, :3] @ v), atol=1e-15)
    X_AB = np.linalg.solve(X_GA, X_GB)
    np.testing.assert_allclose(b.find_body_transform_in_another_body(state, a).to_mat44(),
                               X_AB, atol=1e-15)
    np.testing.assert_allclose(
        b.find_body_rotation_in_another_body(state, a).as_matrix(), X_AB[:3, :3], atol=1e-15)
    np.testing.assert_allclose(b.find_body_origin_location_in_another_body(state, a),
                               X_AB[:3, 3], atol=1e-15)
    com = b.get_body_mass_properties(state).get_mass_center()
    np.testing.assert_allclose(b.find_mass_center_location_in_ground(state),
                               (X_GB @ np.append(com, 1.0))[:3])
    # A body seen from itself.
    np.testing.assert_allclose(b.find_body_transform_in_another_body(state, b).to_mat44(),
                               np.eye(4), atol=1e-15)


def test_simbody_synonyms_are_the_same_mobilizers():
    M = kt.MobilizedBody
    assert M.Revolute is M.Pin and M.Torsion is M.Pin
    assert M.Prismatic is M.Slider
    assert M.Spherical is M.Ball and M.Orientation is M.Ball
    assert M.Cartesian is M.Translation and M.CartesianCoords is M.Translation
    assert M.PolarCoords is M.BendStretch


def free_and_pin():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1)))
    free = kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), body, kt.Transform())
    pin = kt.MobilizedBody.Pin(free, kt.Transform([0, 1, 0]), body, kt.Transform())
    return system, matter, free, pin


def test_fits_of_rotation_and_translation_keep_the_other_half():
    """The fits work right after q is set, without a realization: each keeps what the
    other set, and the realized X_FM is the pair asked for."""
    system, matter, free, pin = free_and_pin()
    state = system.realize_topology()
    R = kt.Rotation(rotation_matrix(0.7, [1, 2, 3]))
    free.set_q_to_fit_translation(state, [0.4, -1.0, 2.5])
    free.set_q_to_fit_rotation(state, R)
    pin.set_q_to_fit_rotation(state, kt.Rotation(rotation_matrix(0.3, [0, 0, 1])))
    system.realize(state, kt.Stage.POSITION)
    X = free.get_mobilizer_transform(state)
    assert np.allclose(X.p, [0.4, -1.0, 2.5], atol=1e-14)
    assert np.allclose(X.R.as_matrix(), R.as_matrix(), atol=1e-14)
    assert pin.get_one_q(state, 0) == pytest.approx(0.3, abs=1e-14)
    free.set_q_to_fit_translation(state, [1.0, 2.0, 3.0])       # the rotation stays
    system.realize(state, kt.Stage.POSITION)
    assert np.allclose(free.get_mobilizer_transform(state).R.as_matrix(), R.as_matrix(),
                       atol=1e-14)


def test_fits_of_angular_and_linear_velocity_keep_the_other_half():
    system, matter, free, pin = free_and_pin()
    state = system.realize_topology()
    free.set_q_to_fit_rotation(state, kt.Rotation(rotation_matrix(0.4, [0, 1, 1])))
    free.set_u_to_fit_linear_velocity(state, [0.5, 0.0, -1.0])
    free.set_u_to_fit_angular_velocity(state, [0.1, 0.2, 0.3])
    pin.set_u_to_fit_angular_velocity(state, [5.0, 5.0, 1.5])    # only w_z is in reach
    system.realize(state, kt.Stage.VELOCITY)
    assert np.allclose(free.get_mobilizer_velocity(state), [0.1, 0.2, 0.3, 0.5, 0.0, -1.0],
                       atol=1e-14)
    assert pin.get_one_u(state, 0) == pytest.approx(1.5)
    free.set_u_to_fit_linear_velocity(state, [0.0, 1.0, 0.0])
    system.realize(state, kt.Stage.VELOCITY)
    assert np.allclose(free.get_mobilizer_velocity(state), [0.1, 0.2, 0.3, 0.0, 1.0, 0.0],
                       atol=1e-14)


def rotation_matrix(angle, axis):
    """Rodrigues' formula: the rotation by ``angle`` (rad) about ``axis``."""
    k = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(angle) * K + (1 - np.cos(angle)) * K @ K


def test_mobilizer_reactions_obey_newton_euler():
    """A link on a Pin whose M frame is away from the body origin, under gravity, moving:
    the reaction on the body is m (a_com - g) and, about the mass center, I α + w × I w
    (the only other force is gravity, at the mass center); the parent feels its negative."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    g = np.array([0.0, -9.81, 0.0])
    kt.Force.UniformGravity(forces, matter, g)
    m, com = 2.0, np.array([0.1, -0.4, 0.05])
    I_c = np.diag([0.05, 0.02, 0.04])
    body = kt.Body.Rigid(kt.MassProperties(m, com, kt.Inertia(I_c).shift_from_mass_center(com, m)))
    base = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 0.3, 0]), body,
                                kt.Transform())
    link = kt.MobilizedBody.Pin(base, kt.Transform(kt.Rotation(rotation_matrix(0.3, [1, 0, 0])),
                                                   [0.2, -0.5, 0.1]),
                                body, kt.Transform([0.05, 0.3, -0.02]))
    state = system.realize_topology()
    matter.upd_q(state)[:] = [0.4, -0.9]
    matter.upd_u(state)[:] = [1.1, -2.0]
    system.realize(state, kt.Stage.ACCELERATION)
    a_com = link.find_station_acceleration_in_ground(state, com)
    R = link.get_body_rotation(state).as_matrix()
    I_G = R @ I_c @ R.T
    w = link.get_body_angular_velocity(state)
    alpha = link.get_body_acceleration(state)[:3]
    p_com = link.find_station_location_in_ground(state, com)
    p_B = link.get_body_origin_location(state)
    F_B = link.find_mobilizer_reaction_on_body_at_origin_in_ground(state)
    assert np.allclose(F_B[3:], m * (a_com - g), atol=1e-12)
    moment_about_com = F_B[:3] + np.cross(p_B - p_com, F_B[3:])
    assert np.allclose(moment_about_com, I_G @ alpha + np.cross(w, I_G @ w), atol=1e-12)
    F_M = link.find_mobilizer_reaction_on_body_at_m_in_ground(state)
    p_M = link.find_station_location_in_ground(state, [0.05, 0.3, -0.02])
    assert np.allclose(F_M[:3] + np.cross(p_M - p_B, F_M[3:]), F_B[:3], atol=1e-12)
    F_P = link.find_mobilizer_reaction_on_parent_at_origin_in_ground(state)
    p_P = base.get_body_origin_location(state)
    assert np.allclose(F_P[3:], -F_B[3:], atol=1e-12)
    assert np.allclose(F_P[:3], -(F_B[:3] + np.cross(p_B - p_P, F_B[3:])), atol=1e-12)
    F_F = link.find_mobilizer_reaction_on_parent_at_f_in_ground(state)
    p_F = base.find_station_location_in_ground(state, [0.2, -0.5, 0.1])
    assert np.allclose(F_F[:3] + np.cross(p_F - p_P, F_F[3:]), F_P[:3], atol=1e-12)


def test_hinge_columns_map_u_to_relative_velocities():
    system, matter, free, pin = free_and_pin()
    state = system.realize_topology()
    matter.upd_q(state)[:] = [0.9, 0.1, -0.3, 0.2, 0.5, -1.0, 2.0, 0.7]
    matter.upd_q(state)[:4] /= np.linalg.norm(matter.get_q(state)[:4])
    matter.upd_u(state)[:] = [0.3, -0.2, 0.1, 1.0, 0.5, -0.4, 1.7]
    system.realize(state, kt.Stage.VELOCITY)
    V_FM = sum(free.get_h_fm_col(state, j) * free.get_one_u(state, j) for j in range(6))
    assert np.allclose(V_FM, free.get_mobilizer_velocity(state), atol=1e-14)
    V_B, V_P = pin.get_body_velocity(state), free.get_body_velocity(state)
    r = pin.get_body_origin_location(state) - free.get_body_origin_location(state)
    relative = np.concatenate([V_B[:3] - V_P[:3], V_B[3:] - V_P[3:] - np.cross(V_P[:3], r)])
    assert np.allclose(pin.get_h_col(state, 0) * 1.7, relative, atol=1e-13)


def test_pin_and_slider_name_their_coordinate_as_simbody():
    """Pin's angle and Slider's length (Simbody's named accessors) are their q, rate u
    and acceleration u̇; the defaults start new States; apply_force_to_body_point,
    apply_body_torque and apply_one_mobility_force add what a force element would."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0.3, 0, 0], kt.Inertia(0.5)))
    pin = kt.MobilizedBody.Pin(matter.Ground(), body).set_default_angle(0.4)
    slider = kt.MobilizedBody.Slider(pin, body).set_default_length(-2.0)
    assert (pin.get_default_angle(), slider.get_default_length()) == (0.4, -2.0)
    state = system.realize_topology()
    assert state.get_q().tolist() == [0.4, -2.0]
    pin.set_angle(state, 0.1)
    slider.set_length(state, 0.5)
    pin.set_rate(state, 0.2)
    slider.set_rate(state, -0.3)
    assert (pin.get_angle(state), slider.get_length(state)) == (0.1, 0.5)
    assert (pin.get_rate(state), slider.get_rate(state)) == (0.2, -0.3)
    system.realize(state, kt.Stage.ACCELERATION)
    assert (pin.get_acceleration(state), slider.get_acceleration(state)) == tuple(
        state.get_u_dot())

    F = np.zeros((matter.get_num_bodies(), 6))
    station, force, torque = np.array([0.1, 0.2, 0.3]), np.array([1.0, -2.0, 0.5]), [0, 0, 3]
    slider.apply_force_to_body_point(state, station, force, F)
    slider.apply_body_torque(state, torque, F)
    f = np.zeros(state.get_num_u())
    pin.apply_one_mobility_force(state, 0, 0.7, f)
    r = slider.get_body_rotation(state).as_matrix() @ station
    np.testing.assert_allclose(F[slider.get_mobilized_body_index()],
                               np.concatenate([np.cross(r, force) + torque, force]))
    assert f.tolist() == [0.7, 0.0]
    # The generalized force of the point force is its power per unit speed: Jᵀ F · u
    # equals F · V of the station for any u.
    u = state.get_u()
    V = slider.get_body_velocity(state)
    station_velocity = V[3:] + np.cross(V[:3], r)
    power = force @ station_velocity + np.dot(torque, V[:3])
    assert matter.multiply_by_system_jacobian_transpose(state, F) @ u == pytest.approx(power)
