"""Contact (paper §5, Appendix A). So far the pure mathematics the contact subsystems will
use: materials and their combining rules, Hertz/Hunt-Crossley normal force with the
elliptic eccentricity factor, the friction curves, and the analytic contact geometry
(half space, sphere, ellipsoid) with the contact of pairs of them."""

from kinetree.contact.friction import hollars, hollars_kernel, stribeck, stribeck_kernel
from kinetree.contact.geometry import (
    Contact,
    ContactGeometry,
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

__all__ = [
    "CombinedContactMaterial",
    "Contact",
    "ContactGeometry",
    "ContactMaterial",
    "combine_elastic_foundation",
    "combine_hertz",
    "combined_dissipation",
    "combined_friction",
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
