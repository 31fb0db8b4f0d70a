"""The projected Gauss-Seidel impulse solver (Simbody's PGSImpulseSolver), compiled: the
impulses of one phase of a SemiExplicitEulerTimeStepper step, on the sparse rows of
``contact_rows``.

Each contact has up to three rows: its normal, then two tangent rows with friction. After
the phase the rows' velocities are w = G (v0 + Δu), Δu = M⁻¹ Gᵀ λ, kept as the solver goes,
so that one contact's update costs the size of its mobility lists rather than the number
of contacts. A normal impulse is ≥ 0 and leaves its w at or above its target (exactly
there where the impulse is positive); a pair of friction rows drives their w toward their
target (0: no slip) with an impulse no longer than μ times their normal's, Coulomb's cone.
Where the cone cannot hold it, a sticking contact's impulse is cut to the cone's edge, a
sliding contact's lies there against its slip at the step's start.
"""

import math

import numba
import numpy as np

NORMAL, STICKING, SLIDING = 0, 1, 2
"""Contact modes: a normal row alone (no friction, or friction left out of the phase),
or a normal row and a friction pair, sticking or sliding."""


@numba.njit(cache=True)
def pgs(start, dofs, G, W, D, mode, mu, direction, v0, target, lam, du, iterations,
        tolerance):
    """Iterate on ``lam`` (nc, 3; in/out, N s) until no impulse changes by more than
    ``tolerance`` times the largest in a sweep, or ``iterations`` sweeps; ``du`` (nu) is
    set to M⁻¹ Gᵀ λ. ``mode[c]`` is the contact's (NORMAL, STICKING, SLIDING),
    ``mu[c]`` its coefficient of friction, ``direction[c]`` a sliding contact's unit
    impulse direction in its tangent rows, ``target`` (nc, 3) the rows' velocity targets.
    Returns the sweeps made."""
    n_contacts = start.shape[0] - 1
    du[:] = 0.0
    for c in range(n_contacts):
        for i in range(start[c], start[c + 1]):
            du[dofs[i]] += W[i, 0] * lam[c, 0] + W[i, 1] * lam[c, 1] + W[i, 2] * lam[c, 2]
    sweeps = 0
    while sweeps < iterations:
        sweeps += 1
        change = 0.0
        largest = 0.0
        for c in range(n_contacts):
            s, e = start[c], start[c + 1]
            if D[c, 0, 0] > 0.0:
                w = 0.0
                for i in range(s, e):
                    w += G[i, 0] * (v0[dofs[i]] + du[dofs[i]])
                new = max(0.0, lam[c, 0] - (w - target[c, 0]) / D[c, 0, 0])
                d = new - lam[c, 0]
                if d != 0.0:
                    for i in range(s, e):
                        du[dofs[i]] += W[i, 0] * d
                    lam[c, 0] = new
                change = max(change, abs(d))
            largest = max(largest, abs(lam[c, 0]))
            if mode[c] == NORMAL:
                continue
            # Sticking, or sliding: the impulse that stops the slip, if the cone holds it;
            # else the cone's edge, along the stick impulse (sticking) or against the slip
            # at the step's start (sliding, so that the friction cannot turn the slip
            # aside). A sliding contact whose slip stops within the step thus sticks.
            w1, w2 = 0.0, 0.0
            for i in range(s, e):
                v = v0[dofs[i]] + du[dofs[i]]
                w1 += G[i, 1] * v
                w2 += G[i, 2] * v
            a11, a12, a22 = D[c, 1, 1], D[c, 1, 2], D[c, 2, 2]
            det = a11 * a22 - a12 * a12
            r1, r2 = w1 - target[c, 1], w2 - target[c, 2]
            if det > 0.0:
                t1 = lam[c, 1] - (a22 * r1 - a12 * r2) / det
                t2 = lam[c, 2] - (a11 * r2 - a12 * r1) / det
            else:
                t1 = lam[c, 1] - (r1 / a11 if a11 > 0.0 else 0.0)
                t2 = lam[c, 2] - (r2 / a22 if a22 > 0.0 else 0.0)
            limit = mu[c] * lam[c, 0]
            size = math.sqrt(t1 * t1 + t2 * t2)
            if size > limit:
                if mode[c] == SLIDING:
                    t1, t2 = limit * direction[c, 0], limit * direction[c, 1]
                else:
                    scale = limit / size if size > 0.0 else 0.0
                    t1 *= scale
                    t2 *= scale
            d1, d2 = t1 - lam[c, 1], t2 - lam[c, 2]
            if d1 != 0.0 or d2 != 0.0:
                for i in range(s, e):
                    du[dofs[i]] += W[i, 1] * d1 + W[i, 2] * d2
                lam[c, 1], lam[c, 2] = t1, t2
            change = max(change, abs(d1), abs(d2))
            largest = max(largest, abs(t1), abs(t2))
        if change <= tolerance * max(largest, 1e-300):
            break
    return sweeps


def solve(rows, mode, mu, direction, v0, target, start=None, iterations=1000,
          tolerance=1e-13):
    """(λ (nc, 3), Δu = M⁻¹ Gᵀ λ (nu)) of one phase from the velocities ``v0`` (nu), the
    impulses iterated from ``start`` (zero if None); ``rows`` = (start, dofs, G, W, D) of
    ``contact_rows.build_rows``."""
    first, dofs, G, W, D = rows
    lam = np.zeros((first.shape[0] - 1, 3)) if start is None \
        else np.array(start, dtype=float)
    du = np.zeros(v0.shape[0])
    pgs(first, dofs, G, W, D, mode, mu, direction, v0, target, lam, du, iterations,
        tolerance)
    return lam, du
