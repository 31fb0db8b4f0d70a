"""Capsules in the contact subsystems: each pair's contact against its closed form (a
capsule touches as the ball about its segment's nearest point, a floor as the ball about
each end inside it), the compliant force against Hertz's (crossed cylinders of one radius
press as a sphere of that radius on a plane), the elastic foundation's springs against a
capsule's surface, a capsule on an ellipsoid against ``closest_points``; spheres, capsules
and ellipsoids on boxes, cylinders and hulls met as solids (Hertz point contacts)."""

import math

import numpy as np
import pytest
from test_compliant import Scene, frictionless

import kinetree as kt
from kinetree.contact import eccentricity_factor, hertz_composite_stiffness

E = hertz_composite_stiffness(1e6, 1e6)


def _hertz(x, kmax, kmin):
    """σ (4/3) E* √R x^(3/2), R = 2 / (kmax + kmin)."""
    return eccentricity_factor(kmax, kmin) * 4 / 3 * E * math.sqrt(2 / (kmax + kmin)) \
        * x ** 1.5


def _forces(scene, state):
    return [scene.contact.get_contact_force(state, i)
            for i in range(scene.contact.get_num_contact_forces(state))]


def test_a_capsule_on_the_floor_rests_on_its_ends():
    """Standing, one contact at its lower end; lying tilted, one at each end, each the
    Hertz force of a ball of its radius pressed in by that end's depth."""
    r, h = 0.05, 0.2
    s = Scene(gravity=None)
    s.floor(frictionless())
    capsule = s.body(kt.ContactGeometry.Capsule(r, h), frictionless())
    state = s.system.realize_topology()
    x = 1e-3
    # standing: S's z (the axis) along Ground's y, the floor's normal
    capsule.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_x(-math.pi / 2),
                                                       [0.1, h + r - x, 0.3]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-12)
    assert cf.normal_force == pytest.approx(_hertz(x, 1 / r, 1 / r), rel=1e-12)
    assert cf.normal == pytest.approx([0, 1, 0], abs=1e-15)
    # lying, one end 1 mm lower than the other
    tilt = math.asin(1e-3 / (2 * h))
    capsule.set_q_to_fit_transform(state, kt.Transform(
        kt.Rotation.about_x(tilt), [0.0, r - 2e-3, 0.0]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    depths = sorted(f.depth for f in _forces(s, state))
    assert depths == pytest.approx([1.5e-3, 2.5e-3], rel=1e-9)
    for f in _forces(s, state):
        assert f.normal_force == pytest.approx(_hertz(f.depth, 1 / r, 1 / r), rel=1e-12)


def test_a_sphere_on_a_capsules_side_and_end():
    """On the side the gap curves by 1/rs + 1/rc around the axis and 1/rs along it; on
    the end, by 1/rs + 1/rc both ways."""
    rs, rc, h, x = 0.1, 0.05, 0.3, 2e-3
    s = Scene(gravity=None)
    s.body(kt.ContactGeometry.Capsule(rc, h), frictionless(), mobilizer="Weld",
                     X_PF=kt.Transform())
    ball = s.body(kt.ContactGeometry.Sphere(rs), frictionless())
    state = s.system.realize_topology()
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [rs + rc - x, 0, 0.1]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    contacts = s.tracker.get_active_contacts(state)
    assert contacts.depth[0] == pytest.approx(x, rel=1e-12)
    assert (contacts.kmax[0], contacts.kmin[0]) == pytest.approx((1 / rs + 1 / rc, 1 / rs))
    assert abs(contacts.kdir[0] @ [0, 0, 1]) < 1e-15          # kmax: around the axis
    assert cf.normal_force == pytest.approx(_hertz(x, 1 / rs + 1 / rc, 1 / rs), rel=1e-12)
    ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, 0, h + rs + rc - x]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.normal == pytest.approx([0, 0, -1], abs=1e-15)     # from the sphere
    assert cf.normal_force == pytest.approx(_hertz(x, 1 / rs + 1 / rc, 1 / rs + 1 / rc),
                                            rel=1e-12)


def test_crossed_capsules_press_as_a_sphere_on_a_plane():
    """Two capsules of radius r crossed at right angles, side on side: the gap is
    curved 1/r both ways, so the force is a sphere of radius r's on a plane."""
    r, x = 0.04, 1e-3
    s = Scene(gravity=None)
    lower = s.body(kt.ContactGeometry.Capsule(r, 0.3), frictionless(), mobilizer="Weld",
                   X_PF=kt.Transform())
    upper = s.body(kt.ContactGeometry.Capsule(r, 0.3), frictionless())
    state = s.system.realize_topology()
    # the lower along z, the upper along x, above it
    upper.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(math.pi / 2),
                                                     [0, 2 * r - x, 0]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-12)
    assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * x ** 1.5, rel=1e-12)
    assert lower.get_mobilized_body_index() in (cf.body1, cf.body2)


