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

from kinetree.multibody.unilateral.unilateral_contact import effective_cof

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
def contact_modes(v, friction, nrows, transition_speed, mu, mode, direction):
    """From the rows' velocities ``v`` (nc, 3) at the step's start: each contact's
    coefficient of friction at its slip speed (``effective_cof``; ``friction`` holds μs,
    μd, μv), its mode (NORMAL without friction rows, SLIDING where it slips faster than
    the transition speed, else STICKING) and a sliding contact's impulse direction in its
    tangent rows, against the slip; written into ``mu``, ``mode``, ``direction``."""
    for c in range(v.shape[0]):
        slip = math.sqrt(v[c, 1] * v[c, 1] + v[c, 2] * v[c, 2])
        sliding = slip > transition_speed
        mu[c] = effective_cof(friction[c, 0], friction[c, 1], friction[c, 2],
                              transition_speed, slip)
        mode[c] = NORMAL if nrows[c] <= 1 else (SLIDING if sliding else STICKING)
        direction[c, 0] = -v[c, 1] / slip if sliding else 0.0
        direction[c, 1] = -v[c, 2] / slip if sliding else 0.0


@numba.njit(cache=True)
def warm_start(keys, frame, last_keys, last_normal, last_friction, start):
    """Each contact's impulses of the step before, where it was there (its key among
    ``last_keys``), into ``start`` (nc, 3): the normal impulse as it was, the friction
    impulse (kept in G, ``last_friction``) onto the contact's tangents (rows 1 and 2 of
    ``frame``); a contact new to this step keeps its entries (zero). Returns whether the
    contacts are the last step's, in the same order (a resting scene's every step): then
    each is found at its own place, without a search."""
    n_last = last_keys.shape[0]
    same = n_last == keys.shape[0]
    if same:
        for c in range(n_last):
            if keys[c] != last_keys[c]:
                same = False
                break
    by_key = last_keys if same else np.argsort(last_keys)     # unused when the same
    for c in range(keys.shape[0]):
        at = c if same else _search(last_keys, by_key, keys[c])
        if at < 0:
            continue
        start[c, 0] = last_normal[at]
        for r in range(1, 3):
            start[c, r] = (frame[c, r, 0] * last_friction[at, 0]
                           + frame[c, r, 1] * last_friction[at, 1]
                           + frame[c, r, 2] * last_friction[at, 2])
    return same


@numba.njit(cache=True)
def _search(keys, by_key, key):
    """The place in ``keys`` of ``key`` (``by_key`` sorts ``keys``), or -1."""
    lo, hi = 0, keys.shape[0]
    while lo < hi:
        mid = (lo + hi) // 2
        if keys[by_key[mid]] < key:
            lo = mid + 1
        else:
            hi = mid
    if lo < keys.shape[0] and keys[by_key[lo]] == key:
        return by_key[lo]
    return -1


@numba.njit(cache=True)
def carried_impulses(keys, frame, lam):
    """(the keys, their normal impulses, their friction impulses in G) of this step's
    contacts, for the next step's ``warm_start``."""
    n = keys.shape[0]
    normal = np.empty(n)
    friction = np.empty((n, 3))
    for c in range(n):
        normal[c] = lam[c, 0]
        for i in range(3):
            friction[c, i] = lam[c, 1] * frame[c, 1, i] + lam[c, 2] * frame[c, 2, i]
    return keys.copy(), normal, friction


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
