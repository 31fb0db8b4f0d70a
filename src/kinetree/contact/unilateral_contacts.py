"""Unilateral contacts generated from the bodies' contact surfaces, for the
SemiExplicitEulerTimeStepper: every corner of a Brick and every vertex of a Convex hull
gets a PointPlaneContact with every half space on another body, every sphere a
SpherePlaneContact with it (a capsule one for each of its end spheres, on which it rests
whichever way it lies) and a SphereSphereContact with every sphere on another body;
two Bricks on two bodies get, at each step, a PointPlaneContact at each point of their
contact manifold (``box_manifold.py``). The friction is combined from the two surfaces'
materials as compliant contact combines it (a harmonic mean)."""

from __future__ import annotations

import itertools

import numpy as np

from kinetree.contact.box_manifold import box_box_manifold
from kinetree.contact.capsule import Capsule
from kinetree.contact.convex_hull import Convex
from kinetree.contact.geometry import HalfSpace, Sphere
from kinetree.contact.material import combined_friction
from kinetree.contact.mesh import Brick
from kinetree.multibody.unilateral.point_plane_contact import PointPlaneContact
from kinetree.multibody.unilateral.sphere_plane_contact import SpherePlaneContact
from kinetree.multibody.unilateral.sphere_sphere_contact import SphereSphereContact


def _corners(shape) -> np.ndarray | None:
    """The points (in S) a shape rests on, or None for a shape without corners."""
    if isinstance(shape, Brick):
        return np.array(list(itertools.product((-1.0, 1.0), repeat=3))) \
            * shape.get_half_lengths()
    if isinstance(shape, Convex):
        return np.asarray(shape.get_vertices())
    return None


def _friction(a, b) -> list[float]:
    """(μs, μd, μv) of two surfaces' materials in contact."""
    m1, m2 = a.get_material(), b.get_material()
    return [combined_friction(x, y) for x, y in (
        (m1.get_static_friction(), m2.get_static_friction()),
        (m1.get_dynamic_friction(), m2.get_dynamic_friction()),
        (m1.get_viscous_friction(), m2.get_viscous_friction()))]


class BrickPair:
    """Two Bricks on two bodies: the PointPlaneContacts of their contact manifold at a
    State, made anew at each step (``contacts``)."""

    def __init__(self, mobod_a, X_AS, brick_a, mobod_b, X_BS, brick_b, min_cor, mu):
        self.sides = ((mobod_a, X_AS, np.asarray(brick_a.get_half_lengths())),
                      (mobod_b, X_BS, np.asarray(brick_b.get_half_lengths())))
        self.min_cor, self.mu = min_cor, mu

    def contacts(self, state, matter, poses, margin: float) -> list:
        """The manifold's points within ``margin`` (m) of touching at ``state`` (bodies at
        ``poses``, ``body_poses``), each a PointPlaneContact of the box whose face (or
        edge) it lies on with the other."""
        R_GB, p_GB = poses
        boxes = []
        for mobod, X_BS, half in self.sides:
            b = mobod.get_mobilized_body_index()
            boxes.append((R_GB[b] @ X_BS.R.as_matrix(), R_GB[b] @ X_BS.p + p_GB[b], half))
        (Ra, pa, ha), (Rb, pb, hb) = boxes
        if np.linalg.norm(pb - pa) > np.linalg.norm(ha) + np.linalg.norm(hb) + margin:
            return []                  # their bounding spheres are apart
        made = []
        for k, (on_a, point, beneath, normal, _) in enumerate(
                box_box_manifold(Ra, pa, ha, Rb, pb, hb, margin)):
            plane, follower = (self.sides[0][0], self.sides[1][0]) if on_a \
                else (self.sides[1][0], self.sides[0][0])
            P, F = plane.get_mobilized_body_index(), follower.get_mobilized_body_index()
            normal_P = R_GB[P].T @ normal
            contact = PointPlaneContact(plane, normal_P, float(normal_P @ (
                R_GB[P].T @ (beneath - p_GB[P]))), follower, R_GB[F].T @ (point - p_GB[F]),
                self.min_cor, *self.mu)
            contact._matter = matter
            contact._key = (id(self), k, on_a)     # the same point at the next step
            made.append(contact)
        return made


def generate_unilateral_contacts(matter, min_cor: float = 0.0) -> list:
    """Adopt the unilateral contacts of the bodies' surfaces (module docstring) between
    surfaces of different bodies not sharing a contact clique, with coefficient of
    restitution ``min_cor``; returns them. Call it once the bodies carry their
    surfaces."""
    planes, cornered, spheres, bricks, capsules = [], [], [], [], []
    for b in range(matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        body = mobod.get_body()
        for i in range(body.get_num_contact_surfaces()):
            surface = body.get_contact_surface(i)
            X_BS = body.get_contact_surface_transform(i)
            if isinstance(surface.get_shape(), HalfSpace):
                planes.append((mobod, X_BS, surface))
            elif isinstance(surface.get_shape(), Sphere):
                spheres.append((mobod, X_BS, surface))
            elif isinstance(surface.get_shape(), Capsule):
                capsules.append((mobod, X_BS, surface))
            elif (points := _corners(surface.get_shape())) is not None:
                cornered.append((mobod, X_BS, surface, points))
                if isinstance(surface.get_shape(), Brick):
                    bricks.append((mobod, X_BS, surface))
    made = []
    for plane, X_PH, half in planes:
        # The half space fills x > 0 of H: its surface's outward normal is -x.
        normal_P = -X_PH.R.as_matrix()[:, 0]
        height = float(normal_P @ X_PH.p)
        for follower, X_FS, surface, points in cornered:
            if follower is plane or half.is_in_same_clique(surface):
                continue
            R, p = X_FS.R.as_matrix(), X_FS.p
            for point_S in points:
                made.append(PointPlaneContact(plane, normal_P, height, follower,
                                              R @ point_S + p, min_cor,
                                              *_friction(half, surface)))
        for ball, X_FS, surface in spheres:
            if ball is not plane and not half.is_in_same_clique(surface):
                made.append(SpherePlaneContact(plane, normal_P, height, ball, X_FS.p,
                                               surface.get_shape().get_radius(), min_cor,
                                               *_friction(half, surface)))
        for body, X_FS, surface in capsules:
            if body is plane or half.is_in_same_clique(surface):
                continue
            shape = surface.get_shape()
            axis = X_FS.R.as_matrix()[:, 2] * shape.get_half_length()
            for end in (X_FS.p + axis, X_FS.p - axis):
                made.append(SpherePlaneContact(plane, normal_P, height, body, end,
                                               shape.get_radius(), min_cor,
                                               *_friction(half, surface)))
    for (b1, X1, s1), (b2, X2, s2) in itertools.combinations(spheres, 2):
        if b1 is not b2 and not s1.is_in_same_clique(s2):
            made.append(SphereSphereContact(b1, X1.p, s1.get_shape().get_radius(), b2, X2.p,
                                            s2.get_shape().get_radius(), min_cor,
                                            *_friction(s1, s2)))
    for contact in made:
        matter.adopt_unilateral_contact(contact)
    for (b1, X1, s1), (b2, X2, s2) in itertools.combinations(bricks, 2):
        if b1 is not b2 and not s1.is_in_same_clique(s2):
            matter._unilateral_generators.append(BrickPair(
                b1, X1, s1.get_shape(), b2, X2, s2.get_shape(), min_cor, _friction(s1, s2)))
    return made