def test_a_mesh_on_a_capsule_has_springs_on_the_capsules_surface():
    """A triangle mesh (a slab's, not a Brick: a Brick meets a capsule as a box) pressed
    onto a capsule: its springs are the face centroids inside the capsule, each pressing
    on the capsule's nearest surface point."""
    r, h = 0.05, 0.3
    s = Scene(gravity=None)
    s.body(kt.ContactGeometry.Capsule(r, h), frictionless(), mobilizer="Weld",
           X_PF=kt.Transform())
    slab = kt.ContactGeometry.Brick([0.2, 0.05, 0.2], resolution=8)
    brick = s.body(kt.ContactGeometry.TriangleMesh(slab.get_vertices(), slab.get_faces()),
                   frictionless())
    state = s.system.realize_topology()
    brick.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), [0, r + 0.05 - 1e-2, 0]))
    s.system.realize(state, kt.Stage.POSITION)
    buffers = s.tracker._buffers(state)
    (springs,) = buffers.meshes
    assert len(springs.faces) > 0
    axis_point = np.column_stack([np.zeros((len(springs.faces), 2)),
                                  np.clip(springs.nearest_G[:, 2], -h, h)])
    assert np.linalg.norm(springs.nearest_G - axis_point, axis=1) == pytest.approx(r, rel=1e-12)
    # every spring is a face centroid inside the capsule
    inside = springs.spring_G - np.column_stack([np.zeros((len(springs.faces), 2)),
                                                 np.clip(springs.spring_G[:, 2], -h, h)])
    assert np.all(np.linalg.norm(inside, axis=1) < r)


def test_a_capsule_on_an_ellipsoid_and_their_separation():
    s = Scene(gravity=None)
    ellipsoid = kt.ContactGeometry.Ellipsoid([0.3, 0.2, 0.25])
    capsule = kt.ContactGeometry.Capsule(0.05, 0.2)
    weld = s.body(ellipsoid, frictionless(), mobilizer="Weld", X_PF=kt.Transform())
    body = s.body(capsule, frictionless())
    state = s.system.realize_topology()
    X = kt.Transform(kt.Rotation.about_z(0.3), [0.1, 0.22, 0.05])
    body.set_q_to_fit_transform(state, X)
    s.system.realize(state, kt.Stage.DYNAMICS)
    found = kt.contact.closest_points(X, capsule, kt.Transform(), ellipsoid)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(-found.distance, rel=1e-9)
    assert cf.normal == pytest.approx(found.normal, abs=1e-9)     # capsule to ellipsoid
    a, b = s.tracker.get_surface_index(weld, 0), s.tracker.get_surface_index(body, 0)
    assert s.tracker.calc_separation(state, a, b) == pytest.approx(found.distance, rel=1e-9)


def test_the_viewer_draws_capsules_and_hulls_as_their_surfaces():
    """The drawn capsule's vertices are on its surface (r from its segment); the hull's are
    its own."""
    from kinetree.viz.scene import contact_decoration

    r, h = 0.1, 0.3
    drawn = contact_decoration(kt.ContactGeometry.Capsule(r, h))
    vertices = drawn.get_vertices()
    axis = np.column_stack([np.zeros((len(vertices), 2)), np.clip(vertices[:, 2], -h, h)])
    assert np.linalg.norm(vertices - axis, axis=1) == pytest.approx(r, rel=1e-9)
    assert vertices[:, 2].max() == pytest.approx(h + r)
    hull = kt.ContactGeometry.Convex(np.eye(3).tolist() + [[0, 0, 0], [0.1, 0.1, 0.1]])
    assert contact_decoration(hull).get_vertices() == pytest.approx(hull.get_vertices())


