"""OpenSim's WrapTorus: a path wrapping over the tube of a torus about the z axis of its
frame W, as OpenSim 4.6 computes it (WrapTorus::wrapLine). A point of the segment's line
is searched for from each end in turn; the one nearer the torus's center circle (or the
one on the quadrant's side) is taken, and the segment wraps over the cylinder of the
tube's radius tangent to the tube at the circle point radially below it (10 km long,
constrained to its +x side, x facing the torus's center), as a WrapCylinder.

The search is OpenSim's: MINPACK's Levenberg-Marquardt (lmdif, in OpenSim's port, which
takes forward differences of a fixed step 1e-5) on one residual of the distance along
the line, from the end, stopped at a relative tolerance of 1e-4. That residual
(calcCircleResids) is the slope of the squared distance to the circle of twice the
center circle's radius, so the point is where the distance to that circle is
stationary, or where lmdif finds a local minimum of the slope's magnitude; it is seldom
the point nearest the center circle. kinetree runs the same iteration, specialised to
one residual of one unknown, in the same floating-point operations, and builds the
cylinder's frame as Simbody rounds it, so that it wraps over OpenSim's cylinder. OpenSim
reports "wrapped" whenever the search succeeds, also where the cylinder does not wrap;
the tangent points are then NaN, as OpenSim's.
"""

from __future__ import annotations

import math

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.multibody.kernels.small import cross3, dot3, sub3, vec3
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
    normalize_or_zero,
    positive,
    store_result,
    store_wrap,
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


_LM_FTOL = 1e-4
_LM_XTOL = 1e-4
"""lmdif's relative tolerances on the reduction of the residual and on the step, as
OpenSim sets them (its gtol is 0: the gradient test only stops on a zero gradient)."""

_LM_MAXFEV = 500
"""The most residual evaluations lmdif makes outside its Jacobians, OpenSim's setting
(OpenSim's port does not count the Jacobian's evaluations)."""

_LM_FACTOR = 0.2
"""lmdif's initial step bound, times the scaled start (m, also the bound itself where
that is at most 1e-4, as it is from OpenSim's start at 0)."""

_LM_STEP = 1e-5
"""The forward-difference step of OpenSim's lmdif (m), fixed: it ignores epsfcn."""

_MACHEP = 1.2e-16
_DWARF = 1.0e-38
"""The machine precision and smallest magnitude OpenSim's lmdif assumes."""


@helper(error_model="numpy")
def _dmax(a, b):
    """MINPACK's dmax1: a unless b exceeds it (so b where either is NaN)."""
    return a if a >= b else b


@helper(error_model="numpy")
def _dmin(a, b):
    """MINPACK's dmin1: a unless b is below it (so b where either is NaN)."""
    return a if a <= b else b


@helper(error_model="numpy")
def circle_coefficients(p1, p2):
    """The unit direction n (in W) from p1 toward p2 (m, in W), and the coefficients
    (c2, c3, c4, c5) of OpenSim's calcCircleResids on the line p1 + u n, computed as
    OpenSim computes them."""
    mag = math.sqrt((p2[0] - p1[0]) * (p2[0] - p1[0]) + (p2[1] - p1[1]) * (p2[1] - p1[1])
                    + (p2[2] - p1[2]) * (p2[2] - p1[2]))
    n = ((p2[0] - p1[0]) / mag, (p2[1] - p1[1]) / mag, (p2[2] - p1[2]) / mag)
    c2 = 2.0 * (p1[0] * n[0] + p1[1] * n[1] + p1[2] * n[2])
    c3 = p1[0] * n[0] + p1[1] * n[1]
    c4 = n[0] * n[0] + n[1] * n[1]
    c5 = p1[0] * p1[0] + p1[1] * p1[1]
    return n, (c2, c3, c4, c5)


@helper(error_model="numpy")
def circle_residual(c, radius, u):
    """OpenSim's calcCircleResids at u (m along the line), with the coefficients ``c`` of
    ``circle_coefficients`` (m): d/du of the squared distance from p1 + u n to the circle
    of twice ``radius`` (m) about W's z axis, since OpenSim doubles its distance term."""
    return c[0] + 2.0 * u - 2.0 * radius * (2.0 * c[2] * u + 2.0 * c[1]) / \
        math.sqrt(u * u * c[2] + 2.0 * c[1] * u + c[3])


@helper(error_model="numpy")
def _qr_solve(r, d, qtb):
    """MINPACK's qrsolv for one unknown: the x solving r x = qtb, d x = 0 in the least
    squares sense, by the Givens rotation qrsolv makes, and the rotated diagonal s."""
    s = r
    w = qtb
    if d != 0.0:
        if abs(r) < abs(d):
            cotan = r / d
            sin = 0.5 / math.sqrt(0.25 + 0.25 * cotan * cotan)
            cos = sin * cotan
        else:
            tan = d / r
            cos = 0.5 / math.sqrt(0.25 + 0.25 * tan * tan)
            sin = cos * tan
        s = cos * r + sin * d
        w = cos * qtb
    if s == 0.0:
        return 0.0, s
    return w / s, s


