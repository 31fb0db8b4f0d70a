"""Triangle-mesh contact geometry: a meshed sphere against the exact sphere and an independent
brute-force nearest point (trimesh's), the Brick and Cylinder analytic queries against dense
sampling of their surfaces and against the compiled mesh kernel, the normal against a finite
difference of the signed distance, mesh validation messages, and OBJ/STL loading."""

import math

import numpy as np
import pytest
import trimesh
from scipy.spatial import cKDTree

import kinetree as kt
from kinetree.contact.geometry import ContactGeometry as CG
from kinetree.contact.mesh import (
    Brick,
    Cylinder,
    TriangleMesh,
    find_nearest_points,
    find_nearest_points_on_mesh,
)
from kinetree.errors import InvalidArgumentError

RADIUS = 0.7
HALF = np.array([0.3, 0.5, 0.8])


@pytest.fixture(scope="module")
def ico():
    return trimesh.creation.icosphere(subdivisions=2, radius=RADIUS)


@pytest.fixture(scope="module")
def sphere_mesh(ico):
    return TriangleMesh.from_trimesh(ico)


def inradius(mesh):
    """The smallest distance from the origin to a face's plane: the mesh lies between this
    radius and RADIUS."""
    return float(np.min(np.einsum("ij,ij->i", mesh.face_centroids(), mesh.face_normals())))


def signed_distance_gradient(shape, p, h=1e-6):
    return np.array([(shape.calc_signed_distance(p + h * e)
                      - shape.calc_signed_distance(p - h * e)) / (2 * h) for e in np.eye(3)])


def box_surface_samples(half, n=120):
    """A grid of points on the box |x_i| ≤ half_i, with spacing at most 2 max(half)/n."""
    t = np.linspace(-1.0, 1.0, n + 1)
    u, v = (g.ravel() for g in np.meshgrid(t, t))
    samples = []
    for axis in range(3):
        others = [k for k in range(3) if k != axis]
        for sign in (-1.0, 1.0):
            pts = np.empty((len(u), 3))
            pts[:, axis] = sign * half[axis]
            pts[:, others[0]] = u * half[others[0]]
            pts[:, others[1]] = v * half[others[1]]
            samples.append(pts)
    return np.concatenate(samples)


def closest_by_brute_force(mesh, points):
    """trimesh's point-triangle closest points against every face, the nearest kept."""
    tris = mesh.vertices()[mesh.faces()]
    n, nf = len(points), len(tris)
    q = trimesh.triangles.closest_point(np.tile(tris, (n, 1, 1)), np.repeat(points, nf, 0))
    d = np.linalg.norm(q - np.repeat(points, nf, 0), axis=1).reshape(n, nf)
    best = np.argmin(d, axis=1)
    return q.reshape(n, nf, 3)[np.arange(n), best], d[np.arange(n), best]


# ---- the meshed sphere -------------------------------------------------------------------


def test_sphere_mesh_nearest_points_match_exact_sphere_within_faceting(sphere_mesh):
    r_in = inradius(sphere_mesh)
    assert 0.95 * RADIUS < r_in < RADIUS
    rng = np.random.default_rng(1)
    dirs = rng.normal(size=(200, 3))
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    p = dirs * rng.uniform(0.3, 2.0, (200, 1)) * RADIUS
    q, inside, n = sphere_mesh.find_nearest_points(p)
    r = np.linalg.norm(p, axis=1)
    exact = r - RADIUS
    signed = np.where(inside, -1.0, 1.0) * np.linalg.norm(p - q, axis=1)
    assert np.all(np.abs(signed - exact) <= RADIUS - r_in + 1e-12)
    assert np.all(np.linalg.norm(q, axis=1) <= RADIUS + 1e-12)
    assert np.all(np.linalg.norm(q, axis=1) >= r_in - 1e-12)
    assert np.allclose(np.linalg.norm(n, axis=1), 1.0)
    assert np.all(np.einsum("ij,ij->i", n, dirs) > math.cos(0.2))


def test_sphere_mesh_agrees_with_independent_brute_force(sphere_mesh):
    rng = np.random.default_rng(2)
    p = rng.uniform(-1.5 * RADIUS, 1.5 * RADIUS, (60, 3))
    q, _, _ = sphere_mesh.find_nearest_points(p)
    q_ref, d_ref = closest_by_brute_force(sphere_mesh, p)
    assert np.allclose(np.linalg.norm(p - q, axis=1), d_ref, atol=1e-12)
    assert np.allclose(q, q_ref, atol=1e-9)