# ------------------------------------------------------------ balls on a Brick
HALF = np.array([0.2, 0.05, 0.15])


def _ball_near(s, ball, state, r, X_GS, solid, local, rng):
    """(the contact force, ``closest_points``' answer) of the sphere of radius r centred
    at ``local`` (in the solid's frame, jittered by 1 mm) against the solid posed X_GS,
    which it must overlap."""
    centre = X_GS.p + X_GS.R.as_matrix() @ (np.array(local) + rng.normal(0, 1e-3, 3))
    X = kt.Transform(kt.Rotation(), centre)
    ball.set_q_to_fit_transform(state, X)
    s.system.realize(state, kt.Stage.DYNAMICS)
    found = kt.contact.closest_points(X, kt.ContactGeometry.Sphere(r), X_GS, solid)
    assert found.distance < 0.0
    (cf,) = _forces(s, state)
    return cf, found


def _box_scene(ball):
    s = Scene(gravity=None)
    box = s.body(kt.ContactGeometry.Brick(HALF), frictionless(), mobilizer="Weld",
                 X_PF=kt.Transform(kt.Rotation.about_y(0.4), [0.1, -0.2, 0.3]))
    body = s.body(ball, frictionless())
    return s, box, body, s.system.realize_topology()


def _pressed_into_the_top(s, box, ball, state, r, x):
    """(the contact force, the top face's normal in G) of the sphere of radius r pressed x
    into the middle of the box's top face (y = HALF[1]): Hertz's force of a sphere on a
    plane, down the face's normal (from the sphere, surface 1, into the box)."""
    X_GB = box.get_body_transform(state)
    up = X_GB.R.as_matrix()[:, 1]
    ball.set_q_to_fit_transform(state, kt.Transform(
        kt.Rotation(), X_GB.p + X_GB.R.as_matrix() @ [0.05, 0.0, -0.04]
        + (HALF[1] + r - x) * up))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-12)
    assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * x ** 1.5, rel=1e-12)
    assert cf.normal == pytest.approx(-up, abs=1e-15)
    return cf, up


def test_a_sphere_on_a_brick_is_a_hertz_contact():
    """Pressed x into the middle of a face, the force is Hertz's for a sphere of its
    radius on a plane, along the face's normal; over an edge and a corner, and deep
    inside, the depth and normal are those of ``closest_points``."""
    r, x = 0.06, 1.5e-3
    s, box, ball, state = _box_scene(kt.ContactGeometry.Sphere(r))
    s.system.realize(state, kt.Stage.POSITION)
    X_GB = box.get_body_transform(state)
    cf, up = _pressed_into_the_top(s, box, ball, state, r, x)
    F = s.matter.upd_body_forces(state)[ball.get_mobilized_body_index()]
    np.testing.assert_allclose(F[3:], cf.normal_force * up, rtol=0, atol=1e-12)
    a, b = (s.tracker.get_surface_index(ball, 0), s.tracker.get_surface_index(box, 0))
    assert s.tracker.calc_separation(state, a, b) == pytest.approx(-x, rel=1e-12)

    rng = np.random.default_rng(5)
    brick = kt.ContactGeometry.Brick(HALF)
    for local in ([0.2 + 0.03, 0.05 + 0.04, 0.0], [0.2 + 0.02, 0.05 + 0.03, 0.15 + 0.02],
                  [0.19, 0.0, 0.1], [0.0, 0.03, 0.0]):
        cf, found = _ball_near(s, ball, state, r, X_GB, brick, local, rng)
        assert cf.depth == pytest.approx(-found.distance, abs=1e-10)
        assert cf.normal == pytest.approx(found.normal, abs=1e-9)
        assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * cf.depth ** 1.5,
                                                rel=1e-12)


