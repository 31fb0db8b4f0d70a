"""The type code of every built-in element kind, in one place.

Compiled code reaches an element's functions through one dispatch per element kind (a
switch on this code: ``multibody/kernels/hinge.py`` for mobilizers,
``forces/elements/dispatch.py`` for force elements), so a code must be unique within its
kind and every dispatch must know every code; ``tests/test_registry.py`` checks both.
Adding a built-in element type is one file with its functions, one line here and one
branch in its kind's dispatch.
"""

MOBILIZERS = {
    "weld": 0,
    "pin": 1,
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
    "custom": 18,      # Custom and FunctionBased: the Python pre-pass writes the hinge
}
"""Mobilizer type codes (``TreeModel.code``), one module each in multibody/mobilizers/."""

FORCES = {
    "uniform_gravity": 1,
    "two_point_linear_spring": 2,
    "two_point_linear_damper": 3,
    "two_point_constant_force": 4,
    "mobility_linear_spring": 5,
    "mobility_linear_damper": 6,
    "mobility_constant_force": 7,
    "mobility_linear_stop": 8,
    "constant_force": 9,
    "constant_torque": 10,
    "global_damper": 11,
    "linear_bushing": 12,
}
"""Force element type codes (column 0 of a force table), one module each in
forces/elements/. Force.Custom has none: its Python runs beside the table."""
