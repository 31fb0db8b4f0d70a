"""The projected Gauss-Seidel impulse solver (Simbody's PGSImpulseSolver), compiled: the
impulses of one phase of a SemiExplicitEulerTimeStepper step.

Rows are those of the proximal contacts' constraint Jacobian G; A = G M⁻¹ Gᵀ maps impulses
λ to changes of the rows' velocities, so that after the phase they are w = v + A λ. A normal
row's impulse is ≥ 0 and leaves its w at or above its target (exactly there where the
impulse is positive); a pair of friction rows drives their w toward their target (0: no
slip) with an impulse no longer than μ times their normal's, Coulomb's cone; where the
cone cannot hold it, a sticking contact's impulse is cut to the cone's edge, a sliding
contact's lies there against its slip at the step's start.
"""

import math

import numba
import numpy as np

NORMAL, FRICTION, SLIDING = 0, 1, 2
"""Row kinds. A FRICTION (sticking) or SLIDING row is the first of a pair, the next row
its second."""


@numba.njit(cache=True, nogil=True)
def pgs(A, v, target, kind, normal_of, mu, direction, lam, iterations, tolerance):
    """Iterate on ``lam`` (in/out, N s or N m s) until no impulse changes by more than
    ``tolerance`` times the largest in a sweep, or ``iterations`` sweeps; returns the
    sweeps made. ``normal_of[i]`` is the normal row of friction pair i, ``mu[i]`` its
    coefficient of friction, ``direction[i:i + 2]`` a sliding pair's unit impulse
    direction."""
    m = v.shape[0]
    w = v.copy()
    for i in range(m):
        if lam[i] != 0.0:
            for k in range(m):
                w[k] += A[k, i] * lam[i]
    sweeps = 0
    while sweeps < iterations:
        sweeps += 1
        change = 0.0
        largest = 0.0
        i = 0
        while i < m:
            if kind[i] == NORMAL:
                if A[i, i] > 0.0:
                    new = max(0.0, lam[i] - (w[i] - target[i]) / A[i, i])
                    d = new - lam[i]
                    if d != 0.0:
                        for k in range(m):
                            w[k] += A[k, i] * d
                        lam[i] = new
                    change = max(change, abs(d))
                largest = max(largest, abs(lam[i]))
                i += 1
            else:
                # Sticking, or sliding: the impulse that stops the slip, if the cone holds
                # it; else the cone's edge, along the stick impulse (sticking) or against
                # the slip at the step's start (sliding, so that the friction cannot
                # turn the slip aside). A sliding contact whose slip stops within the
                # step thus sticks.
                j = i + 1
                a11, a12, a22 = A[i, i], A[i, j], A[j, j]
                det = a11 * a22 - a12 * a12
                r1, r2 = w[i] - target[i], w[j] - target[j]
                if det > 0.0:
                    t1 = lam[i] - (a22 * r1 - a12 * r2) / det
                    t2 = lam[j] - (a11 * r2 - a12 * r1) / det
                else:
                    t1 = lam[i] - (r1 / a11 if a11 > 0.0 else 0.0)
                    t2 = lam[j] - (r2 / a22 if a22 > 0.0 else 0.0)
                limit = mu[i] * lam[normal_of[i]]
                size = math.sqrt(t1 * t1 + t2 * t2)
                if size > limit:
                    if kind[i] == SLIDING:
                        t1, t2 = limit * direction[i], limit * direction[j]
                    else:
                        scale = limit / size if size > 0.0 else 0.0
                        t1 *= scale
                        t2 *= scale
                d1, d2 = t1 - lam[i], t2 - lam[j]
                for k in range(m):
                    w[k] += A[k, i] * d1 + A[k, j] * d2
                lam[i], lam[j] = t1, t2
                change = max(change, abs(d1), abs(d2))
                largest = max(largest, abs(t1), abs(t2))
                i += 2
        if change <= tolerance * max(largest, 1e-300):
            break
    return sweeps


def solve(A, v, target, kind, normal_of, mu, direction, start=None, iterations=1000,
          tolerance=1e-13):
    """The impulses of one phase (module docstring), from ``start`` (zero if None)."""
    lam = np.zeros(v.shape[0]) if start is None else np.array(start, dtype=float)
    pgs(A, v, target, kind, normal_of, mu, direction, lam, iterations, tolerance)
    return lam