def test_a_capsule_on_a_brick_rests_on_its_ends_and_rides_an_edge():
    """Lying tilted on a face, the capsule touches at each end with the Hertz force of a
    ball of its radius (as on a floor); laid across an edge, at its point nearest the
    edge, with the depth and normal of ``closest_points``, pressing as a ball of its
    radius too."""
    r, h = 0.03, 0.12
    capsule = kt.ContactGeometry.Capsule(r, h)
    s, box, body, state = _box_scene(capsule)
    X_GB = box.get_body_transform(s.system.realize(state, kt.Stage.POSITION) or state)
    R = X_GB.R.as_matrix()
    # along the box's x, one end 1 mm lower than the other, 1.5 and 2.5 mm deep
    tilt = math.asin(1e-3 / (2 * h))
    X = kt.Transform(X_GB.R @ kt.Rotation.about_y(math.pi / 2) @ kt.Rotation.about_x(tilt),
                     X_GB.p + R @ [0.0, HALF[1] + r - 2e-3, 0.0])
    body.set_q_to_fit_transform(state, X)
    s.system.realize(state, kt.Stage.DYNAMICS)
    forces = _forces(s, state)
    assert sorted(f.depth for f in forces) == pytest.approx([1.5e-3, 2.5e-3], rel=1e-9)
    for f in forces:
        assert f.normal_force == pytest.approx(_hertz(f.depth, 1 / r, 1 / r), rel=1e-12)
        assert f.normal == pytest.approx(-R[:, 1], abs=1e-12)
    # across the edge x = +0.2, y = +0.05 of the box (along its z), square to it, its
    # middle sunk 2 mm into the edge along the edge's outward diagonal: both ends clear
    diagonal = np.array([1.0, 1.0, 0.0]) / math.sqrt(2)
    X = kt.Transform(X_GB.R @ kt.Rotation.about_z(-math.pi / 4) @ kt.Rotation.about_y(math.pi / 2),
                     X_GB.p + R @ ([0.2, 0.05, 0.02] + (r - 2e-3) * diagonal))
    body.set_q_to_fit_transform(state, X)
    s.system.realize(state, kt.Stage.DYNAMICS)
    found = kt.contact.closest_points(X, capsule, X_GB, kt.ContactGeometry.Brick(HALF))
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(2e-3, rel=1e-9)
    assert cf.depth == pytest.approx(-found.distance, abs=1e-10)
    assert cf.normal == pytest.approx(found.normal, abs=1e-9)
    assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * cf.depth ** 1.5,
                                            rel=1e-12)


def test_capsules_side_by_side_touch_at_the_ends_of_their_overlap():
    """Two capsules lying parallel, pressed x into each other, their lengths overlapping
    over [-0.2, 0.3] of the lower's axis: they touch as the balls about the two ends of
    the overlap, each the Hertz force of two spheres of their radii (a line contact has
    no Hertz point force). Once turned 0.3 rad apart they cross: one contact."""
    r1, r2, x = 0.04, 0.05, 1e-3
    s = Scene(gravity=None)
    s.body(kt.ContactGeometry.Capsule(r1, 0.3), frictionless(), mobilizer="Weld",
           X_PF=kt.Transform())
    upper = s.body(kt.ContactGeometry.Capsule(r2, 0.25), frictionless())
    state = s.system.realize_topology()
    upper.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(),
                                                     [0, r1 + r2 - x, 0.05]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    forces = _forces(s, state)
    assert len(forces) == 2
    R = r1 * r2 / (r1 + r2)
    for f in forces:
        assert f.depth == pytest.approx(x, rel=1e-12)
        assert f.normal_force == pytest.approx(4 / 3 * E * math.sqrt(R) * x ** 1.5,
                                               rel=1e-12)
    assert sorted(f.point[2] for f in forces) == pytest.approx([-0.2, 0.3], abs=1e-12)
    upper.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_y(0.3),
                                                     [0, r1 + r2 - x, 0.05]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-9)


# ------------------------------------------------------------ balls on a Cylinder
RADIUS, HALF_LENGTH = 0.1, 0.15


def _cylinder_scene(ball):
    s = Scene(gravity=None)
    cylinder = s.body(kt.ContactGeometry.Cylinder(RADIUS, HALF_LENGTH), frictionless(),
                      mobilizer="Weld",
                      X_PF=kt.Transform(kt.Rotation.about_x(0.7), [-0.1, 0.2, 0.05]))
    body = s.body(ball, frictionless())
    state = s.system.realize_topology()
    s.system.realize(state, kt.Stage.POSITION)
    return s, cylinder, body, state, cylinder.get_body_transform(state)


