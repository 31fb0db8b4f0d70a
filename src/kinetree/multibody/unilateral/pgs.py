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

A sweep visits the contacts nearest Ground first (``ground_first``): the contacts that
carry a stack then learn its weight from the bottom up within one sweep, instead of one
box per sweep.
"""

import math

import numba
import numpy as np

NORMAL, STICKING, SLIDING = 0, 1, 2
"""Contact modes: a normal row alone (no friction, or friction left out of the phase),
or a normal row and a friction pair, sticking or sliding."""


@numba.njit(cache=True)
def pgs(start, dofs, G, W, D, order, mode, known, mu, direction, v0, target, lam, du,
        iterations, tolerance):
    """Iterate on ``lam`` (nc, 3; in/out, N s), visiting the contacts in ``order``, until
    no update changes its rows' velocities by more than ``tolerance`` (m/s) in a sweep, or
    ``iterations`` sweeps; ``du`` (nu) is set to M⁻¹ Gᵀ λ. ``mode[c]`` is the contact's
    (NORMAL, STICKING, SLIDING), ``known[c]`` whether its normal impulse is given (its
    start value, kept: an expansion impulse), ``mu[c]`` its coefficient of friction,
    ``direction[c]`` a sliding contact's unit impulse direction in its tangent rows,
    ``target`` (nc, 3) the rows' velocity targets. Returns the sweeps made."""
    n_contacts = start.shape[0] - 1
    du[:] = 0.0
    for c in range(n_contacts):
        for i in range(start[c], start[c + 1]):
            du[dofs[i]] += W[i, 0] * lam[c, 0] + W[i, 1] * lam[c, 1] + W[i, 2] * lam[c, 2]
    sweeps = 0
    while sweeps < iterations:
        sweeps += 1
        change = 0.0
        for c in order:
            s, e = start[c], start[c + 1]
            if D[c, 0, 0] > 0.0 and not known[c]:
                w = 0.0
                for i in range(s, e):
                    w += G[i, 0] * (v0[dofs[i]] + du[dofs[i]])
                new = max(0.0, lam[c, 0] - (w - target[c, 0]) / D[c, 0, 0])
                d = new - lam[c, 0]
                if d != 0.0:
                    for i in range(s, e):
                        du[dofs[i]] += W[i, 0] * d
                    lam[c, 0] = new
                change = max(change, abs(d) * D[c, 0, 0])
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
            change = max(change, abs(d1) * a11 + abs(d2) * a22)
        if change <= tolerance:
            break
    return sweeps


@numba.njit(cache=True)
def ground_first(n_contacts, term_contact, term_body, n_bodies):
    """The contacts in the order of their bodies' distance from Ground through the
    contacts (a contact with Ground first, then those on the bodies it touches, ...)."""
    a = np.full(n_contacts, -1, np.int64)
    b = np.zeros(n_contacts, np.int64)
    for k in range(term_contact.shape[0]):
        c = term_contact[k]
        if a[c] < 0:
            a[c] = term_body[k]
        b[c] = term_body[k]
    far = n_bodies + 1
    level = np.full(n_bodies, far, np.int64)
    level[0] = 0
    changed = True
    while changed:
        changed = False
        for c in range(n_contacts):
            if a[c] < 0:
                continue
            if level[a[c]] + 1 < level[b[c]]:
                level[b[c]] = level[a[c]] + 1
                changed = True
            if level[b[c]] + 1 < level[a[c]]:
                level[a[c]] = level[b[c]] + 1
                changed = True
    depth = np.zeros(n_contacts, np.int64)
    for c in range(n_contacts):
        depth[c] = 0 if a[c] < 0 else min(level[a[c]], level[b[c]])
    return np.argsort(depth, kind="mergesort")


def solve(rows, order, mode, mu, direction, v0, target, start=None, known=None,
          iterations=1000, tolerance=1e-10):
    """(λ (nc, 3), Δu = M⁻¹ Gᵀ λ (nu)) of one phase from the velocities ``v0`` (nu), the
    impulses iterated from ``start`` (zero if None); ``rows`` = (start, dofs, G, W, D) of
    ``contact_rows.build_rows``, ``order`` the contacts taking part, in a sweep's order;
    ``known`` marks the contacts whose normal impulse is ``start``'s."""
    first, dofs, G, W, D = rows
    n = first.shape[0] - 1
    lam = np.zeros((n, 3)) if start is None else np.array(start, dtype=float)
    known = np.zeros(n, np.bool_) if known is None else known
    du = np.zeros(v0.shape[0])
    pgs(first, dofs, G, W, D, order, mode, known, mu, direction, v0, target, lam, du,
        iterations, tolerance)
    return lam, du
