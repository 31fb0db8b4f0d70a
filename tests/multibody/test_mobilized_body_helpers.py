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