def test_a_sphere_on_a_cylinder_is_a_hertz_contact():
    """Pressed x into the round side, the force is Hertz's for a sphere on a cylinder
    (the gap curves 1/r + 1/R around the axis, 1/r along it), along the radius; into a
    cap's middle, a sphere's on a plane; over a rim, the depth and normal are those of
    ``closest_points``; with its centre inside, out through the nearest side."""
    r, x = 0.04, 1.2e-3
    s, cylinder, ball, state, X_GC = _cylinder_scene(kt.ContactGeometry.Sphere(r))
    R = X_GC.R.as_matrix()
    out = R @ np.array([math.cos(0.4), math.sin(0.4), 0.0])      # a radius, in G
    ball.set_q_to_fit_transform(state, kt.Transform(
        kt.Rotation(), X_GC.p + R @ [0, 0, 0.06] + (RADIUS + r - x) * out))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-12)
    assert cf.normal == pytest.approx(-out, abs=1e-15)
    assert cf.normal_force == pytest.approx(_hertz(x, 1 / r + 1 / RADIUS, 1 / r), rel=1e-12)
    # the cap at +z
    axis = R[:, 2]
    ball.set_q_to_fit_transform(state, kt.Transform(
        kt.Rotation(), X_GC.p + R @ [0.02, -0.01, 0] + (HALF_LENGTH + r - x) * axis))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.normal == pytest.approx(-axis, abs=1e-15)
    assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * x ** 1.5, rel=1e-12)
    a, b = (s.tracker.get_surface_index(ball, 0), s.tracker.get_surface_index(cylinder, 0))
    assert s.tracker.calc_separation(state, a, b) == pytest.approx(-x, rel=1e-9)

    rng = np.random.default_rng(7)
    solid = kt.ContactGeometry.Cylinder(RADIUS, HALF_LENGTH)
    for local in ([0.1 + 0.02, 0.0, 0.15 + 0.02], [-0.08, 0.06, -0.15 - 0.025]):
        # beyond a rim: closest_points' exact closest points
        cf, found = _ball_near(s, ball, state, r, X_GC, solid, local, rng)
        assert cf.depth == pytest.approx(-found.distance, abs=1e-12)
        assert cf.normal == pytest.approx(found.normal, abs=1e-12)
    for local in ([0.0, 0.09, 0.1], [0.01, 0.0, 0.14], [0.02, 0.01, 0.0]):
        # the centre inside: out through the nearer of the round side and a cap
        c = np.array(local) + rng.normal(0, 1e-3, 3)
        ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), X_GC.p + R @ c))
        s.system.realize(state, kt.Stage.DYNAMICS)
        (cf,) = _forces(s, state)
        rho = math.hypot(c[0], c[1])
        if RADIUS - rho < HALF_LENGTH - abs(c[2]):
            depth, out = r + RADIUS - rho, [c[0] / rho, c[1] / rho, 0.0]
        else:
            depth, out = r + HALF_LENGTH - abs(c[2]), [0.0, 0.0, math.copysign(1, c[2])]
        assert cf.depth == pytest.approx(depth, rel=1e-14)
        assert cf.normal == pytest.approx(-R @ out, abs=1e-15)


