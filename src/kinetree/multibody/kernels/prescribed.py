"""Prescribed motion: the known q, u and u̇ of locked bodies and bodies driven by a Motion,
and the mobility forces τ that make them move so (Jain and Rodriguez's recursion for
prescribed motion).

A body prescribed at a level has its motion known from that level down (cache.level):
at POSITION its q, u and u̇; at VELOCITY its u and u̇ (q integrates); at ACCELERATION its
u̇. The realization writes the known q and u into the State's arrays at the start of
POSITION and VELOCITY (``prescribe_positions``, ``prescribe_velocities``) and the known u̇
before the articulated-body sweeps (``prescribe_accelerations``), which then treat the
body as rigidly carried by its parent: no multiplier, no constraint equation and no
drift. A constant prescription reads cache.q_presc, u_presc and udot_presc; a sinusoid
a sin(ω t + φ) at its level, with its derivatives below, is evaluated at cache.time.

τ, the mobility forces the prescription needs (Simbody's motion multipliers), satisfy
M u̇ + c = f + τ - Gᵀλ on the prescribed mobilities and are zero on the free ones.
"""

import math

from kinetree.jit import helper
from kinetree.multibody.kernels.rnea import residual_forces
from kinetree.multibody.tree_model import (
    FREE,
    PRESCRIBED_ACCELERATION,
    PRESCRIBED_COUNT,
    PRESCRIBED_POSITION,
    PRESCRIBED_VELOCITY,
    SINUSOID,
)


@helper
def _sinusoid(cache, b, derivative):
    """The ``derivative``-th time derivative of body b's a sin(ω t + φ) at cache.time."""
    a, w, phase = cache.motion_prm[b, 0], cache.motion_prm[b, 1], cache.motion_prm[b, 2]
    x = w * cache.time[0] + phase
    if derivative == 0:
        return a * math.sin(x)
    if derivative == 1:
        return a * w * math.cos(x)
    return -a * w * w * math.sin(x)


@helper
def prescribe_positions(tree, cache, q):
    """q of the bodies prescribed at POSITION (a sinusoid applies to each of a body's q,
    whose q̇ = u)."""
    if cache.status[PRESCRIBED_COUNT] == 0:
        return
    for b in range(1, tree.parent.shape[0]):
        if cache.level[b] != PRESCRIBED_POSITION:
            continue
        qs = tree.q_start[b]
        for i in range(tree.nq[b]):
            if cache.method[b] == SINUSOID:
                q[qs + i] = _sinusoid(cache, b, 0)
            else:
                q[qs + i] = cache.q_presc[qs + i]


@helper
def prescribe_velocities(tree, cache, u):
    """u of the bodies prescribed at VELOCITY or POSITION."""
    if cache.status[PRESCRIBED_COUNT] == 0:
        return
    for b in range(1, tree.parent.shape[0]):
        level = cache.level[b]
        if level < PRESCRIBED_VELOCITY:
            continue
        us = tree.u_start[b]
        for j in range(tree.nu[b]):
            if cache.method[b] == SINUSOID:
                u[us + j] = _sinusoid(cache, b, level - PRESCRIBED_VELOCITY)
            else:
                u[us + j] = cache.u_presc[us + j]


@helper
def prescribe_accelerations(tree, cache, udot):
    """u̇ of every prescribed body, for the articulated-body sweeps to read."""
    if cache.status[PRESCRIBED_COUNT] == 0:
        return
    for b in range(1, tree.parent.shape[0]):
        level = cache.level[b]
        if level == FREE:
            continue
        us = tree.u_start[b]
        for j in range(tree.nu[b]):
            if cache.method[b] == SINUSOID:
                udot[us + j] = _sinusoid(cache, b, level - PRESCRIBED_ACCELERATION)
            else:
                udot[us + j] = cache.udot_presc[us + j]


@helper
def motion_forces(tree, cache, f):
    """cache.tau after the articulated-body sweeps: a prescribed body's τ = Hᵀ (P A + z) -
    f, the force its mobilities transmit (P its whole articulated inertia, z its
    articulated bias force, A its acceleration) less the applied f."""
    if cache.status[PRESCRIBED_COUNT] == 0:
        return
    tau = cache.tau
    for b in range(1, tree.parent.shape[0]):
        nu, us = tree.nu[b], tree.u_start[b]
        if cache.level[b] == FREE:
            for j in range(nu):
                tau[us + j] = 0.0
            continue
        P, A, z = cache.P[b], cache.A_GB[b], cache.z[b]
        H = cache.H_cols[us:us + nu]
        for j in range(nu):
            s = -f[us + j]
            for i in range(6):
                Fi = z[i]
                for k in range(6):
                    Fi += P[i, k] * A[k]
                s += H[j, i] * Fi
            tau[us + j] = s


@helper
def constrained_motion_forces(tree, cache, udot, f, F, G, lam):
    """cache.tau after the constraint solve: the prescribed entries of M u̇ + c - f - JᵀF
    + Gᵀλ (inverse dynamics at the constrained u̇), zero elsewhere."""
    if cache.status[PRESCRIBED_COUNT] == 0:
        return
    tau = cache.tau
    residual_forces(tree, cache, cache.c, cache.b, udot, f, F, tau)
    for i in range(lam.shape[0]):
        for k in range(tau.shape[0]):
            tau[k] += G[i, k] * lam[i]
    for b in range(1, tree.parent.shape[0]):
        if cache.level[b] == FREE:
            us = tree.u_start[b]
            for j in range(tree.nu[b]):
                tau[us + j] = 0.0