def test_inside_agrees_with_exact_sphere_away_from_the_facets(sphere_mesh):
    r_in = inradius(sphere_mesh)
    rng = np.random.default_rng(3)
    p = rng.uniform(-1.2 * RADIUS, 1.2 * RADIUS, (2000, 3))
    r = np.linalg.norm(p, axis=1)
    p = p[(r < r_in) | (r > RADIUS)]
    _, inside, _ = sphere_mesh.find_nearest_points(p)
    assert np.array_equal(inside, np.linalg.norm(p, axis=1) < RADIUS)
    assert inside.any() and not inside.all()


def test_batched_query_equals_point_by_point(sphere_mesh):
    rng = np.random.default_rng(4)
    p = rng.uniform(-RADIUS, RADIUS, (40, 3)) * 1.3
    q, inside, n = sphere_mesh.find_nearest_points(p)
    for i in range(len(p)):
        qi, ini, ni = sphere_mesh.find_nearest_point(p[i])
        assert np.array_equal(qi, q[i]) and ini == inside[i] and np.array_equal(ni, n[i])
    assert sphere_mesh.calc_signed_distance(p[0]) == pytest.approx(
        (-1 if inside[0] else 1) * np.linalg.norm(p[0] - q[0]))


def test_normal_is_gradient_of_signed_distance_in_face_regions(sphere_mesh):
    for f in range(0, sphere_mesh.get_num_faces(), 17):
        c, nf = sphere_mesh.get_face_centroid(f), sphere_mesh.get_face_normal(f)
        for offset in (0.02, -0.02):
            p = c + offset * nf
            q, inside, n = sphere_mesh.find_nearest_point(p)
            assert inside == (offset < 0)
            assert np.allclose(q, c, atol=1e-12)
            assert np.allclose(n, nf, atol=1e-12)
            assert np.allclose(signed_distance_gradient(sphere_mesh, p), n, atol=1e-6)


def test_normal_off_an_edge_points_from_the_edge(sphere_mesh):
    faces = sphere_mesh.faces()
    i, j = faces[0, 0], faces[0, 1]
    other = [f for f in range(len(faces)) if {i, j} <= set(faces[f].tolist()) and f != 0][0]
    bisector = sphere_mesh.get_face_normal(0) + sphere_mesh.get_face_normal(other)
    bisector /= np.linalg.norm(bisector)
    mid = 0.5 * (sphere_mesh.get_vertex_position(i) + sphere_mesh.get_vertex_position(j))
    p = mid + 0.05 * bisector
    q, inside, n = sphere_mesh.find_nearest_point(p)
    assert not inside
    assert np.allclose(q, mid, atol=1e-12) and np.allclose(n, bisector, atol=1e-12)
    assert np.allclose(signed_distance_gradient(sphere_mesh, p), n, atol=1e-6)


def test_smooth_normals_are_closer_to_the_sphere_normal(ico):
    smooth = TriangleMesh.from_trimesh(ico, smooth=True)
    flat = TriangleMesh.from_trimesh(ico)
    assert smooth.is_smooth() and not flat.is_smooth()
    rng = np.random.default_rng(5)
    p = rng.normal(size=(100, 3))

    def angle_to_sphere_normal(mesh):
        q, _, n = mesh.find_nearest_points(p)
        assert np.allclose(np.linalg.norm(n, axis=1), 1.0)
        radial = q / np.linalg.norm(q, axis=1)[:, None]
        return np.arccos(np.clip(np.einsum("ij,ij->i", n, radial), -1, 1))

    assert angle_to_sphere_normal(smooth).max() < 0.25 * angle_to_sphere_normal(flat).mean()
    vertex = smooth.get_vertex_position(0)
    assert np.allclose(smooth.find_nearest_point(1.1 * vertex)[2], vertex / RADIUS, atol=1e-12)