@helper(error_model="numpy")
def _lm_parameter(r, diag, qtb, delta, par):
    """MINPACK's lmpar for one unknown: the Levenberg-Marquardt parameter (from the guess
    ``par``) whose step x, solving r x = qtb, sqrt(par) diag x = 0, has |diag x| within
    0.1 delta of ``delta`` (or is the Gauss-Newton step, shorter than 1.1 delta, with
    parameter 0), in at most 10 iterations: (par, x). r is the Jacobian's R factor."""
    x = 0.0 if r == 0.0 else qtb / r
    dxnorm = abs(diag * x)
    fp = dxnorm - delta
    if fp <= 0.1 * delta:
        return 0.0, x
    # the bounds parl <= par <= paru: Newton's step on the secular equation from 0 gives
    # parl (0 for a singular r), the gradient's scaled norm over delta paru
    parl = 0.0
    if r != 0.0:
        w = diag * (diag * x / dxnorm) / r
        parl = ((fp / delta) / abs(w)) / abs(w)
    gnorm = abs(r * qtb / diag)
    paru = gnorm / delta
    if paru == 0.0:
        paru = _DWARF / _dmin(delta, 0.1)
    par = _dmin(_dmax(par, parl), paru)
    if par == 0.0:
        par = gnorm / dxnorm
    for iteration in range(1, 11):
        if par == 0.0:
            par = _dmax(_DWARF, 0.001 * paru)
        x, s = _qr_solve(r, math.sqrt(par) * diag, qtb)
        dxnorm = abs(diag * x)
        previous = fp
        fp = dxnorm - delta
        if abs(fp) <= 0.1 * delta or (parl == 0.0 and fp <= previous and previous < 0.0) \
                or iteration == 10:
            break
        # Newton's correction of par on the secular equation
        w = diag * (diag * x / dxnorm) / s
        parc = ((fp / delta) / abs(w)) / abs(w)
        if fp > 0.0:
            parl = _dmax(parl, par)
        if fp < 0.0:
            paru = _dmin(paru, par)
        par = _dmax(parl, par + parc)
    return par, x


@helper(forceinline=False, error_model="numpy")
def lmdif(c, radius, x):
    """OpenSim's lmdif_C, as WrapTorus::findClosestPoint calls it, on the circle residual
    of coefficients ``c`` (``circle_residual``) from u = ``x`` (m): MINPACK's
    Levenberg-Marquardt for one residual of one unknown, in lmdif's floating-point
    operations (its norms of one component are absolute values). Returns the u (m) it
    stops at and its info code (1-3 converged, 4 zero gradient, 5 maxfev, 6-8 the
    tolerances are below round-off)."""
    f = circle_residual(c, radius, x)
    nfev = 1
    fnorm = abs(f)
    par = 0.0
    iteration = 1
    diag = delta = xnorm = 0.0
    while True:
        jac = (circle_residual(c, radius, x + _LM_STEP) - f) / _LM_STEP
        # qrfac: the Householder reflection of the 1 x 1 Jacobian, R = -jac
        acnorm = abs(jac)
        householder = jac
        ajnorm = acnorm
        if ajnorm != 0.0:
            if jac < 0.0:
                ajnorm = -ajnorm
            householder = jac / ajnorm + 1.0
        r = -ajnorm
        if iteration == 1:
            # mode 1: scale by the Jacobian's column norm
            diag = 1.0 if acnorm == 0.0 else acnorm
            xnorm = abs(diag * x)
            delta = _LM_FACTOR * xnorm
            if abs(delta) <= 1e-4:
                delta = _LM_FACTOR
        qtf = f
        if householder != 0.0:
            qtf = f + householder * (-(householder * f) / householder)
        gnorm = 0.0
        if fnorm != 0.0 and acnorm != 0.0:
            gnorm = _dmax(gnorm, abs(r * (qtf / fnorm) / acnorm))
        if gnorm <= 0.0:
            return x, 4
        diag = _dmax(diag, acnorm)
        while True:
            par, step = _lm_parameter(r, diag, qtf, delta, par)
            step = -step
            trial = x + step
            pnorm = abs(diag * step)
            if iteration == 1:
                delta = _dmin(delta, pnorm)
            f1 = circle_residual(c, radius, trial)
            nfev += 1
            fnorm1 = abs(f1)
            # the actual and predicted reductions of the residual, scaled by it
            actred = -1.0
            if 0.1 * fnorm1 < fnorm:
                actred = 1.0 - (fnorm1 / fnorm) * (fnorm1 / fnorm)
            temp1 = abs(r * step) / fnorm
            temp2 = (math.sqrt(par) * pnorm) / fnorm
            prered = temp1 * temp1 + (temp2 * temp2) / 0.5
            dirder = -(temp1 * temp1 + temp2 * temp2)
            ratio = 0.0
            if prered != 0.0:
                ratio = actred / prered
            if ratio <= 0.25:
                temp = 0.5 if actred >= 0.0 else 0.5 * dirder / (dirder + 0.5 * actred)
                if 0.1 * fnorm1 >= fnorm or temp < 0.1:
                    temp = 0.1
                delta = temp * _dmin(delta, pnorm / 0.1)
                par = par / temp
            elif par == 0.0 or ratio >= 0.75:
                delta = pnorm / 0.5
                par = 0.5 * par
            if ratio >= 1e-4:
                x = trial
                xnorm = abs(diag * x)
                f = f1
                fnorm = fnorm1
                iteration += 1
            small = abs(actred) <= _LM_FTOL and prered <= _LM_FTOL and 0.5 * ratio <= 1.0
            if small and delta <= _LM_XTOL * xnorm:
                return x, 3
            if delta <= _LM_XTOL * xnorm:
                return x, 2
            if small:
                return x, 1
            # lmdif tests these in the order 5-8, a later code overriding
            if gnorm <= _MACHEP:
                return x, 8
            if delta <= _MACHEP * xnorm:
                return x, 7
            if abs(actred) <= _MACHEP and prered <= _MACHEP and 0.5 * ratio <= 1.0:
                return x, 6
            if nfev >= _LM_MAXFEV:
                return x, 5
            if ratio >= 1e-4:
                break