def test_a_capsule_across_a_cylinder_presses_as_crossed_cylinders():
    """A capsule of the cylinder's radius laid across its round side at right angles,
    its middle sunk x, ends clear: one contact, crossed cylinders of one radius, which
    press as a sphere of that radius on a plane; turned 0.5 rad about the normal, the
    gap's curvatures are those of the two sides at that angle (Hertz's ellipse). Laid
    along the side, parallel to the axis, it rests on its two ends."""
    h = 0.12
    capsule = kt.ContactGeometry.Capsule(RADIUS, h)
    s, cylinder, body, state, X_GC = _cylinder_scene(capsule)
    R = X_GC.R.as_matrix()
    x = 1e-3
    on_top = X_GC.p + (2 * RADIUS - x) * R[:, 0]      # over the side, along the radius x
    # the capsule's axis (its z) along the cylinder's y: square to the cylinder's axis
    body.set_q_to_fit_transform(state, kt.Transform(X_GC.R @ kt.Rotation.about_x(math.pi / 2),
                                                    on_top))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-9)
    assert cf.normal == pytest.approx(-R[:, 0], abs=1e-12)
    assert cf.normal_force == pytest.approx(4 / 3 * E * math.sqrt(RADIUS) * x ** 1.5,
                                            rel=1e-9)
    # turned by an angle about the normal: curvature 1/R across each axis
    angle = 0.5
    body.set_q_to_fit_transform(state, kt.Transform(
        X_GC.R @ kt.Rotation.about_x(angle) @ kt.Rotation.about_x(math.pi / 2), on_top))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    k = 1 / RADIUS
    # k u uᵀ + k v vᵀ, u and v the directions across the two axes, cos(u, v) = sin(angle)
    spread = k * math.sin(angle)
    assert cf.normal_force == pytest.approx(_hertz(cf.depth, k + spread, k - spread),
                                            rel=1e-9)
    # along the side: both ends, each a sphere of radius r on a cylinder of radius R
    body.set_q_to_fit_transform(state, kt.Transform(X_GC.R, on_top))
    s.system.realize(state, kt.Stage.DYNAMICS)
    forces = _forces(s, state)
    assert len(forces) == 2
    for f in forces:
        assert f.depth == pytest.approx(x, rel=1e-9)
        assert f.normal_force == pytest.approx(_hertz(x, 2 / RADIUS, 1 / RADIUS), rel=1e-9)


# ------------------------------------------------------------ hulls, ellipsoids on solids
CORNERS = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * HALF
"""The Brick's corners: their Convex hull is the same box, met by another algorithm."""


def _hull_and_brick(shape):
    """For the Convex of CORNERS and for the Brick of HALF, each posed as in _box_scene:
    (scene, solid body, shape's body, State realized to POSITION)."""
    scenes = []
    for solid in (kt.ContactGeometry.Convex(CORNERS), kt.ContactGeometry.Brick(HALF)):
        s = Scene(gravity=None)
        box = s.body(solid, frictionless(), mobilizer="Weld",
                     X_PF=kt.Transform(kt.Rotation.about_y(0.4), [0.1, -0.2, 0.3]))
        body = s.body(shape, frictionless())
        state = s.system.realize_topology()
        s.system.realize(state, kt.Stage.POSITION)
        scenes.append((s, box, body, state))
    return scenes


def test_a_sphere_on_a_hull_is_a_hertz_contact_as_on_the_same_box():
    """A sphere pressed x into a hull's face gets Hertz's force of a sphere on a plane,
    along the face's normal (not the elastic foundation of the hull's triangles). Near
    edges and corners, and deep inside, the hull (by its triangles) and the Brick (by
    the box's own nearest points) give the same contact."""
    r, x = 0.06, 1.5e-3
    (s, box, ball, state), (s2, _, ball2, state2) = _hull_and_brick(
        kt.ContactGeometry.Sphere(r))
    X_GB = box.get_body_transform(state)
    _pressed_into_the_top(s, box, ball, state, r, x)
    rng = np.random.default_rng(11)
    for local in ([0.2 + 0.03, 0.05 + 0.04, 0.0], [0.2 + 0.02, 0.05 + 0.03, 0.15 + 0.02],
                  [0.19, 0.0, 0.1], [0.0, 0.03, 0.0], [-0.1, -0.02, 0.14]):
        centre = X_GB.p + X_GB.R.as_matrix() @ (np.array(local) + rng.normal(0, 1e-3, 3))
        for scene, body, st in ((s, ball, state), (s2, ball2, state2)):
            body.set_q_to_fit_transform(st, kt.Transform(kt.Rotation(), centre))
            scene.system.realize(st, kt.Stage.DYNAMICS)
        (on_hull,), (on_brick,) = _forces(s, state), _forces(s2, state2)
        assert on_hull.depth == pytest.approx(on_brick.depth, abs=1e-10)
        assert on_hull.normal == pytest.approx(on_brick.normal, abs=1e-9)
        assert on_hull.normal_force == pytest.approx(on_brick.normal_force, rel=1e-7)