def test_mesh_accessors_curvatures_support_and_bounds(sphere_mesh):
    m = sphere_mesh
    assert m.get_num_vertices() == len(m.vertices()) == 162
    assert m.get_num_faces() == len(m.faces()) == 320
    f = 7
    v = [m.get_vertex_position(m.get_face_vertex(f, k)) for k in range(3)]
    assert np.allclose(m.get_face_centroid(f), np.mean(v, axis=0))
    cross = np.cross(v[1] - v[0], v[2] - v[0])
    assert m.get_face_area(f) == pytest.approx(0.5 * np.linalg.norm(cross))
    assert np.allclose(m.get_face_normal(f), cross / np.linalg.norm(cross))
    assert m.get_face_area(f) == m.face_areas()[f]
    for arr in (m.vertices(), m.faces(), m.face_areas(), m.face_normals(), m.face_centroids()):
        with pytest.raises(ValueError):
            arr[0] = 0
    k, R = m.calc_surface_principal_curvatures(m.get_face_centroid(f))
    assert np.all(k == 0)
    assert np.allclose(R.as_matrix()[:, 2], m.get_face_normal(f))
    assert np.allclose(R.as_matrix().T @ R.as_matrix(), np.eye(3))
    d = np.array([0.2, -0.5, 0.9])
    s = m.calc_support_point(d)
    assert np.max(m.vertices() @ d) == pytest.approx(s @ d)
    centre, radius = m.get_bounding_sphere()
    assert np.all(np.linalg.norm(m.vertices() - centre, axis=1) <= radius + 1e-15)
    assert radius == pytest.approx(RADIUS)
    with pytest.raises(InvalidArgumentError, match="face must be an integer in 0..319"):
        m.get_face_normal(320)
    assert CG.TriangleMesh is TriangleMesh and CG.Brick is Brick and CG.Cylinder is Cylinder


# ---- Brick -------------------------------------------------------------------------------


@pytest.mark.parametrize("resolution", [1, 3])
def test_brick_mesh_volume_and_area(resolution):
    a, b, c = HALF
    brick = Brick(HALF, resolution=resolution)
    assert brick.get_num_faces() == 12 * resolution ** 2
    assert brick.get_volume() == pytest.approx(8 * a * b * c)
    assert brick.face_areas().sum() == pytest.approx(8 * (a * b + b * c + c * a))
    assert np.allclose(np.abs(brick.vertices()).max(axis=0), HALF)
    assert np.allclose(brick.get_half_lengths(), HALF)
    centroid_sides = np.isclose(np.abs(brick.face_centroids()), HALF).sum(axis=1)
    assert np.all(centroid_sides == 1)


def test_brick_signed_distance_matches_surface_sampling():
    brick = Brick(HALF)
    samples = box_surface_samples(HALF)
    spacing = 2 * HALF.max() / 120
    rng = np.random.default_rng(6)
    p = rng.uniform(-1.6, 1.6, (300, 3)) * HALF
    brute = cKDTree(samples).query(p)[0]
    for x, d in zip(p, brute):
        sd = brick.calc_signed_distance(x)
        assert abs(abs(sd) - d) <= spacing
        assert (sd < 0) == bool(np.all(np.abs(x) < HALF))
    assert brick.calc_signed_distance([0.1, 0.2, 0.3]) == pytest.approx(-0.2)
    assert brick.calc_signed_distance([0.5, 0.9, 0.8]) == pytest.approx(math.hypot(0.2, 0.4))


def test_mesh_kernel_on_brick_equals_analytic_brick():
    brick = Brick(HALF, resolution=2)
    rng = np.random.default_rng(7)
    p = rng.uniform(-1.5, 1.5, (400, 3)) * HALF
    q, inside, n = np.empty((400, 3)), np.empty(400, np.bool_), np.empty((400, 3))
    find_nearest_points_on_mesh(brick.vertices(), brick.faces(), brick.face_normals(), p, q,
                                inside, n)
    for i in range(len(p)):
        qi, ini, ni = brick.find_nearest_point(p[i])
        assert np.allclose(q[i], qi, atol=1e-12)
        assert inside[i] == ini
        assert np.allclose(n[i], ni, atol=1e-9)
    q_b, inside_b, n_b = brick.find_nearest_points(p)
    assert np.allclose(q_b, q, atol=1e-12) and np.array_equal(inside_b, inside)


def test_brick_normal_is_gradient_and_support_point():
    brick = Brick(HALF)
    rng = np.random.default_rng(8)
    for x in rng.uniform(-1.5, 1.5, (50, 3)) * HALF:
        assert np.allclose(signed_distance_gradient(brick, x), brick.find_nearest_point(x)[2],
                           atol=1e-6)
    assert np.allclose(brick.calc_support_point([1.0, -2.0, 3.0]), HALF * [1, -1, 1])
    k, R = brick.calc_surface_principal_curvatures([0.3, 0.1, 0.2])
    assert np.all(k == 0) and np.allclose(R.as_matrix()[:, 2], [1, 0, 0])
    centre, radius = brick.get_bounding_sphere()
    assert np.allclose(centre, 0) and radius == pytest.approx(np.linalg.norm(HALF))


# ---- Cylinder ----------------------------------------------------------------------------


