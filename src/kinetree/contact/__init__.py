"""Contact (paper §5, Appendix A): geometry and materials, contact tracking, and the
compliant force models.

* Geometry: ContactGeometry.HalfSpace, Sphere, Ellipsoid (geometry.py), TriangleMesh,
  Brick, Cylinder (mesh.py), Capsule (capsule.py) and Convex (convex_hull.py); the
  closest points and penetration of convex pairs, compiled (convex.py); ContactMaterial
  with Appendix A's combining rules (material.py); ContactSurface = geometry + material +
  layer thickness (surface.py).
* Tracking: ContactTrackerSubsystem (tracker.py) over the pair search of collision.py.
* Forces: CompliantContactSubsystem (compliant.py: Hertz/Hunt-Crossley/Stribeck, elastic
  foundation); GeneralContactSubsystem (general.py) with HuntCrossleyForce and
  ElasticFoundationForce, the elements OpenSim uses.
* Rigid contact with impulsive collisions: RigidContact (rigid.py); the unilateral
  contacts of a SemiExplicitEulerTimeStepper generated from the surfaces
  (unilateral_contacts.py).
* The formulas themselves: hertz.py, friction.py.
"""

from kinetree.contact.capsule import Capsule
from kinetree.contact.compliant import CompliantContactSubsystem, ContactForce
from kinetree.contact.convex import ClosestPoints, closest_points
from kinetree.contact.convex_hull import Convex
from kinetree.contact.elastic_foundation_force import ElasticFoundationForce
from kinetree.contact.friction import hollars, hollars_kernel, stribeck, stribeck_kernel
from kinetree.contact.general import GeneralContactSubsystem
from kinetree.contact.geometry import (
    Contact,
    ContactGeometry,
    contact_ellipsoid_ellipsoid,
    contact_half_space_ellipsoid,
    contact_half_space_sphere,
    contact_sphere_ellipsoid,
    contact_sphere_sphere,
)
from kinetree.contact.hertz import (
    contact_ellipse_ratio,
    contact_ellipse_ratio_antoine,
    contact_point,
    eccentricity_factor,
    effective_radius,
    hertz_force,
    hertz_patch_semi_axes,
    hertz_potential_energy,
    hunt_crossley_dissipation_force,
    hunt_crossley_normal_force,
    relative_curvatures,
)
from kinetree.contact.hunt_crossley_force import HuntCrossleyForce
from kinetree.contact.material import (
    CombinedContactMaterial,
    ContactMaterial,
    combine_elastic_foundation,
    combine_hertz,
    combined_dissipation,
    combined_friction,
    elastic_foundation_composite_stiffness,
    elastic_foundation_stiffness_weights,
    hertz_composite_stiffness,
    hertz_stiffness_weights,
)
from kinetree.contact.mesh import Brick, Cylinder, TriangleMesh
from kinetree.contact.polygonal_mesh import PolygonalMesh
from kinetree.contact.rigid import RigidContact
from kinetree.contact.surface import ContactSurface
from kinetree.contact.tracker import (
    ContactEventHandler,
    ContactEventReporter,
    ContactTrackerSubsystem,
)
from kinetree.contact.unilateral_contacts import generate_unilateral_contacts

__all__ = [
    "Brick",
    "Capsule",
    "ClosestPoints",
    "Convex",
    "closest_points",
    "generate_unilateral_contacts",
    "CompliantContactSubsystem",
    "ContactEventHandler",
    "ContactEventReporter",
    "ContactForce",
    "ContactSurface",
    "ContactTrackerSubsystem",
    "Cylinder",
    "ElasticFoundationForce",
    "GeneralContactSubsystem",
    "HuntCrossleyForce",
    "PolygonalMesh",
    "RigidContact",
    "TriangleMesh",
    "CombinedContactMaterial",
    "Contact",
    "ContactGeometry",
    "ContactMaterial",
    "combine_elastic_foundation",
    "combine_hertz",
    "combined_dissipation",
    "combined_friction",
    "contact_ellipsoid_ellipsoid",
    "contact_half_space_ellipsoid",
    "contact_half_space_sphere",
    "contact_sphere_ellipsoid",
    "contact_sphere_sphere",
    "contact_ellipse_ratio",
    "contact_ellipse_ratio_antoine",
    "contact_point",
    "eccentricity_factor",
    "effective_radius",
    "elastic_foundation_composite_stiffness",
    "elastic_foundation_stiffness_weights",
    "hertz_composite_stiffness",
    "hertz_force",
    "hertz_patch_semi_axes",
    "hertz_potential_energy",
    "hertz_stiffness_weights",
    "hollars",
    "hollars_kernel",
    "hunt_crossley_dissipation_force",
    "hunt_crossley_normal_force",
    "relative_curvatures",
    "stribeck",
    "stribeck_kernel",
]
