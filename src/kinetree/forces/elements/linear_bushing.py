"""Force.LinearBushing: a six-axis linear spring-damper between a frame F on one body and
a frame M on another."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force, tree
from kinetree.forces.force import Force
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.system.stage import Stage


def _rate_matrix(a: float, b: float) -> np.ndarray:
    """Hᵣ with w_FM (in F) = Hᵣ (ȧ, ḃ, ċ) for body-fixed x-y-z angles (a, b, c)."""
    ca, sa, cb, sb = np.cos(a), np.sin(a), np.cos(b), np.sin(b)
    return np.array([[1.0, 0.0, sb], [0.0, ca, -sa * cb], [0.0, sa, ca * cb]])


class LinearBushing(Force):
    """The bushing measures M relative to F as q = [body-fixed x-y-z angles of R_FM (rad);
    p_FM (m, in F)] and applies the generalized forces f = -(k∘q + c∘q̇) conjugate to q:
    a spatial force on body2 at M's origin, and its opposite on body1. Stiffness and
    damping are six values each (N m/rad then N/m; N m s/rad then N s/m). Potential
    energy ½ Σ k q². Like a Bushing mobilizer it is singular when the middle angle is ±90°.
    """

    def __init__(self, forces, body1, X_B1F, body2, X_B2M, stiffness, damping):
        where = "Force.LinearBushing"
        k, c = np.asarray(stiffness, dtype=float), np.asarray(damping, dtype=float)
        if k.shape != (6,) or c.shape != (6,) or np.any(k < 0) or np.any(c < 0):
            raise InvalidArgumentError(
                f"{where}: stiffness and damping must be six values >= 0 each; got "
                f"{stiffness!r} and {damping!r}.")
        if not (isinstance(X_B1F, Transform) and isinstance(X_B2M, Transform)):
            raise InvalidArgumentError(f"{where}: X_B1F and X_B2M must be Transforms.")
        self._b1, self._b2 = body1.get_mobilized_body_index(), body2.get_mobilized_body_index()
        self._X_B1F, self._X_B2M = X_B1F, X_B2M
        self._k, self._c = k, c
        self._matter = body1.get_matter_subsystem()
        super().__init__(forces)

    def _frames(self, cache):
        """R_GF, p_GF, R_GM, p_GM."""
        R1, R2 = cache.R_GB[self._b1], cache.R_GB[self._b2]
        R_GF = R1 @ self._X_B1F.R.as_matrix()
        R_GM = R2 @ self._X_B2M.R.as_matrix()
        return (R_GF, cache.p_GB[self._b1] + R1 @ self._X_B1F.p,
                R_GM, cache.p_GB[self._b2] + R2 @ self._X_B2M.p)

    def _q(self, cache) -> np.ndarray:
        R_GF, p_GF, R_GM, p_GM = self._frames(cache)
        angles = Rotation(R_GF.T @ R_GM).convert_rotation_to_body_fixed_xyz()
        return np.concatenate([angles, R_GF.T @ (p_GM - p_GF)])

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        c = tree(self._matter, state, Stage.VELOCITY, "Force.LinearBushing")
        R_GF, p_GF, R_GM, p_GM = self._frames(c)
        q = self._q(c)
        V1, V2 = c.V_GB[self._b1], c.V_GB[self._b2]
        w_GF = V1[:3]
        v_GF = V1[3:] + np.cross(w_GF, p_GF - c.p_GB[self._b1])
        v_GM = V2[3:] + np.cross(V2[:3], p_GM - c.p_GB[self._b2])
        H_r = _rate_matrix(q[0], q[1])
        qdot = np.concatenate([
            np.linalg.solve(H_r, R_GF.T @ (V2[:3] - w_GF)),
            R_GF.T @ (v_GM - v_GF - np.cross(w_GF, p_GM - p_GF))])
        f = -(self._k * q + self._c * qdot)
        torque = R_GF @ np.linalg.solve(H_r.T, f[:3])
        force = R_GF @ f[3:]
        body_forces[self._b2, :3] += torque
        body_forces[self._b1, :3] -= torque
        add_station_force(body_forces, self._b2, p_GM - c.p_GB[self._b2], force)
        add_station_force(body_forces, self._b1, p_GM - c.p_GB[self._b1], -force)

    def calc_potential_energy(self, state) -> float:
        c = tree(self._matter, state, Stage.POSITION, "Force.LinearBushing")
        return 0.5 * float(self._k @ self._q(c) ** 2)
