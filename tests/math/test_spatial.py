"""Spatial algebra: shifts of velocities and forces against explicit cross products, power
invariance, the phi-matrix convention, re-expression, and the motion/force cross-product
matrices."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math.inertia import Inertia, MassProperties
from kinetree.math.rotation import Rotation
from kinetree.math.spatial import (
    cross_mat,
    phi_matrix,
    phi_matrix_kernel,
    reexpress_spatial_vec,
    reexpress_spatial_vec_kernel,
    shift_force_by,
    shift_force_by_kernel,
    shift_force_from_to,
    shift_velocity_by,
    shift_velocity_by_kernel,
    shift_velocity_from_to,
    spatial_cross_force,
    spatial_cross_force_kernel,
    spatial_cross_velocity,
    spatial_cross_velocity_kernel,
    spatial_vec,
)

hyp = settings(max_examples=40, deadline=None)
vec3 = st.lists(st.floats(-10.0, 10.0), min_size=3, max_size=3).map(np.array)
vec6 = st.lists(st.floats(-10.0, 10.0), min_size=6, max_size=6).map(np.array)
rotation = (
    st.lists(st.floats(-1.0, 1.0), min_size=4, max_size=4)
    .map(np.array)
    .filter(lambda q: np.linalg.norm(q) > 0.1)
    .map(Rotation.from_quaternion)
)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=tol)


@hyp
@given(vec3, vec3)
def test_cross_mat_is_the_cross_product(v, w):
    m = cross_mat(v)
    close(m @ w, np.cross(v, w))
    close(m, -m.T, 0)


def test_spatial_vec_is_angular_then_linear():
    close(spatial_vec([1, 2, 3], [4, 5, 6]), [1, 2, 3, 4, 5, 6], 0)


@hyp
@given(vec6, vec3, vec3)
def test_velocity_shift_is_w_cross_r(V, r, p):
    w, v = V[:3], V[3:]
    close(shift_velocity_by(V, r), np.concatenate((w, v + np.cross(w, r))))
    close(shift_velocity_from_to(V, p, p + r), shift_velocity_by(V, r))
    close(shift_velocity_by(shift_velocity_by(V, r), -r), V)
    close(shift_velocity_by_kernel(V, r), shift_velocity_by(V, r), 0)


@hyp
@given(vec6, vec3, vec3)
def test_force_shift_changes_the_moment_by_r_cross_f(F, r, p):
    m, f = F[:3], F[3:]
    close(shift_force_by(F, r), np.concatenate((m - np.cross(r, f), f)))
    close(shift_force_from_to(F, p, p + r), shift_force_by(F, r))
    close(shift_force_by(shift_force_by(F, r), -r), F)
    close(shift_force_by_kernel(F, r), shift_force_by(F, r), 0)


def test_force_shift_known_case():
    # A 1 N force along y acting at the origin, seen about the point 2 m along x, has a
    # moment of -2 N m about z there (the force pushes that point's frame clockwise).
    close(shift_force_by([0, 0, 0, 0, 1, 0], [2, 0, 0]), [0, 0, -2, 0, 1, 0], 0)


@hyp
@given(vec6, vec6, vec3)
def test_shifting_both_to_the_same_point_preserves_power(F, V, r):
    power = F @ V
    close(shift_force_by(F, r) @ shift_velocity_by(V, r), power, 1e-8)


@hyp
@given(vec6, vec6, vec3, vec3)
def test_phi_matrix_convention(F, V, r, s):
    phi = phi_matrix(r)
    close(phi[:3, 3:] @ s, np.cross(r, s))
    close(phi.T @ V, shift_velocity_by(V, r))
    close(phi @ F, shift_force_by(F, -r))
    close(np.linalg.solve(phi, F), shift_force_by(F, r))
    close(np.linalg.inv(phi), phi_matrix(-r))
    close(phi @ phi_matrix(s), phi_matrix(r + s))
    close(phi_matrix_kernel(r), phi, 0)


@hyp
@given(rotation, vec6, vec6)
def test_reexpression_rotates_both_halves_and_keeps_power(r_ab, V, F):
    big = np.zeros((6, 6))
    big[:3, :3] = big[3:, 3:] = r_ab.as_matrix()
    close(reexpress_spatial_vec(r_ab, V), big @ V)
    close(reexpress_spatial_vec(r_ab.as_matrix(), V), big @ V)
    close(reexpress_spatial_vec(r_ab, F) @ reexpress_spatial_vec(r_ab, V), F @ V, 1e-8)
    close(reexpress_spatial_vec(r_ab.invert(), reexpress_spatial_vec(r_ab, V)), V)
    close(reexpress_spatial_vec_kernel(r_ab.as_matrix(), V), big @ V)


@hyp
@given(vec6, vec6, vec6)
def test_cross_product_matrices(V, U, F):
    w, v = V[:3], V[3:]
    crm = spatial_cross_velocity(V)
    crf = spatial_cross_force(V)
    close(crm @ U, np.concatenate((np.cross(w, U[:3]), np.cross(w, U[3:]) + np.cross(v, U[:3]))))
    close(crf @ F, np.concatenate((np.cross(w, F[:3]) + np.cross(v, F[3:]), np.cross(w, F[3:]))))
    close(crf, -crm.T, 0)
    close(crm @ V, np.zeros(6))
    close(F @ (crm @ U), -(crf @ F) @ U, 1e-8)
    close(spatial_cross_velocity_kernel(V), crm, 0)
    close(spatial_cross_force_kernel(V), crf, 0)


@hyp
@given(vec6)
def test_crm_of_a_shifted_velocity_is_conjugated_by_phi(V):
    # Shifting is a change of reference point, so V x U transforms covariantly:
    # phi^T (V x U) = (phi^T V) x (phi^T U).
    r, U = np.array([0.3, -1.2, 2.0]), np.array([1.0, 2.0, -0.5, 0.25, 0.0, 3.0])
    phi_t = phi_matrix(r).T
    close(phi_t @ spatial_cross_velocity(V) @ U,
          spatial_cross_velocity(phi_t @ V) @ (phi_t @ U), 1e-8)


@hyp
@given(vec3, vec3)
def test_crf_gives_the_gyroscopic_force_of_a_central_body(w, v):
    inertia = Inertia(3.0, 4.0, 5.0, 0.1, -0.2, 0.3)
    m = MassProperties(2.0, [0.0, 0.0, 0.0], inertia).to_spatial_mat()
    V = np.concatenate((w, v))
    i_w = inertia.as_mat33() @ w
    close(spatial_cross_force(V) @ m @ V, np.concatenate((np.cross(w, i_w), np.cross(w, 2 * v))),
          1e-8)


def test_shapes_checked():
    with pytest.raises(InvalidArgumentError, match="shape"):
        shift_velocity_by(np.ones(5), np.ones(3))
    with pytest.raises(InvalidArgumentError, match="shape"):
        shift_force_by(np.ones(6), np.ones(4))
    with pytest.raises(InvalidArgumentError, match="shape"):
        spatial_vec([1, 2], [3, 4, 5])
    with pytest.raises(InvalidArgumentError, match="shape"):
        phi_matrix([1.0])
    with pytest.raises(InvalidArgumentError, match="shape"):
        spatial_cross_force(np.ones(3))
    with pytest.raises(InvalidArgumentError, match="numeric"):
        spatial_cross_velocity("fast")
    with pytest.raises(NonPhysicalError, match="determinant"):
        reexpress_spatial_vec(-np.eye(3), np.ones(6))
