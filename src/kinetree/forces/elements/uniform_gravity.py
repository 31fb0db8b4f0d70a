"""Force.UniformGravity: a uniform field g (m/s², in Ground) acting on every body's mass
center."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.force import Force
from kinetree.multibody.kernels.gravity import add_gravity_forces
from kinetree.system.stage import Stage


class UniformGravity(Force):
    """Gravity g on every body: the force m g at its mass center, i.e. [c × m g; m g] about
    the body origin. Potential energy -Σ m g·p_com, zero at ``zero_height`` along -g."""

    def __init__(self, forces, matter, gravity, zero_height: float = 0.0):
        g = np.asarray(gravity, dtype=float)
        if g.shape != (3,) or not np.all(np.isfinite(g)):
            raise InvalidArgumentError(
                f"Force.UniformGravity: gravity must be 3 finite numbers (m/s² in Ground), "
                f"got {gravity!r}.")
        self._matter = matter
        self._g = g
        self._zero_height = float(zero_height)
        super().__init__(forces)

    def get_default_gravity(self) -> np.ndarray:
        return self._g.copy()

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        d = self._matter._tree_data(state, Stage.POSITION, "Force.UniformGravity.calc_force")
        add_gravity_forces(d.tree.mass, d.cache.com_G, self._g, body_forces)

    def calc_potential_energy(self, state) -> float:
        d = self._matter._tree_data(state, Stage.POSITION,
                                    "Force.UniformGravity.calc_potential_energy")
        p_com = d.cache.p_GB[1:] + d.cache.com_G[1:]
        m = d.tree.mass[1:]
        g_norm = np.linalg.norm(self._g)
        return float(-np.sum(m * (p_com @ self._g)) - m.sum() * g_norm * self._zero_height)