@helper(forceinline=False, error_model="numpy")
def _nearest_on_line(p1, p2, radius):
    """The point (m, in W) of the line from p1 toward p2 where OpenSim's lmdif, from p1,
    stops (``circle_residual``), and its distance (m) to the circle of ``radius`` (m)."""
    n, c = circle_coefficients(p1, p2)
    u, _ = lmdif(c, radius, 0.0)
    x = (p1[0] + u * n[0], p1[1] + u * n[1], p1[2] + u * n[2])
    return x, math.sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + radius * radius
                        - 2.0 * radius * math.sqrt(x[0] * x[0] + x[1] * x[1]))


@helper(error_model="numpy")
def _simbody_rotation(x, y, z):
    """The rows of the rotation SimTK::Rotation(Mat33) makes of the matrix of rows x, y,
    z: Simbody re-orthonormalizes it through its quaternion (Shepperd's choice of the
    largest of 1 + trace and the diagonal), which perturbs the entries at round-off."""
    tr = x[0] + y[1] + z[2]
    if tr >= x[0] and tr >= y[1] and tr >= z[2]:
        q = (1.0 + tr, z[1] - y[2], x[2] - z[0], y[0] - x[1])
    elif x[0] >= y[1] and x[0] >= z[2]:
        q = (z[1] - y[2], 1.0 - (tr - 2.0 * x[0]), x[1] + y[0], x[2] + z[0])
    elif y[1] >= z[2]:
        q = (x[2] - z[0], x[1] + y[0], 1.0 - (tr - 2.0 * y[1]), y[2] + z[1])
    else:
        q = (y[0] - x[1], x[2] + z[0], y[2] + z[1], 1.0 - (tr - 2.0 * z[2]))
    scale = math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3])
    if q[0] < 0.0:
        scale = -scale
    w, a, b, c = q[0] / scale, q[1] / scale, q[2] / scale, q[3] / scale
    ww, aa, bb, cc = w * w, a * a, b * b, c * c
    wa, wb, wc = w * a, w * b, w * c
    ab, ac, bc = a * b, a * c, b * c
    return ((ww + aa - bb - cc, 2.0 * (ab - wc), 2.0 * (ac + wb)),
            (2.0 * (ab + wc), (ww - aa) + (bb - cc), 2.0 * (bc - wa)),
            (2.0 * (ac - wb), 2.0 * (bc + wa), (ww - aa) - (bb - cc)))


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
    # the cylinder frame C, its origin at the circle point below a, x toward the torus's
    # center, y = -z of W: R_CW's rows are C's axes in W
    center = (-(a[0] * outer / mag), -(a[1] * outer / mag), -0.0)
    x_axis, _ = normalize_or_zero(center)
    y_axis = (0.0, 0.0, -1.0)
    R_CW = _simbody_rotation(x_axis, y_axis, cross3(x_axis, y_axis))
    p_CW = (dot3(R_CW[0], center), dot3(R_CW[1], center), dot3(R_CW[2], center))

    def to_cylinder(p):
        return (p_CW[0] + dot3(R_CW[0], p), p_CW[1] + dot3(R_CW[1], p),
                p_CW[2] + dot3(R_CW[2], p))

    code, r1, r2, length = cylinder_wrap(wf[0], _CYLINDER_LENGTH, 0, 1, wi[SINGLE] == 0,
                                         to_cylinder(q1), to_cylinder(q2))
    if code == WRAPPED or code == MANDATORY_WRAP:

        def to_torus(r):
            d = sub3(r, p_CW)
            return (R_CW[0][0] * d[0] + R_CW[1][0] * d[1] + R_CW[2][0] * d[2],
                    R_CW[0][1] * d[0] + R_CW[1][1] * d[1] + R_CW[2][1] * d[2],
                    R_CW[0][2] * d[0] + R_CW[1][2] * d[1] + R_CW[2][2] * d[2])

        store_wrap(result, previous, to_torus(r1), to_torus(r2), length)
    return WRAPPED
