"""Gravity on a body: the force m g at its mass center, added to its spatial force about
its origin (in G)."""

from kinetree.jit import helper


@helper
def add_gravity_force(mass, com_G, g, body_forces, b):
    """body_forces[b] += [c × m g; m g]; c = com_G[b] (m, the mass center from the body
    origin, in G), g (m/s², in G)."""
    m, c = mass[b], com_G[b]
    fx, fy, fz = m * g[0], m * g[1], m * g[2]
    F = body_forces[b]
    F[0] += c[1] * fz - c[2] * fy
    F[1] += c[2] * fx - c[0] * fz
    F[2] += c[0] * fy - c[1] * fx
    F[3] += fx
    F[4] += fy
    F[5] += fz

