"""Inertia, UnitInertia and MassProperties against brute-force point clouds: the
parallel-axis theorem, re-expression, the spatial inertia's kinetic energy and momentum,
the standard shapes, and refusal of every non-physical input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kinetree.errors import InvalidArgumentError, NonPhysicalError
from kinetree.math.inertia import Inertia, MassProperties, UnitInertia
from kinetree.math.rotation import Rotation
from kinetree.math.spatial import phi_matrix, shift_force_by, shift_velocity_by
from kinetree.math.transform import Transform

hyp = settings(max_examples=30, deadline=None)
seed = st.integers(0, 2**32 - 1)


def close(a, b, tol=1e-10):
    np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=0, atol=tol)


def cloud(rng, n=12):
    """Random masses (kg) and points (m, rows) of a rigid body, in its frame B."""
    masses = rng.uniform(0.1, 2.0, n)
    points = rng.normal(0.5, 1.0, (n, 3))
    return masses, points


def cloud_inertia(masses, points, about=(0.0, 0.0, 0.0)):
    """Brute force: sum of m (|r|^2 1 - r r^T) with r from ``about`` to each point."""
    r = points - np.asarray(about)
    return sum(m * (ri @ ri * np.eye(3) - np.outer(ri, ri)) for m, ri in zip(masses, r))


def random_rotation(rng):
    return Rotation.from_quaternion(rng.normal(size=4))


def cloud_mass_props(masses, points):
    com = masses @ points / masses.sum()
    return MassProperties(masses.sum(), com, Inertia(cloud_inertia(masses, points)))


# ---- Inertia -----------------------------------------------------------------------------------


def test_constructor_forms_and_layout():
    i = Inertia(3.0, 4.0, 5.0, 0.1, -0.2, 0.3)
    close(i.as_mat33(), [[3.0, 0.1, -0.2], [0.1, 4.0, 0.3], [-0.2, 0.3, 5.0]], 0)
    close(i.get_moments(), [3.0, 4.0, 5.0], 0)
    close(i.get_products(), [0.1, -0.2, 0.3], 0)
    close(Inertia(2.0).as_mat33(), 2.0 * np.eye(3), 0)
    close(Inertia(i.as_mat33()).as_mat33(), i.as_mat33(), 0)
    copy = i.as_mat33()
    copy[0, 0] = 100.0
    close(i.get_moments(), [3.0, 4.0, 5.0], 0)
    again = eval(repr(i), {"Inertia": Inertia})
    close(again.as_mat33(), i.as_mat33(), 0)


def test_tiny_asymmetry_is_accepted_and_symmetrized():
    m = np.array([[3.0, 0.1, 0.0], [0.1 + 1e-14, 4.0, 0.0], [0.0, 0.0, 5.0]])
    i = Inertia(m)
    close(i.as_mat33(), i.as_mat33().T, 0)


def test_non_physical_inertias_refused_naming_the_problem():
    with pytest.raises(NonPhysicalError, match="finite"):
        Inertia(np.nan, 1.0, 1.0)
    with pytest.raises(NonPhysicalError, match="finite"):
        Inertia(np.diag([1.0, np.inf, 1.0]))
    with pytest.raises(NonPhysicalError, match=r"not symmetric: I\[0,1\] = 0.1"):
        Inertia([[3.0, 0.1, 0.0], [0.2, 4.0, 0.0], [0.0, 0.0, 5.0]])
    with pytest.raises(NonPhysicalError, match="semidefinite"):
        Inertia(-1.0)
    with pytest.raises(NonPhysicalError, match="semidefinite"):
        Inertia(1.0, 1.0, 1.0, 2.0, 0.0, 0.0)
    with pytest.raises(NonPhysicalError, match="triangle inequality"):
        Inertia(1.0, 1.0, 3.0)
    with pytest.raises(NonPhysicalError, match="triangle inequality"):
        Inertia(np.diag([1.0, 1.0, 2.001]))
    Inertia(1.0, 1.0, 2.0)  # a thin disk sits exactly on the boundary


def test_wrong_arguments_refused():
    with pytest.raises(InvalidArgumentError, match="shape"):
        Inertia(np.eye(2))
    with pytest.raises(InvalidArgumentError, match="products"):
        Inertia(1.0, ixy=0.1)
    with pytest.raises(InvalidArgumentError, match="izz"):
        Inertia(1.0, 2.0)
    with pytest.raises(InvalidArgumentError, match="numeric"):
        Inertia("heavy")


@hyp
@given(seed)
def test_point_masses_sum_to_the_cloud_inertia(s):
    masses, points = cloud(np.random.default_rng(s))
    total = Inertia(0.0)
    for m, p in zip(masses, points):
        total = total + Inertia.point_mass_at(p, m)
    close(total.as_mat33(), cloud_inertia(masses, points))
    close((total - Inertia.point_mass_at(points[0], masses[0])).as_mat33(),
          cloud_inertia(masses[1:], points[1:]))


@hyp
@given(seed)
def test_parallel_axis_theorem_against_the_cloud(s):
    rng = np.random.default_rng(s)
    masses, points = cloud(rng)
    mass, com = masses.sum(), masses @ points / masses.sum()
    about_origin = Inertia(cloud_inertia(masses, points))
    central = about_origin.shift_to_mass_center(com, mass)
    close(central.as_mat33(), cloud_inertia(masses, points, com))
    p = rng.normal(size=3)
    close(central.shift_from_mass_center(p - com, mass).as_mat33(),
          cloud_inertia(masses, points, p))


@hyp
@given(seed)
def test_reexpress_and_principal_axes_against_the_cloud(s):
    rng = np.random.default_rng(s)
    masses, points = cloud(rng)
    i_f = Inertia(cloud_inertia(masses, points))
    r_fb = random_rotation(rng)
    points_b = (r_fb.invert() @ points.T).T
    close(i_f.reexpress(r_fb).as_mat33(), cloud_inertia(masses, points_b))
    moments, r_fp = i_f.calc_principal_moments_and_axes()
    assert moments[0] <= moments[1] <= moments[2]
    assert moments[2] <= moments[0] + moments[1]
    close(np.linalg.det(r_fp.as_matrix()), 1.0)
    close(r_fp.as_matrix() @ np.diag(moments) @ r_fp.as_matrix().T, i_f.as_mat33())
    close(i_f.reexpress(r_fp).as_mat33(), np.diag(moments))


def test_arithmetic_types_and_refusals():
    g = UnitInertia.sphere(1.0)
    for product in (2.0 * g, g * 2.0, np.float64(2.0) * g, g * 2):
        assert type(product) is Inertia
        close(product.as_mat33(), 0.8 * np.eye(3))
    assert type(g + g) is UnitInertia
    assert type(g + Inertia(1.0)) is Inertia
    assert type(g.reexpress(Rotation.about_x(0.3))) is UnitInertia
    with pytest.raises(NonPhysicalError, match="factor"):
        Inertia(1.0) * -2.0
    with pytest.raises(NonPhysicalError, match="semidefinite"):
        Inertia(1.0) - Inertia(2.0)
    with pytest.raises(TypeError):
        Inertia(1.0) * np.ones(3)
    with pytest.raises(NonPhysicalError, match="mass"):
        Inertia.point_mass_at([1.0, 0.0, 0.0], -1.0)
    with pytest.raises(AttributeError, match="immutable"):
        g.foo = 1


def test_shifting_a_central_inertia_to_the_center_again_is_refused_with_a_hint():
    central = 2.0 * UnitInertia.brick(0.1, 0.2, 0.3)
    with pytest.raises(NonPhysicalError, match="already central"):
        central.shift_to_mass_center([1.0, 0.0, 0.0], 2.0)


# ---- UnitInertia shapes ------------------------------------------------------------------------


def test_unit_inertia_formulas():
    # Brick with full edge lengths a, b, c: ixx = (b^2 + c^2)/12 per unit mass.
    a, b, c = 2.0, 4.0, 6.0
    close(UnitInertia.brick(a / 2, b / 2, c / 2).get_moments(),
          [(b**2 + c**2) / 12, (a**2 + c**2) / 12, (a**2 + b**2) / 12])
    close(UnitInertia.brick([1.0, 2.0, 3.0]).as_mat33(), UnitInertia.brick(1, 2, 3).as_mat33())
    r, length = 0.5, 3.0
    axial, transverse = r**2 / 2, (3 * r**2 + length**2) / 12
    h = length / 2
    close(UnitInertia.cylinder_along_z(r, h).get_moments(), [transverse, transverse, axial])
    close(UnitInertia.cylinder_along_y(r, h).get_moments(), [transverse, axial, transverse])
    close(UnitInertia.cylinder_along_x(r, h).get_moments(), [axial, transverse, transverse])
    close(UnitInertia.sphere(2.0).get_moments(), [1.6, 1.6, 1.6])
    close(UnitInertia.ellipsoid(1.0, 2.0, 3.0).get_moments(), [13 / 5, 10 / 5, 5 / 5])
    close(UnitInertia.ellipsoid(2.0, 2.0, 2.0).as_mat33(), UnitInertia.sphere(2.0).as_mat33())
    p = np.array([1.0, 2.0, 3.0])
    close(UnitInertia.point_mass_at(p).as_mat33(), Inertia.point_mass_at(p, 1.0).as_mat33())
    close(UnitInertia.point_mass_at(p).as_mat33() @ p, np.zeros(3))


def grid(half, n=80):
    """Midpoints of an n^3 grid of cells filling the box [-half, half] (rows)."""
    axes = [(np.arange(n) + 0.5) / n * 2 * h - h for h in half]
    return np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)


def unit_cloud_inertia(points):
    """Inertia per unit mass of equal point masses at ``points``, about the origin."""
    r2 = np.einsum("ij,ij->i", points, points)
    return (r2.sum() * np.eye(3) - points.T @ points) / len(points)


@pytest.mark.parametrize(
    "shape, half, inside, tol",
    [
        (UnitInertia.brick(0.5, 1.0, 1.5), (0.5, 1.0, 1.5), lambda p: np.ones(len(p), bool), 1e-3),
        (UnitInertia.sphere(1.2), (1.2,) * 3, lambda p: np.sum(p**2, 1) <= 1.44, 1e-2),
        (UnitInertia.ellipsoid(0.5, 1.0, 1.5), (0.5, 1.0, 1.5),
         lambda p: np.sum((p / [0.5, 1.0, 1.5]) ** 2, 1) <= 1, 1e-2),
        (UnitInertia.cylinder_along_z(0.6, 1.0), (0.6, 0.6, 1.0),
         lambda p: p[:, 0] ** 2 + p[:, 1] ** 2 <= 0.36, 1e-2),
        (UnitInertia.cylinder_along_x(0.6, 1.0), (1.0, 0.6, 0.6),
         lambda p: p[:, 1] ** 2 + p[:, 2] ** 2 <= 0.36, 1e-2),
        (UnitInertia.cylinder_along_y(0.6, 1.0), (0.6, 1.0, 0.6),
         lambda p: p[:, 0] ** 2 + p[:, 2] ** 2 <= 0.36, 1e-2),
    ],
    ids=["brick", "sphere", "ellipsoid", "cylinder_z", "cylinder_x", "cylinder_y"],
)
def test_unit_inertias_match_sampled_solids(shape, half, inside, tol):
    points = grid(half)
    sampled = unit_cloud_inertia(points[inside(points)])
    np.testing.assert_allclose(shape.as_mat33(), sampled, rtol=tol, atol=tol * sampled.max())


def test_unit_inertia_centroid_shifts_and_refusals():
    g = UnitInertia.brick(0.1, 0.2, 0.3)
    c = np.array([0.5, -0.2, 1.0])
    about_o = g.shift_from_centroid(c)
    assert type(about_o) is UnitInertia
    close(about_o.as_mat33(), (g + UnitInertia.point_mass_at(c)).as_mat33())
    close(about_o.shift_to_centroid(c).as_mat33(), g.as_mat33())
    with pytest.raises(NonPhysicalError, match="already central"):
        g.shift_to_centroid(c)
    with pytest.raises(NonPhysicalError, match="hy is -1.0"):
        UnitInertia.brick(1.0, -1.0, 1.0)
    with pytest.raises(InvalidArgumentError, match="missing"):
        UnitInertia.brick(1.0, 1.0)
    with pytest.raises(NonPhysicalError, match="radius"):
        UnitInertia.sphere(-0.1)
    with pytest.raises(NonPhysicalError, match="finite"):
        UnitInertia.cylinder_along_z(np.nan, 1.0)


# ---- MassProperties ----------------------------------------------------------------------------


@hyp
@given(seed)
def test_spatial_inertia_kinetic_energy_and_momentum_against_the_cloud(s):
    rng = np.random.default_rng(s)
    masses, points = cloud(rng)
    props = cloud_mass_props(masses, points)
    mass, com = props.get_mass(), props.get_mass_center()
    w, v = rng.normal(size=3), rng.normal(size=3)
    V = np.concatenate((w, v))
    point_velocities = v + np.cross(w, points)
    spatial = props.to_spatial_mat()
    close(spatial, spatial.T, 0)
    kinetic = 0.5 * np.sum(masses * np.sum(point_velocities**2, axis=1))
    close(0.5 * V @ spatial @ V, kinetic)
    v_com = v + np.cross(w, com)
    central = props.calc_central_inertia().as_mat33()
    close(0.5 * mass * v_com @ v_com + 0.5 * w @ central @ w, kinetic)
    momentum = spatial @ V
    close(momentum[3:], masses @ point_velocities)
    close(momentum[:3], np.sum(np.cross(points, masses[:, None] * point_velocities), axis=0))


@hyp
@given(seed)
def test_shifted_mass_props_agree_with_the_cloud_and_with_phi(s):
    rng = np.random.default_rng(s)
    masses, points = cloud(rng)
    props = cloud_mass_props(masses, points)
    p = rng.normal(size=3)
    shifted = props.calc_shifted_mass_props(p)
    close(shifted.get_mass_center(), props.get_mass_center() - p)
    close(shifted.get_inertia().as_mat33(), cloud_inertia(masses, points, p))
    close(props.calc_shifted_inertia(p).as_mat33(), cloud_inertia(masses, points, p))
    close(props.calc_central_inertia().as_mat33(),
          cloud_inertia(masses, points, props.get_mass_center()))
    # Momentum is a force-like vector: about the new origin it is the old one shifted.
    V = rng.normal(size=6)
    V_p = shift_velocity_by(V, p)
    close(shifted.to_spatial_mat() @ V_p, shift_force_by(props.to_spatial_mat() @ V, p))
    close(0.5 * V_p @ shifted.to_spatial_mat() @ V_p, 0.5 * V @ props.to_spatial_mat() @ V)
    phi = phi_matrix(p)
    close(phi @ shifted.to_spatial_mat() @ phi.T, props.to_spatial_mat())


@hyp
@given(seed)
def test_reexpressed_and_transformed_mass_props_against_the_cloud(s):
    rng = np.random.default_rng(s)
    masses, points = cloud(rng)
    props = cloud_mass_props(masses, points)
    r_bc = random_rotation(rng)
    x_bc = Transform(r_bc, rng.normal(size=3))
    points_c = x_bc.shift_base_station_to_frame(points.T).T
    moved = props.calc_transformed_mass_props(x_bc)
    close(moved.get_mass_center(), masses @ points_c / masses.sum())
    close(moved.get_inertia().as_mat33(), cloud_inertia(masses, points_c))
    turned = props.reexpress(r_bc)
    close(turned.get_mass_center(), r_bc.invert() @ props.get_mass_center())
    close(turned.get_inertia().as_mat33(),
          cloud_inertia(masses, (r_bc.invert() @ points.T).T))
    assert moved.get_mass() == turned.get_mass() == props.get_mass()


def test_unit_inertia_is_multiplied_by_the_mass():
    c = np.array([0.1, 0.2, -0.3])
    g = UnitInertia.cylinder_along_z(0.2, 0.5).shift_from_centroid(c)
    props = MassProperties(3.0, c, g)
    close(props.get_inertia().as_mat33(), 3.0 * g.as_mat33())
    close(props.get_unit_inertia().as_mat33(), g.as_mat33())
    assert type(props.get_unit_inertia()) is UnitInertia
    close(props.calc_central_inertia().as_mat33(),
          3.0 * UnitInertia.cylinder_along_z(0.2, 0.5).as_mat33())
    assert not props.is_exactly_central()
    assert MassProperties(3.0, [0, 0, 0], g).is_exactly_central()


def test_massless_bodies():
    props = MassProperties(0.0, [1.0, 2.0, 3.0], Inertia(0.0))
    assert props.is_exactly_massless()
    close(props.calc_shifted_inertia([5.0, 0.0, 0.0]).as_mat33(), np.zeros((3, 3)), 0)
    close(props.get_unit_inertia().as_mat33(), np.zeros((3, 3)), 0)
    spinning = MassProperties(0.0, [1.0, 0.0, 0.0], Inertia(0.5))
    close(spinning.calc_shifted_inertia([0.0, 7.0, 0.0]).as_mat33(), 0.5 * np.eye(3))
    close(spinning.calc_central_inertia().as_mat33(), 0.5 * np.eye(3))
    with pytest.raises(NonPhysicalError, match="massless"):
        spinning.get_unit_inertia()
    close(MassProperties(0.0, [1, 1, 1], UnitInertia.sphere(1.0)).get_inertia().as_mat33(),
          np.zeros((3, 3)), 0)


@pytest.mark.parametrize("mass", [-1.0, math.nan, math.inf])
def test_non_physical_mass_refused(mass):
    with pytest.raises(NonPhysicalError, match=f"mass is {mass}; a mass must be finite and >= 0"):
        MassProperties(mass, [0.0, 0.0, 0.0], Inertia(1.0))


def test_central_inertia_given_as_origin_inertia_refused():
    central = 2.0 * UnitInertia.cylinder_along_x(0.05, 1.0)
    with pytest.raises(NonPhysicalError, match="about the body origin, not the COM"):
        MassProperties(2.0, [0.0, 1.5, 0.0], central)
    ok = MassProperties(2.0, [0.0, 1.5, 0.0], central.shift_from_mass_center([0.0, 1.5, 0.0], 2.0))
    close(ok.calc_central_inertia().as_mat33(), central.as_mat33())


def test_mass_props_wrong_arguments_refused():
    with pytest.raises(InvalidArgumentError, match="shape"):
        MassProperties(1.0, [0.0, 0.0], Inertia(1.0))
    with pytest.raises(NonPhysicalError, match="finite"):
        MassProperties(1.0, [0.0, np.nan, 0.0], Inertia(1.0))
    with pytest.raises(InvalidArgumentError, match="single"):
        MassProperties([1.0, 2.0], [0.0, 0.0, 0.0], Inertia(1.0))
    with pytest.raises(NonPhysicalError, match="triangle"):
        MassProperties(1.0, [0.0, 0.0, 0.0], np.diag([1.0, 1.0, 3.0]))
    with pytest.raises(InvalidArgumentError, match="Transform"):
        MassProperties(1.0, [0.0, 0.0, 0.0], Inertia(1.0)).calc_transformed_mass_props(np.eye(4))


def test_mass_props_repr_and_immutability():
    props = MassProperties(2.0, [0.1, 0.2, 0.3], Inertia(1.0, 2.0, 2.5, 0.01, 0.0, 0.0))
    again = eval(repr(props), {"MassProperties": MassProperties, "Inertia": Inertia})
    close(again.to_spatial_mat(), props.to_spatial_mat(), 0)
    with pytest.raises(AttributeError, match="immutable"):
        props.foo = 1
    with pytest.raises(ValueError, match="read-only"):
        props.get_mass_center()[0] = 1.0
