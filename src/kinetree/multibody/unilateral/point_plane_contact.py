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

    def _geometry(self, state):
        """(unit normal in G, the point in G, the point in the plane body's frame)."""
        X_GB = self.plane_mobod.get_body_transform(state)
        R = X_GB.R.as_matrix()
        n_G = R @ self.normal_B
        p_G = self.follower_mobod.find_station_location_in_ground(state, self.point_F)
        return n_G, p_G, R.T @ (p_G - X_GB.p)

    def get_separation(self, state) -> float:
        self._check_adopted("get_separation")
        n_G, _, p_B = self._geometry(state)
        return float(self.normal_B @ p_B - self.height)

    def calc_rows(self, state) -> np.ndarray:
        matter = self._check_adopted("calc_rows")
        n_G, _, p_B = self._geometry(state)
        J = matter.calc_station_jacobian(state, self.follower_mobod, self.point_F) \
            - matter.calc_station_jacobian(state, self.plane_mobod, p_B)
        t1, t2 = tangents(n_G)
        return np.vstack([n_G @ J, t1 @ J, t2 @ J])
