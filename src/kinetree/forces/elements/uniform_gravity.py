"""Force.UniformGravity: a uniform field g (m/s², in Ground) acting on every body's mass
center."""

from __future__ import annotations

import math

from kinetree.forces.elements._stations import finite, same_system_matter, vector3
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.multibody.kernels.gravity import add_gravity_force
from kinetree.registry import FORCES

CODE = FORCES["uniform_gravity"]


class UniformGravity(TableForce):
    """Gravity g on every body: the force m g at its mass center, i.e. [c × m g; m g] about
    the body origin. Potential energy -Σ m g·p_com, zero at ``zero_height`` along -g."""

    CODE = CODE

    def __init__(self, forces, matter, gravity, zero_height: float = 0.0):
        where = "Force.UniformGravity"
        g = vector3(gravity, where, "gravity (m/s² in Ground)")
        self._matter = same_system_matter(forces, matter, where)
        super().__init__(forces, [*g, finite(zero_height, where, "zero_height")])

    def get_default_gravity(self):
        return self._defaults[:3].copy()

    def get_default_zero_height(self) -> float:
        return float(self._defaults[3])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [g (3), zero height]."""
    g = ff[:3]
    pe = 0.0
    total = 0.0
    for b in range(1, tree.mass.shape[0]):
        add_gravity_force(tree.mass, cache.com_G, g, body_forces, b)
        m = tree.mass[b]
        p, c = cache.p_GB[b], cache.com_G[b]
        pe -= m * ((p[0] + c[0]) * g[0] + (p[1] + c[1]) * g[1] + (p[2] + c[2]) * g[2])
        total += m
    return pe - total * math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ff[3]
