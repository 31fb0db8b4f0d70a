"""OpenSim's WrapTorus: a path wrapping over the tube of a torus about the z axis of its
frame W, as OpenSim 4.6 computes it (WrapTorus::wrapLine): the point of the torus's
center circle nearest the segment's line is found, and the segment wraps over the
cylinder of the tube's radius tangent there (10 km long, constrained to its +x side,
facing the torus's center), as a WrapCylinder.

Not yet OpenSim's: OpenSim finds the nearest point by MINPACK's Levenberg-Marquardt
(lmdif, from 0 along the line, steps bounded by 0.2, stopped at a relative tolerance of
1e-4), which often settles on another stationary point of the distance than the Newton
search here; the two then wrap over different cylinders (tests/validation,
``test_torus``, records it). Porting lmdif's iteration is what is left. OpenSim reports
"wrapped" whenever it finds the nearest point, also where the cylinder does not wrap;
the tangent points are then NaN, as OpenSim's.
"""

from __future__ import annotations

import math

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import dot3, vec3
from kinetree.paths.wrap_cylinder import cylinder_wrap
from kinetree.paths.wrap_object import (
    AXIS,
    MANDATORY_WRAP,
    NO_WRAP,
    SIGN,
    SINGLE,
    WRAPPED,
    WrapObject,
    dsign,
    positive,
    store_result,
)
from kinetree.registry import WRAPS

CODE = WRAPS["wrap_torus"]

_CYLINDER_LENGTH = 10000.0


class WrapTorus(WrapObject):
    """A torus about the z axis of W, centered at W's origin: a tube of ``inner_radius``
    (m) about a circle of ``outer_radius`` (m) in W's xy plane."""

    CODE = CODE
    KIND = "wrap_torus"

    def __init__(self, inner_radius: float, outer_radius: float, **kwargs):
        super().__init__(**kwargs)
        self.inner_radius = positive(inner_radius, self._where(), "inner_radius")
        self.outer_radius = positive(outer_radius, self._where(), "outer_radius")
        if self.inner_radius >= self.outer_radius:
            raise InvalidArgumentError(
                f"{self._where()}: inner_radius {self.inner_radius} (the tube's) must be "
                f"less than outer_radius {self.outer_radius}; swap them.")

    def _params(self) -> list:
        return [self.inner_radius, self.outer_radius]


@helper(error_model="numpy")
def _residual(p1, n, radius, u):
    """d/du of the squared distance, less the square of radius, from p1 + u n to the
    circle of ``radius`` in the xy plane (OpenSim's calcCircleResids)."""
    c2 = 2.0 * (p1[0] * n[0] + p1[1] * n[1] + p1[2] * n[2])
    c3 = p1[0] * n[0] + p1[1] * n[1]
    c4 = n[0] * n[0] + n[1] * n[1]
    c5 = p1[0] * p1[0] + p1[1] * p1[1]
    return c2 + 2.0 * u - 2.0 * radius * (2.0 * c4 * u + 2.0 * c3) / \
        math.sqrt(u * u * c4 + 2.0 * c3 * u + c5)


@helper(forceinline=False, error_model="numpy")
def _nearest_on_line(p1, p2, radius):
    """The point of the line from p1 toward p2 where the distance to the circle is
    stationary, by Newton's method from p1, its steps bounded as OpenSim's search bounds
    them (0.2 of the distance along, at least 0.2)."""
    d = (p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2])
    mag = math.sqrt(dot3(d, d))
    n = (d[0] / mag, d[1] / mag, d[2] / mag)
    u = 0.0
    for _ in range(200):
        f = _residual(p1, n, radius, u)
        h = math.sqrt(2.2e-16) * max(abs(u), 1e-3)
        df = (_residual(p1, n, radius, u + h) - f) / h
        step = -f / df
        bound = 0.2 * max(abs(u), 1.0)
        step = max(-bound, min(bound, step))
        u += step
        if abs(step) <= 1e-15 * max(abs(u), 1.0):
            break
    x = (p1[0] + u * n[0], p1[1] + u * n[1], p1[2] + u * n[2])
    return x, math.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + radius * radius
                        - 2.0 * radius * math.sqrt(x[0] * x[0] + x[1] * x[1]))


@helper(forceinline=False, error_model="numpy")
def wrap_line(wi, wf, p1, p2, previous, result):
    """wf = [inner radius, outer radius]. OpenSim's WrapTorus wrapPathSegment in W."""
    nan3 = (math.nan, math.nan, math.nan)
    store_result(result, nan3, nan3, 0.0)
    q1, q2 = vec3(p1), vec3(p2)
    outer = wf[1]
    a1, dist1 = _nearest_on_line(q1, q2, outer)
    a2, dist2 = _nearest_on_line(q2, q1, outer)
    axis, sign = wi[AXIS], wi[SIGN]
    first = dist1 < dist2
    if sign != 0:
        on1, on2 = dsign(a1[axis]) == sign, dsign(a2[axis]) == sign
        if on1 and on2:
            first = dist1 < dist2
        elif on1 or on2:
            first = on1
        else:
            return NO_WRAP
    a = a1 if first else a2
    mag = math.sqrt(a[0] * a[0] + a[1] * a[1])
    # the cylinder frame C: x from the circle point toward the center, y = -z of W
    c = (-a[0] * outer / mag, -a[1] * outer / mag)
    norm = math.sqrt(c[0] * c[0] + c[1] * c[1])
    x_axis = (c[0] / norm, c[1] / norm)
    # z = x × y with y = (0, 0, -1)
    z_axis = (-x_axis[1], x_axis[0])
    # C's origin is the circle point: its coordinates in C of the torus's origin
    origin = (x_axis[0] * c[0] + x_axis[1] * c[1], z_axis[0] * c[0] + z_axis[1] * c[1])

    def to_cylinder(p):
        return (x_axis[0] * p[0] + x_axis[1] * p[1] + origin[0], -p[2],
                z_axis[0] * p[0] + z_axis[1] * p[1] + origin[1])

    code, r1, r2, length = cylinder_wrap(wf[0], _CYLINDER_LENGTH, 0, 1, wi[SINGLE] == 0,
                                         to_cylinder(q1), to_cylinder(q2))
    if code == WRAPPED or code == MANDATORY_WRAP:

        def to_torus(r):
            x, y = r[0] - origin[0], r[2] - origin[1]
            return (x_axis[0] * x + z_axis[0] * y, x_axis[1] * x + z_axis[1] * y, -r[1])

        r1, r2 = to_torus(r1), to_torus(r2)
        store_result(result, r1, r2, length)
        for k in range(3):
            previous[k] = r1[k]
            previous[3 + k] = r2[k]
    return WRAPPED