def test_a_capsule_on_a_hull_rests_on_its_ends_and_rides_an_edge():
    """Lying tilted on a face, the capsule touches at each end; laid across an edge, at
    its point nearest the edge: the same contacts as on the Brick of the same box, each
    the Hertz force of a ball of the capsule's radius."""
    r, h = 0.03, 0.12
    scenes = _hull_and_brick(kt.ContactGeometry.Capsule(r, h))
    X_GB = scenes[0][1].get_body_transform(scenes[0][3])
    R = X_GB.R.as_matrix()
    tilt = math.asin(1e-3 / (2 * h))
    lying = kt.Transform(X_GB.R @ kt.Rotation.about_y(math.pi / 2) @ kt.Rotation.about_x(tilt),
                         X_GB.p + R @ [0.0, HALF[1] + r - 2e-3, 0.0])
    diagonal = np.array([1.0, 1.0, 0.0]) / math.sqrt(2)
    across = kt.Transform(
        X_GB.R @ kt.Rotation.about_z(-math.pi / 4) @ kt.Rotation.about_y(math.pi / 2),
        X_GB.p + R @ ([0.2, 0.05, 0.02] + (r - 2e-3) * diagonal))
    for X, depths in ((lying, [1.5e-3, 2.5e-3]), (across, [2e-3])):
        found = []
        for s, _, body, state in scenes:
            body.set_q_to_fit_transform(state, X)
            s.system.realize(state, kt.Stage.DYNAMICS)
            found.append(sorted(_forces(s, state), key=lambda f: f.depth))
        on_hull, on_brick = found
        assert [f.depth for f in on_hull] == pytest.approx(depths, rel=1e-9)
        for a, b in zip(on_hull, on_brick, strict=True):
            assert a.depth == pytest.approx(b.depth, abs=1e-10)
            assert a.normal == pytest.approx(b.normal, abs=1e-9)
            assert a.normal_force == pytest.approx(4 / 3 * E * math.sqrt(r) * a.depth ** 1.5,
                                                   rel=1e-9)


def test_spheres_and_capsules_on_a_hull_agree_with_closest_points_and_run_compiled():
    """On a hull of 40 random points, a sphere's contact at random poses (near the
    surface, across edges and corners, deep inside) has the depth, normal and origin of
    ``closest_points`` (GJK and EPA, another algorithm), and a capsule's deepest contact
    the depth of its own query; the tracker's separation of the two, a trigger for the
    onset of contact, is that query's. No Python runs per pair: the scene's realization
    is compiled throughout."""
    from kinetree.contact.convex import closest_points

    rng = np.random.default_rng(5)
    points = rng.normal(size=(40, 3)) * [0.12, 0.08, 0.1]
    hull = kt.ContactGeometry.Convex(points)
    for shape in (kt.ContactGeometry.Sphere(0.04), kt.ContactGeometry.Capsule(0.03, 0.06)):
        s = Scene(gravity=None)
        solid = s.body(hull, frictionless(), mobilizer="Weld",
                       X_PF=kt.Transform(kt.Rotation.about_y(0.4), [0.1, -0.2, 0.3]))
        body = s.body(shape, frictionless())
        state = s.system.realize_topology()
        s.system.realize(state, kt.Stage.INSTANCE)
        assert s.system._compiled_stepper(state.copy()) is not None
        s.system.realize(state, kt.Stage.POSITION)
        X_GH = solid.get_body_transform(state)
        checked = 0
        R_GH = X_GH.R.as_matrix()
        for _ in range(80):
            direction = rng.normal(size=3)
            direction /= np.linalg.norm(direction)
            # from halfway to the hull's surface along the direction to 8 cm beyond it
            reach = max(hull.get_vertices() @ (R_GH.T @ direction))
            X = kt.Transform(kt.Rotation.from_quaternion(rng.normal(size=4)),
                             X_GH.p + rng.uniform(0.5 * reach, reach + 0.08) * direction)
            body.set_q_to_fit_transform(state, X)
            s.system.realize(state, kt.Stage.DYNAMICS)
            found = closest_points(body.get_body_transform(state), shape, X_GH, hull)
            forces = _forces(s, state)
            surfaces = (s.tracker.get_surface_index(body, 0),
                        s.tracker.get_surface_index(solid, 0))
            assert s.tracker.calc_separation(state, *surfaces) == found.distance
            if found.distance >= 0.0:
                assert not forces
                continue
            if isinstance(shape, kt.ContactGeometry.Capsule) and -found.distance >= 0.03:
                # Its segment inside the hull: the query's depth moves the whole segment
                # out, the contacts' each ball by its own way (as on a Brick).
                continue
            deepest = max(forces, key=lambda f: f.depth)
            assert deepest.depth == pytest.approx(-found.distance, abs=1e-10)
            if isinstance(shape, kt.ContactGeometry.Sphere):
                contacts = s.tracker.get_active_contacts(state)
                assert deepest.normal == pytest.approx(found.normal, abs=1e-8)
                # halfway from the sphere's deepest point to the hull's face under it
                # (the search's witness on a flat side may lie anywhere along it)
                assert contacts.origin[0] == pytest.approx(
                    found.point_a + 0.5 * found.distance * found.normal, abs=1e-9)
            checked += 1
        assert checked >= 15


