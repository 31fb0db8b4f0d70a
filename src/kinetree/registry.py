"""The type code of every built-in element kind, in one place.

Compiled code reaches an element's functions through a switch on its type code, built
from these tables (``engine/kinds.py``): a kind named ``pin`` here is the module
``multibody/mobilizers/pin.py``, and the switch calls that module's function of the same
name as the one asked for (``x_fm``, ``calc``, ...). So a code must be unique within its
family, and adding a built-in element type is one file with its functions and one line
here; ``tests/test_registry.py`` compiles every function of every kind for its declared
signature.
"""

MOBILIZERS = {
    "pin": 1,
    "weld": 0,
    "slider": 2,
    "universal": 3,
    "cylinder": 4,
    "screw": 5,
    "planar": 6,
    "gimbal": 7,
    "ball": 8,
    "free": 9,
    "translation": 10,
    "bend_stretch": 11,
    "spherical_coords": 12,
    "line_orientation": 13,
    "free_line": 14,
    "ellipsoid": 15,
    "bushing": 17,
    "custom": 18,      # Custom, and FunctionBased of user Functions: a Python pre-pass
    "function_based": 19,  # FunctionBased of built-in functions: compiled tables
    "scapulothoracic": 20,  # OpenSim's ScapulothoracicJoint
    "cantilever_free_beam": 21,
}
"""Mobilizer type codes (``TreeModel.code``), one module each in multibody/mobilizers/,
commonest first: a switch tests them in this order."""

FORCES = {
    "mobility_linear_damper": 6,
    "mobility_linear_spring": 5,
    "uniform_gravity": 1,
    "two_point_linear_spring": 2,
    "two_point_linear_damper": 3,
    "two_point_constant_force": 4,
    "mobility_constant_force": 7,
    "mobility_linear_stop": 8,
    "constant_force": 9,
    "constant_torque": 10,
    "global_damper": 11,
    "linear_bushing": 12,
    "gravity": 13,
    "discrete_forces": 14,
    "mobility_discrete_force": 15,
    "coordinate_limit_force": 16,
    "expression_based_coordinate_force": 17,
    "smooth_sphere_half_space_force": 18,
    "exponential_spring_force": 19,
}
"""Force element type codes (column 0 of a force table), one module each in
forces/elements/, each with a ``calc``. Force.Custom has none: its Python runs beside the
table."""

CONTACT = {
    "collision": 0,
    "compliant": 1,
    "hunt_crossley_force": 2,
    "elastic_foundation_force": 3,
}
"""The parts of the compiled contact realization, modules of contact/: the search
(``collision.search_contacts``) and the force models applied to what it finds (each
module's ``contact_forces``): CompliantContactSubsystem's, and those of the
HuntCrossleyForce and ElasticFoundationForce elements."""

CONSTRAINTS = {
    "custom": 0,       # Custom, couplers, PrescribedMotion: the Python pre-pass writes the rows
    "ball": 1,
    "rod": 2,
    "weld": 3,
    "point_in_plane": 4,
    "point_on_line": 5,
    "constant_angle": 6,
    "constant_orientation": 7,
    "no_slip1d": 8,
    "constant_speed": 9,
    "constant_acceleration": 10,
    "point_on_plane_contact": 11,
    "sphere_on_plane_contact": 12,
    "sphere_on_sphere_contact": 13,
    "line_on_line_contact": 14,
    "coordinate_coupler": 15,   # a CouplingFunction of one coordinate; others are custom
}
"""Constraint type codes (column 0 of a constraint table), one module each in
multibody/constraints/, each with compiled ``acceleration_errors`` and ``forces``, and
``position_errors`` and ``velocity_errors`` if it has equations of those levels; or, for
a constraint on generalized coordinates, the ``coordinate_*`` forms of those functions
(``multibody/kernels/constraints.py``)."""

ACTUATORS = {
    "coordinate_actuator": 1,
    "point_actuator": 2,
    "torque_actuator": 3,
    "thelen2003_muscle": 4,
    "millard2012_equilibrium_muscle": 5,
    "degroote_fregly2016_muscle": 6,
    "rigid_tendon_muscle": 7,
    "schutte1993_muscle": 8,
}
"""OpenSim's actuators (muscles among them), one module each in actuators/, each with a
``calc`` giving its force from its controls, its states (z) and its path's length and
speed, and, for a muscle with a fiber state, ``equilibrate``."""

WRAPS = {
    "wrap_sphere": 1,
    "wrap_cylinder": 2,
    "wrap_ellipsoid": 3,
    "wrap_torus": 4,
}
"""OpenSim's wrap surfaces, one module each in paths/, each with ``wrap_line``: the
shortest way over the surface between two points of a path."""

FUNCTIONS = {
    "mobilizers": ("x_fm", "h_fm", "hdot_u", "n_mult", "n_inv_mult", "ndot_u"),
    "forces": ("calc",),
    "contact": ("search_contacts", "contact_forces"),
    "constraints": ("position_errors", "velocity_errors", "acceleration_errors", "forces",
                    "coordinate_position_errors", "coordinate_velocity_errors",
                    "coordinate_acceleration_errors", "coordinate_forces"),
    "actuators": ("calc", "equilibrate"),
    "wraps": ("wrap_line",),
}
"""The compiled functions of each family's kinds, in the order of the rows of a Kinds'
table of addresses (``engine/kinds.py``). Their declared signatures are where the
family's switches are (``SWITCHES``)."""

REQUIRED = {
    "mobilizers": (FUNCTIONS["mobilizers"],),
    "forces": (("calc",),),
    "contact": (("search_contacts",), ("contact_forces",)),
    "constraints": (("acceleration_errors", "forces"),
                    ("coordinate_acceleration_errors", "coordinate_forces")),
    "actuators": (("calc",),),
    "wraps": (("wrap_line",),),
}
"""What a kind's module must define, one of these groups: a mobilizer every function; a
constraint its acceleration errors and forces (its position and velocity errors if it has
equations of those levels), or their coordinate_* forms for a constraint on generalized
coordinates; a contact part its search or its forces."""

SWITCHES = {
    "mobilizers": "kinetree.multibody.kernels.hinge",
    "forces": "kinetree.forces.elements.dispatch",
    "contact": "kinetree.engine.forward",
    "constraints": "kinetree.multibody.kernels.constraints",
    "actuators": "kinetree.actuators.dispatch",
    "wraps": "kinetree.paths.wrapping",
}
"""The module declaring each family's switches and their signatures."""

INLINE = {
    "mobilizers": ("pin", "weld", "slider", "universal", "cylinder", "screw", "planar",
                   "ball", "free", "translation", "custom", "function_based"),
    "forces": ("mobility_linear_damper", "mobility_linear_spring", "uniform_gravity",
               "two_point_linear_spring", "two_point_linear_damper"),
}
"""The kinds compiled inline into the realization: those most models use, whose
functions are a few flops, which a call per body through an address would double. Every
other kind is compiled by itself and called through its address (``engine/kinds.py``)."""

FAMILIES = {
    "mobilizers": ("kinetree.multibody.mobilizers", MOBILIZERS),
    "forces": ("kinetree.forces.elements", FORCES),
    "contact": ("kinetree.contact", CONTACT),
    "constraints": ("kinetree.multibody.constraints", CONSTRAINTS),
    "actuators": ("kinetree.actuators", ACTUATORS),
    "wraps": ("kinetree.paths", WRAPS),
}
"""Each family's package and codes."""
