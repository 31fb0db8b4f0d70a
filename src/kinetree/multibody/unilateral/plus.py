"""The PLUS impulse solver (Simbody's PLUSImpulseSolver: projected, limited, unilateral,
sliding): the impulses of one phase of a SemiExplicitEulerTimeStepper step by direct
solves on an active set, instead of projected Gauss-Seidel's sweeps. Its answers are
exact to round-off, its cost the cube of the rows taking part: for a few contacts.

Each contact's equations, by its state in the active set: a normal that pushes keeps its
row's velocity at its target, one that does not has no impulse; a sticking friction pair
keeps its slip at its target, a sliding one is μ times the normal impulse along a fixed
direction (against the slip at the step's start, or, for a contact that was sticking,
the direction its stick impulse took when it left the cone). The set starts with every
normal pushing and every contact in its mode; a solve that pulls (a negative normal
impulse), leaves a gap closing (a velocity below its target) or needs more friction than
the cone holds changes it, one contact's worst violation at a time, and solves again.
Redundant contacts (four corners on a floor) make the equations singular: the solve is
least squares, the smallest impulses that meet them.
"""

from __future__ import annotations

import numpy as np

from kinetree.multibody.unilateral.pgs import NORMAL, SLIDING
from kinetree.multibody.unilateral.pgs import solve as pgs_solve

ITERATIONS = 100
"""Active-set changes before the answer is handed to PGS to finish."""
SLACK = 1e-12
"""Relative slack of the active set's tests (of the largest impulse or velocity)."""


def _dense(rows, nu):
    """(G, W) as dense (3 nc x nu) arrays from the sparse rows."""
    start, dofs, G_s, W_s, _ = rows
    nc = start.shape[0] - 1
    G = np.zeros((3 * nc, nu))
    W = np.zeros((3 * nc, nu))
    contact = np.repeat(np.arange(nc), np.diff(start))
    for r in range(3):
        np.add.at(G, (3 * contact + r, dofs), G_s[:, r])
        np.add.at(W, (3 * contact + r, dofs), W_s[:, r])
    return G, W


def solve(rows, order, mode, mu, direction, v0, target, start=None, known=None,
          tolerance=1e-10):
    """As ``pgs.solve``: (λ (nc, 3), Δu = M⁻¹ Gᵀ λ) of one phase from the velocities
    ``v0`` for the contacts in ``order``, those ``known`` keeping their normal impulse
    of ``start``."""
    nc = rows[0].shape[0] - 1
    lam = np.zeros((nc, 3)) if start is None else np.array(start, dtype=float)
    known = np.zeros(nc, bool) if known is None else np.asarray(known, bool)
    taking = np.zeros(nc, bool)
    taking[np.asarray(order, np.int64)] = True
    G, W = _dense(rows, v0.shape[0])
    A = G @ W.T
    fixed = lam.copy()
    fixed[taking & ~known] = 0.0           # what is not solved for keeps its start
    fixed[taking, 1:] = 0.0
    w0 = (G @ (v0 + W.T @ fixed.reshape(-1))).reshape(nc, 3)
    pushing = taking & ~known
    friction = taking & (mode != NORMAL)
    sliding = friction & (mode == SLIDING)
    slide = np.array(direction, dtype=float).reshape(nc, 2).copy()
    x = np.zeros((nc, 3))
    for _ in range(ITERATIONS):
        x = _solve_set(A, w0, target, fixed, pushing, known, friction, sliding, slide, mu,
                       taking)
        w = w0 + (A @ (x - fixed).reshape(-1)).reshape(nc, 3)
        scale = max(np.abs(x).max(), 1e-300)
        vscale = max(np.abs(w).max(), np.abs(target).max(), 1e-300)
        worst, change = 0.0, None
        for c in np.flatnonzero(taking):
            if pushing[c] and x[c, 0] < -SLACK * scale and -x[c, 0] > worst:
                worst, change = -x[c, 0] / scale, ("release", c)
            elif (taking[c] and not known[c] and not pushing[c]
                  and w[c, 0] < target[c, 0] - SLACK * vscale
                  and (target[c, 0] - w[c, 0]) / vscale > worst):
                worst, change = (target[c, 0] - w[c, 0]) / vscale, ("push", c)
            elif friction[c] and not sliding[c]:
                size = np.hypot(x[c, 1], x[c, 2])
                limit = mu[c] * max(x[c, 0], 0.0)
                if size > limit * (1 + SLACK) + SLACK * scale \
                        and (size - limit) / scale > worst:
                    worst, change = (size - limit) / scale, ("slide", c)
        if change is None:
            break
        what, c = change
        if what == "release":
            pushing[c] = False
        elif what == "push":
            pushing[c] = True
        else:
            sliding[c] = True
            slide[c] = x[c, 1:] / np.hypot(x[c, 1], x[c, 2])
    else:
        # no consistent set found: projected Gauss-Seidel finishes from the last answer
        return pgs_solve(rows, order, mode, mu, direction, v0, target, x, known,
                         tolerance=tolerance)
    du = W.T @ x.reshape(-1)
    return x, du


def _solve_set(A, w0, target, fixed, pushing, known, friction, sliding, slide, mu,
               taking):
    """The impulses of the active set's equations (module docstring), least squares."""
    nc = len(pushing)
    m = 3 * nc
    M = np.zeros((m, m))
    b = np.zeros(m)
    for c in range(nc):
        n = 3 * c
        if not taking[c]:
            M[n:n + 3, n:n + 3] = np.eye(3)
            b[n:n + 3] = fixed[c]
            continue
        if pushing[c]:
            M[n] = A[n]
            b[n] = target[c, 0] - w0[c, 0] + A[n] @ fixed.reshape(-1)
        else:
            M[n, n] = 1.0
            b[n] = fixed[c, 0] if known[c] else 0.0
        for r in (1, 2):
            if not friction[c] or (not pushing[c] and not known[c]):
                M[n + r, n + r] = 1.0                       # no friction without a push
            elif sliding[c]:
                M[n + r, n + r] = 1.0
                M[n + r, n] = -mu[c] * slide[c, r - 1]
            else:
                M[n + r] = A[n + r]
                b[n + r] = target[c, r] - w0[c, r] + A[n + r] @ fixed.reshape(-1)
    x = np.linalg.lstsq(M, b, rcond=None)[0]
    return x.reshape(nc, 3)
