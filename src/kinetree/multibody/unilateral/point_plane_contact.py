"""PointPlaneContact: a point of one body kept on or above a plane of another, with Coulomb
friction across the plane (Simbody's PointPlaneContact)."""

from __future__ import annotations

import numpy as np

from kinetree.multibody.unilateral.unilateral_contact import (
    UnilateralContact,
    tangents,
    unit_normal,
)


class PointPlaneContact(UnilateralContact):
    """The point ``point_F`` (m, in the follower's frame F) of ``follower_mobod`` stays on
    the side its unit normal ``normal_B`` (in the plane body's frame B) points to of the
    plane n·p_B = ``height`` (m) of ``plane_mobod``:
    ``PointPlaneContact(plane_mobod, normal_B, height, follower_mobod, point_F, min_cor,
    mu_s, mu_d, mu_v)``. Its two tangent rows hold the point's slip velocity along the
    plane."""

    FRICTION_ROWS = 2

    def __init__(self, plane_mobod, normal_B, height, follower_mobod, point_F, min_cor,
                 mu_s=0.0, mu_d=0.0, mu_v=0.0):
        super().__init__(min_cor, mu_s, mu_d, mu_v)
        self.plane_mobod, self.follower_mobod = plane_mobod, follower_mobod
        self.normal_B = unit_normal(normal_B, "PointPlaneContact")
        self.height = float(height)
        self.point_F = np.asarray(point_F, dtype=float).reshape(3)

    def _geometry(self, poses):
        """(unit normal in G, the point in the plane body's frame)."""
        R_GB, p_GB = poses
        b, f = self.plane_mobod.get_mobilized_body_index(), \
            self.follower_mobod.get_mobilized_body_index()
        p_G = R_GB[f] @ self.point_F + p_GB[f]
        return R_GB[b] @ self.normal_B, R_GB[b].T @ (p_G - p_GB[b])

    def _separation(self, state, poses) -> float:
        _, p_B = self._geometry(poses)
        return float(self.normal_B @ p_B - self.height)

    def _terms(self, state, poses) -> list:
        n_G, p_B = self._geometry(poses)
        directions = np.vstack([n_G, *tangents(n_G)])
        return [(self.follower_mobod.get_mobilized_body_index(), self.point_F, directions),
                (self.plane_mobod.get_mobilized_body_index(), p_B, -directions)]