def test_cylinder_mesh_and_analytic_queries():
    r, h = 0.4, 0.6
    cyl = Cylinder(r, h, resolution=24)
    assert cyl.get_radius() == r and cyl.get_half_length() == h
    assert cyl.get_num_faces() == 4 * 24
    m = 24
    assert cyl.get_volume() == pytest.approx(0.5 * m * r * r * math.sin(2 * math.pi / m) * 2 * h)
    assert np.allclose(np.hypot(*cyl.vertices()[:, :2].T)[:48], r)
    t, z = np.meshgrid(np.linspace(0, 2 * np.pi, 400), np.linspace(-h, h, 120))
    side = np.column_stack((r * np.cos(t.ravel()), r * np.sin(t.ravel()), z.ravel()))
    rr, tt = np.meshgrid(np.linspace(0, r, 60), np.linspace(0, 2 * np.pi, 400))
    disc = np.column_stack((rr.ravel() * np.cos(tt.ravel()), rr.ravel() * np.sin(tt.ravel())))
    caps = np.vstack([np.column_stack((disc, np.full(len(disc), s * h))) for s in (-1, 1)])
    samples = np.vstack((side, caps))
    rng = np.random.default_rng(9)
    p = rng.uniform(-1.5, 1.5, (200, 3)) * [r, r, h]
    for x, d in zip(p, cKDTree(samples).query(p)[0]):
        sd = cyl.calc_signed_distance(x)
        assert abs(abs(sd) - d) <= 0.011
        assert (sd < 0) == (math.hypot(x[0], x[1]) < r and abs(x[2]) < h)
        assert np.allclose(signed_distance_gradient(cyl, x), cyl.find_nearest_point(x)[2],
                           atol=1e-6)
    k, R = cyl.calc_surface_principal_curvatures([0.0, r, 0.1])
    assert np.allclose(k, [1 / r, 0]) and np.allclose(R.as_matrix()[:, 2], [0, 1, 0])
    assert np.allclose(R.as_matrix()[:, 1], [0, 0, 1])
    assert np.allclose(cyl.calc_surface_principal_curvatures([0.1, 0.0, h])[0], 0)
    assert np.allclose(cyl.calc_support_point([3.0, 4.0, -1.0]), [0.6 * r, 0.8 * r, -h])
    assert np.allclose(cyl.calc_support_point([0.0, 0.0, 2.0]), [0, 0, h])


# ---- the vectorized query for every shape ------------------------------------------------


def test_find_nearest_points_dispatch_matches_scalar_methods(sphere_mesh):
    rng = np.random.default_rng(10)
    p = rng.uniform(-2.0, 2.0, (25, 3))
    for shape in (CG.HalfSpace(), CG.Sphere(0.8), CG.Ellipsoid([1.0, 0.6, 0.4]), sphere_mesh,
                  Cylinder(0.5, 0.5)):
        q, inside, n = find_nearest_points(shape, p)
        for i in range(len(p)):
            qi, ini, ni = shape.find_nearest_point(p[i])
            assert np.allclose(q[i], qi, atol=1e-12) and inside[i] == ini
            assert np.allclose(n[i], ni, atol=1e-12)
    with pytest.raises(InvalidArgumentError, match="must be a ContactGeometry"):
        find_nearest_points("sphere", p)
    with pytest.raises(InvalidArgumentError, match=r"\(n, 3\) array"):
        find_nearest_points(CG.Sphere(1.0), [1.0, 2.0, 3.0])


# ---- validation --------------------------------------------------------------------------

