"""Hertz contact of two smooth surfaces with Hunt-Crossley dissipation (paper §5.1, eqs
23-26, Appendix A.2).

Near the initial contact point the gap between two smooth surfaces is a paraboloid
z = A x² + B y² with semicurvatures B ≥ A > 0; the relative principal curvatures are
kmax = 2B and kmin = 2A. All curvatures are in 1/m (positive for convex surfaces, 0 for a
plane, negative for a concave one).

* Composite radius R = 2/(kmax + kmin) = 1/(A + B) (m); for two spheres R = R1 R2/(R1 + R2).
* Ellipse ratio k = a/b ≥ 1 of the contact patch solves (eq 29, Johnson's Contact Mechanics
  §4.2) B/A = (k² E(m) - K(m))/(K(m) - E(m)), m = 1 - 1/k², with K and E the complete
  elliptic integrals of the first and second kind of parameter m.
* Eccentricity factor (eq 28) σ = π k √E(m)/(2 K(m)^(3/2)), 1 for a circle.
* Elastic force (eq 23) f_H = σ (4/3) E* √R x^(3/2) (N) at deformation x (m); σ multiplies
  the whole circular-contact force as in Simbody's ``calcHertzContactForce``.
* Patch semi-axes b = √(x E(m)/((A + B) K(m))), a = k b (m) (Johnson §4.2; Simbody's
  ``calcContactInfo``); for a circle a = b = √(R x).
* Hunt-Crossley (eq 24) f_HC = f_H (3/2) c* ẋ, signed; the total (eq 25)
  f = max(f_H + f_HC, 0) never pulls.

Simbody solves eq 29 with the approximation of Antoine et al. (ref. 70 of the paper) and
approximates K and E as well, which gives σ to about five digits; here eq 29 is solved to
machine precision with ``scipy.special.ellipk``/``ellipe`` and the approximation is kept as
:func:`contact_ellipse_ratio_antoine` for comparison (its σ agrees to better than 1e-5).
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper

__all__ = [
    "contact_ellipse_ratio",
    "contact_ellipse_ratio_antoine",
    "contact_point",
    "eccentricity_factor",
    "effective_radius",
    "eccentricity_factor_kernel",
    "ellipke_kernel",
    "ellipse_ratio_kernel",
    "hertz_force",
    "hertz_patch_semi_axes",
    "hertz_potential_energy",
    "hunt_crossley_dissipation_force",
    "hunt_crossley_normal_force",
    "relative_curvatures",
]


def relative_curvatures(k1max: float, k1min: float, k2max: float, k2min: float,
                        angle: float = 0.0) -> tuple[float, float]:
    """(kmax, kmin) (1/m) of the gap paraboloid between surface 1, of principal curvatures
    k1max, k1min, and surface 2, of principal curvatures k2max, k2min, whose kmax direction
    is turned by ``angle`` (rad) from surface 1's in the common tangent plane.

    Johnson §4.1: A + B = (k1max + k1min + k2max + k2min)/2 and
    (B - A)² = [d1² + d2² + 2 d1 d2 cos 2·angle]/4 with d_i = k_imax - k_imin; kmax = 2B,
    kmin = 2A.
    """
    total = 0.5 * (k1max + k1min + k2max + k2min)
    d1, d2 = k1max - k1min, k2max - k2min
    diff = 0.5 * math.sqrt(max(d1 * d1 + d2 * d2 + 2.0 * d1 * d2 * math.cos(2.0 * angle),
                                0.0))
    return total + diff, total - diff


def effective_radius(kmax: float, kmin: float) -> float:
    """R = 2/(kmax + kmin) (m), the reciprocal of the mean relative curvature (Simbody's
    composite radius; A.1 for spheres: R = R1 R2/(R1 + R2))."""
    _check_curvatures(kmax, kmin, "effective_radius()")
    return 2.0 / (kmax + kmin)


def _check_curvatures(kmax, kmin, where):
    if not (kmax >= kmin > 0 and math.isfinite(kmax)):
        raise InvalidArgumentError(
            f"{where}: relative curvatures kmax={kmax}, kmin={kmin} 1/m are illegal; Hertz "
            "contact needs kmax >= kmin > 0 (pass them in that order; two surfaces whose gap "
            "is flat in some direction, like parallel cylinders, are not Hertz point "
            "contacts).")


def _curvature_ratio_of(k: float) -> float:
    """B/A as a function of the ellipse ratio k = a/b ≥ 1 (eq 29)."""
    if k == 1.0:
        return 1.0
    m = 1.0 - 1.0 / (k * k)
    from scipy.special import ellipe, ellipk  # scipy is slow to import: when first needed
    K, E = ellipk(m), ellipe(m)
    return (k * k * E - K) / (K - E)


def contact_ellipse_ratio(kmax: float, kmin: float) -> float:
    """k = a/b ≥ 1, the ratio of the contact ellipse's semi-axes, solving eq 29
    B/A = kmax/kmin = (k² E(m) - K(m))/(K(m) - E(m)), m = 1 - 1/k², to machine precision.

    The ratio depends on the curvatures only, not on the deformation; a lies along the
    direction of kmin (the flatter direction of the gap).
    """
    _check_curvatures(kmax, kmin, "contact_ellipse_ratio()")
    ratio = kmax / kmin
    if ratio <= 1.0 + 1e-12:
        # a circle to round-off (the compiled twin's threshold): the bracket below
        # would be empty
        return 1.0
    # B/A grows monotonically with k and k < B/A for B/A > 1, so ln k is bracketed by
    # [0, ln(B/A)].
    from scipy.optimize import brentq  # scipy is slow to import: when first needed
    u = brentq(lambda u: _curvature_ratio_of(math.exp(u)) - ratio, 0.0, math.log(ratio),
               xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=200)
    return math.exp(u)


_ANTOINE_U = (0.40227436, 3.7491752e-2, 7.4855761e-4, 2.1667028e-6)
_ANTOINE_V = (0.42678878, 4.2605401e-2, 9.0786922e-4, 2.7868927e-6)


def contact_ellipse_ratio_antoine(kmax: float, kmin: float) -> float:
    """The approximation of k = a/b that Simbody uses (Antoine, Visa, Sauvey, Abba, ASME J.
    Tribology 128:660, 2006): k = (B/A)^p with p = (2/3)(1 + Σ u_i q^(i+1))/(1 + Σ v_i
    q^(i+1)), q = log10²(B/A). Kept for comparison with :func:`contact_ellipse_ratio`."""
    _check_curvatures(kmax, kmin, "contact_ellipse_ratio_antoine()")
    ratio = kmax / kmin
    q = math.log10(ratio) ** 2
    n = 1.0 + sum(u * q ** (i + 1) for i, u in enumerate(_ANTOINE_U))
    d = 1.0 + sum(v * q ** (i + 1) for i, v in enumerate(_ANTOINE_V))
    return ratio ** (2.0 * n / (3.0 * d))


def _sigma_of_k(k: float) -> float:
    if k == 1.0:
        return 1.0
    m = 1.0 - 1.0 / (k * k)
    from scipy.special import ellipe, ellipk
    K, E = ellipk(m), ellipe(m)
    return math.pi * k * math.sqrt(E) / (2.0 * K ** 1.5)


def eccentricity_factor(kmax: float, kmin: float) -> float:
    """σ = π k √E(m)/(2 K(m)^(3/2)) (eq 28, unitless), k from eq 29; σ = 1 for a circular
    patch (kmax = kmin) and grows slowly with the eccentricity."""
    return _sigma_of_k(contact_ellipse_ratio(kmax, kmin))


def hertz_patch_semi_axes(x: float, kmax: float, kmin: float) -> tuple[float, float]:
    """(a, b) (m): the semi-major and semi-minor axes of the contact ellipse at deformation
    x (m): b = √(x E(m)/((A + B) K(m))), a = k b, A + B = (kmax + kmin)/2 (Johnson §4.2).
    a lies along the kmin direction, b along kmax; (0, 0) when x ≤ 0."""
    if x <= 0:
        return 0.0, 0.0
    k = contact_ellipse_ratio(kmax, kmin)
    a_plus_b = 0.5 * (kmax + kmin)
    if k == 1.0:
        b = math.sqrt(x / a_plus_b)
    else:
        m = 1.0 - 1.0 / (k * k)
        from scipy.special import ellipe, ellipk
        b = math.sqrt(x * ellipe(m) / (a_plus_b * ellipk(m)))
    return k * b, b


def hertz_force(x: float, R: float, E_star: float, sigma: float = 1.0) -> float:
    """f_H = σ (4/3) E* √R x^(3/2) (N, eq 23) at deformation x (m), composite radius R (m)
    and composite stiffness E* (Pa); 0 when x ≤ 0."""
    if x <= 0:
        return 0.0
    return sigma * (4.0 / 3.0) * E_star * math.sqrt(R) * x ** 1.5


def hertz_potential_energy(x: float, R: float, E_star: float, sigma: float = 1.0) -> float:
    """(2/5) f_H x (J), the integral of eq 23 over the deformation; 0 when x ≤ 0."""
    return 0.4 * hertz_force(x, R, E_star, sigma) * max(x, 0.0)


def hunt_crossley_dissipation_force(f_hertz: float, xdot: float, c_star: float) -> float:
    """f_HC = f_H (3/2) c* ẋ (N, eq 24): signed like the deformation rate ẋ (m/s), with the
    combined dissipation c* (s/m)."""
    return f_hertz * 1.5 * c_star * xdot


def hunt_crossley_normal_force(x: float, xdot: float, R: float, E_star: float,
                               c_star: float, sigma: float = 1.0) -> float:
    """The total normal force max(f_H + f_HC, 0) (N, eqs 23-26): Hertz elasticity plus
    Hunt-Crossley dissipation, clamped so the contact never pulls the surfaces together."""
    f_h = hertz_force(x, R, E_star, sigma)
    return max(f_h + hunt_crossley_dissipation_force(f_h, xdot, c_star), 0.0)


def contact_point(origin, normal, x: float, s1: float) -> np.ndarray:
    """P = O + x (1/2 - s1) n (m): where the contact force acts.

    O is the point halfway between the two undeformed surfaces along the contact normal n
    (unit, pointing away from surface 1 into surface 2), x the deformation (m) and s1 the
    fraction of it taken by surface 1 (from the combining rules). Equal materials put P at
    O; a rigid surface 2 (s1 = 1) puts P on its undeformed surface, O - (x/2) n.
    """
    return np.asarray(origin, float) + (x * (0.5 - s1)) * np.asarray(normal, float)


# ---- compiled forms for the contact kernels ---------------------------------------------


@helper
def ellipke_kernel(m):
    """(K(m), E(m)), the complete elliptic integrals of the first and second kind of
    parameter 0 ≤ m < 1, by the arithmetic-geometric mean (machine precision)."""
    a, b = 1.0, math.sqrt(1.0 - m)
    c2_sum, weight = 0.5 * m, 0.5
    for _ in range(40):
        c = 0.5 * (a - b)
        a, b = 0.5 * (a + b), math.sqrt(a * b)
        weight *= 2.0
        c2_sum += weight * c * c
        if abs(c) <= 1e-17 * a:
            break
    K = math.pi / (2.0 * a)
    return K, K * (1.0 - c2_sum)


@helper
def ellipse_ratio_kernel(kmax, kmin):
    """(k, K(m), E(m)): the patch ratio k = a/b solving eq 29 for kmax ≥ kmin > 0 by
    bisection on ln k (the same root as :func:`contact_ellipse_ratio`), with the elliptic
    integrals at its m = 1 - 1/k²; (1, π/2, π/2) for a circle."""
    ratio = kmax / kmin
    if ratio <= 1.0 + 1e-12:
        return 1.0, 0.5 * math.pi, 0.5 * math.pi
    lo, hi = 0.0, math.log(ratio)
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid == lo or mid == hi:
            break
        k = math.exp(mid)
        m = 1.0 - 1.0 / (k * k)
        K, E = ellipke_kernel(m)
        if (k * k * E - K) / (K - E) < ratio:
            lo = mid
        else:
            hi = mid
    k = math.exp(0.5 * (lo + hi))
    K, E = ellipke_kernel(1.0 - 1.0 / (k * k))
    return k, K, E


@helper
def eccentricity_factor_kernel(kmax, kmin):
    """σ of eq 28 (compiled twin of :func:`eccentricity_factor`)."""
    k, K, E = ellipse_ratio_kernel(kmax, kmin)
    if k == 1.0:
        return 1.0
    return math.pi * k * math.sqrt(E) / (2.0 * K ** 1.5)