def test_an_ellipsoid_on_a_solid_is_an_elliptic_hertz_contact():
    """An ellipsoid of semi-axes (a, b, c) pressed x into a box's face along its b axis
    touches at (0, b, 0), where its surface curves b/a² and b/c²: Hertz's force for the
    ellipse of those curvatures, on the Brick and on its hull alike. On a cylinder's
    round side, with the a axis along the side's turning, the cylinder's 1/R adds to
    b/a²; on a cap, the face is flat."""
    radii = np.array([0.05, 0.03, 0.08])
    a, b, c = radii
    x = 1.5e-3
    k_a, k_c = b / a ** 2, b / c ** 2
    for s, box, body, state in _hull_and_brick(kt.ContactGeometry.Ellipsoid(radii)):
        X_GB = box.get_body_transform(state)
        R = X_GB.R.as_matrix()
        # below the face y = -HALF[1], the ellipsoid's axes along the box's
        body.set_q_to_fit_transform(state, kt.Transform(
            X_GB.R, X_GB.p + R @ [-0.1, -(HALF[1] + b - x), 0.0]))
        s.system.realize(state, kt.Stage.DYNAMICS)
        (cf,) = _forces(s, state)
        contacts = s.tracker.get_active_contacts(state)
        assert cf.depth == pytest.approx(x, rel=1e-9)
        assert cf.normal == pytest.approx(R[:, 1], abs=1e-9)      # from the ellipsoid, up
        assert (contacts.kmax[0], contacts.kmin[0]) == pytest.approx((k_a, k_c), rel=1e-6)
        assert abs(contacts.kdir[0] @ R[:, 0]) == pytest.approx(1, abs=1e-6)
        assert cf.normal_force == pytest.approx(_hertz(x, k_a, k_c), rel=1e-6)

    s, _, body, state, X_GC = _cylinder_scene(kt.ContactGeometry.Ellipsoid(radii))
    R = X_GC.R.as_matrix()
    # its b axis along the cylinder's x (a radius) and its c axis along the cylinder's
    # axis, so that its a axis lies along the side's turning direction
    turned = kt.Rotation(np.column_stack((R[:, 1], R[:, 0], -R[:, 2])))
    body.set_q_to_fit_transform(state, kt.Transform(
        turned, X_GC.p + R @ [RADIUS + b - x, 0.0, 0.05]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.depth == pytest.approx(x, rel=1e-9)
    # two curved surfaces: closest_points' search settles the normal to about 1e-7
    assert cf.normal == pytest.approx(-R[:, 0], abs=1e-7)
    assert cf.normal_force == pytest.approx(_hertz(x, k_a + 1 / RADIUS, k_c), rel=1e-6)
    # on the cap at +z, its b axis along the cylinder's: flat
    capped = kt.Rotation(np.column_stack((R[:, 0], R[:, 2], -R[:, 1])))
    body.set_q_to_fit_transform(state, kt.Transform(
        capped, X_GC.p + R @ [0.02, 0.0, HALF_LENGTH + b - x]))
    s.system.realize(state, kt.Stage.DYNAMICS)
    (cf,) = _forces(s, state)
    assert cf.normal == pytest.approx(-R[:, 2], abs=1e-9)
    assert cf.normal_force == pytest.approx(_hertz(x, k_a, k_c), rel=1e-6)
