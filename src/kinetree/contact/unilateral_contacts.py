"""Unilateral contacts generated from the bodies' contact surfaces, for the
SemiExplicitEulerTimeStepper: every pair of convex surfaces on two bodies (not sharing a
contact clique) meets wherever they touch, found at each step by one compiled pass
(``shape_contacts.py``): box corners and hull vertices on half spaces, spheres and
capsules on anything, patches of box faces on box faces."""

from __future__ import annotations

from kinetree.contact.capsule import Capsule
from kinetree.contact.convex_hull import Convex
from kinetree.contact.geometry import Ellipsoid, HalfSpace, Sphere
from kinetree.contact.mesh import Brick, Cylinder
from kinetree.contact.shape_contacts import ShapeContacts
from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import _coefficient

CONVEX_SHAPES = (HalfSpace, Sphere, Capsule, Brick, Cylinder, Ellipsoid, Convex)


def generate_unilateral_contacts(matter, min_cor: float = 0.0) -> ShapeContacts:
    """Make the bodies' convex contact surfaces meet in rigid contact, with coefficient of
    restitution ``min_cor``; returns the ShapeContacts, whose ``find(state, margin)``
    lists the contacts at a State. Call it once the bodies carry their surfaces. A
    TriangleMesh that is not a Convex is refused: rigid contact needs convex shapes."""
    min_cor = _coefficient(min_cor, "min_cor (the coefficient of restitution)",
                           "generate_unilateral_contacts", 1.0)
    surfaces = []
    for b in range(matter.get_num_bodies()):
        mobod = matter.get_mobilized_body(b)
        body = mobod.get_body()
        for i in range(body.get_num_contact_surfaces()):
            surface = body.get_contact_surface(i)
            if not isinstance(surface.get_shape(), CONVEX_SHAPES):
                raise InvalidArgumentError(
                    f"generate_unilateral_contacts: contact surface {i} of body {b} is a "
                    f"{type(surface.get_shape()).__name__}, which is not convex; rigid "
                    f"contact needs convex shapes: give the body its hull "
                    f"(ContactGeometry.Convex.from_mesh for a convex mesh), or convex "
                    f"pieces.")
            surfaces.append((mobod, body.get_contact_surface_transform(i), surface))
    contacts = ShapeContacts(matter, surfaces, min_cor)
    matter._unilateral_generators.append(contacts)
    return contacts
