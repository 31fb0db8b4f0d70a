"""Gravity on every body: the force m g at each body's mass center, added to the spatial
forces about the body origins (in G)."""

from kinetree.jit import helper
from kinetree.multibody.tree_model import kernel


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


@kernel
def add_gravity_forces(mass, com_G, g, body_forces):
    """Gravity on every body but Ground (add_gravity_force)."""
    for b in range(1, mass.shape[0]):
        add_gravity_force(mass, com_G, g, body_forces, b)