TETRA_V = np.array([[0.0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
TETRA_F = np.array([[0, 2, 1], [0, 1, 3], [0, 3, 2], [1, 2, 3]])


def test_tetrahedron_is_valid():
    tet = TriangleMesh(TETRA_V, TETRA_F)
    assert tet.get_volume() == pytest.approx(1 / 6)
    assert np.allclose(tet.get_face_normal(0), [0, 0, -1])


@pytest.mark.parametrize("vertices, faces, message", [
    (TETRA_V, TETRA_F[:, ::-1], "winding is inverted.*reverse each face's vertex order"),
    (TETRA_V, np.vstack((TETRA_F[:3], [[1, 3, 2]])), "run in the same direction by faces"),
    (TETRA_V, np.vstack((TETRA_F, [[0, 1, 2]])), "run in the same direction by faces"),
    (TETRA_V, np.vstack((TETRA_F[:3], [[1, 2, 1]])), "face 3 .* has zero area"),
    ([[0.0, 0, 0], [1, 0, 0], [2, 0, 0], [0, 1, 0]], [[0, 1, 2], [0, 3, 1], [1, 3, 2],
                                                      [0, 2, 3]], "face 0 .* has zero area"),
    (TETRA_V, np.vstack((TETRA_F[:3], [[1, 2, 4]])), r"face 3 = \[1, 2, 4\] refers to a vertex"),
    (TETRA_V, np.vstack((TETRA_F[:3], [[1, 2, -1]])), "refers to a vertex outside 0..3"),
    (np.vstack((TETRA_V, [[5.0, 5, 5]])), TETRA_F, "vertex 4 is used by no face"),
    (np.vstack((TETRA_V[:3], [[0, 0, np.nan]])), TETRA_F, "vertex 3 .* is not finite"),
    (TETRA_V, TETRA_F.astype(float), "integer vertex indices"),
    (TETRA_V[:, :2], TETRA_F, r"\(nv, 3\) array"),
])
def test_invalid_meshes_are_refused_with_the_fix(vertices, faces, message):
    with pytest.raises(InvalidArgumentError, match=message):
        TriangleMesh(vertices, faces)


def test_open_mesh_is_refused(ico):
    with pytest.raises(InvalidArgumentError, match="not closed.*fill its holes"):
        TriangleMesh(ico.vertices, ico.faces[:-1])


def test_primitive_arguments_are_checked():
    with pytest.raises(InvalidArgumentError, match="three lengths"):
        Brick([1.0, 2.0])
    with pytest.raises(ValueError, match="half_lengths\\[1\\]"):
        Brick([1.0, -2.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="resolution must be an integer ≥ 3"):
        Cylinder(1.0, 1.0, resolution=2)
    with pytest.raises(InvalidArgumentError, match="resolution must be an integer ≥ 1"):
        Brick(HALF, resolution=0.5)


# ---- files -------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", ["obj", "stl"])
def test_load_round_trips_a_box(tmp_path, suffix):
    extents = [0.2, 0.6, 1.0]
    path = tmp_path / f"box.{suffix}"
    trimesh.creation.box(extents=extents).export(path)
    mesh = TriangleMesh.load(path)
    assert mesh.get_volume() == pytest.approx(np.prod(extents))
    assert mesh.get_num_vertices() == 8 and mesh.get_num_faces() == 12
    assert mesh.calc_signed_distance([0.0, 0.0, 0.0]) == pytest.approx(-0.1)


def test_load_refuses_open_and_missing_files(tmp_path):
    box = trimesh.creation.box()
    open_box = trimesh.Trimesh(box.vertices, box.faces[:-2], process=False)
    path = tmp_path / "open.stl"
    open_box.export(path)
    with pytest.raises(InvalidArgumentError, match="open.stl.*not a valid closed mesh.*closed"):
        TriangleMesh.load(path)
    with pytest.raises(InvalidArgumentError, match="missing.obj.*no such file"):
        TriangleMesh.load(tmp_path / "missing.obj")
    with pytest.raises(InvalidArgumentError, match="expected a trimesh.Trimesh"):
        TriangleMesh.from_trimesh(np.zeros((4, 3)))


def test_a_polygonal_sphere_is_simbodys_and_makes_a_closed_contact_mesh():
    """PolygonalMesh.create_sphere_mesh: the octahedron split ``resolution`` times, 8 x 4^k
    triangles and 4^(k+1) + 2 vertices, every vertex on the sphere; as a TriangleMesh it is
    closed and outward, and its volume approaches 4/3 π r³ from below as it is refined.
    A PolygonalMesh's polygons are split into triangles for the TriangleMesh."""
    radius = 0.3
    volumes = []
    for k in range(5):
        mesh = kt.PolygonalMesh.create_sphere_mesh(radius, k)
        assert (mesh.get_num_faces(), mesh.get_num_vertices()) == (8 * 4 ** k, 4 ** (k + 1) + 2)
        vertices = [mesh.get_vertex_position(i) for i in range(mesh.get_num_vertices())]
        np.testing.assert_allclose(np.linalg.norm(vertices, axis=1), radius, rtol=1e-15)
        volumes.append(kt.ContactGeometry.TriangleMesh(mesh).get_volume())
    exact = 4.0 / 3.0 * np.pi * radius ** 3
    assert np.all(np.diff(volumes) > 0) and volumes[-1] < exact
    assert volumes[-1] == pytest.approx(exact, rel=0.01)
    square = kt.PolygonalMesh()
    for p in ([0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0], [0.5, 0.5, 1]):
        square.add_vertex(p)
    square.add_face([0, 3, 2, 1])                   # the base, a quad seen from below
    for a, b in ((0, 1), (1, 2), (2, 3), (3, 0)):
        square.add_face([a, b, 4])
    pyramid = kt.ContactGeometry.TriangleMesh(square)
    assert pyramid.get_volume() == pytest.approx(1.0 / 3.0, rel=1e-14)
    with pytest.raises(InvalidArgumentError, match="three or more indices"):
        square.add_face([0, 9, 1])
