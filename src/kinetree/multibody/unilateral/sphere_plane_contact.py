"""SpherePlaneContact: a sphere fixed on one body kept on or above a plane of another,
with Coulomb friction at their point of contact (Simbody's SpherePlaneContact): a ball
that bounces, slides and rolls."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import (
    UnilateralContact,
    tangents,
    unit_normal,
)


class SpherePlaneContact(UnilateralContact):
    """The sphere of ``radius`` (m) about ``center_F`` (m, in the sphere body's frame F) of
    ``sphere_mobod`` stays on the side its unit normal ``normal_B`` (in the plane body's
    frame B) points to of the plane n·p_B = ``height`` (m) of ``plane_mobod``:
    ``SpherePlaneContact(plane_mobod, normal_B, height, sphere_mobod, center_F, radius,
    min_cor, mu_s, mu_d, mu_v)``. The tangent rows hold the slip velocity of the sphere's
    point touching the plane."""

    FRICTION_ROWS = 2

    def __init__(self, plane_mobod, normal_B, height, sphere_mobod, center_F, radius,
                 min_cor, mu_s=0.0, mu_d=0.0, mu_v=0.0):
        super().__init__(min_cor, mu_s, mu_d, mu_v)
        self.radius = float(radius)
        if not self.radius > 0.0:
            raise InvalidArgumentError(f"SpherePlaneContact: the radius must be positive "
                                       f"(m), got {radius!r}.")
        self.plane_mobod, self.sphere_mobod = plane_mobod, sphere_mobod
        self.normal_B = unit_normal(normal_B, "SpherePlaneContact")
        self.height = float(height)
        self.center_F = np.asarray(center_F, dtype=float).reshape(3)

    def get_separation(self, state) -> float:
        self._check_adopted("get_separation")
        X_GB = self.plane_mobod.get_body_transform(state)
        c_G = self.sphere_mobod.find_station_location_in_ground(state, self.center_F)
        return float(self.normal_B @ (X_GB.R.as_matrix().T @ (c_G - X_GB.p))
                     - self.height - self.radius)

    def calc_rows(self, state) -> np.ndarray:
        matter = self._check_adopted("calc_rows")
        X_GB = self.plane_mobod.get_body_transform(state)
        X_GF = self.sphere_mobod.get_body_transform(state)
        n_G = X_GB.R.as_matrix() @ self.normal_B
        c_G = X_GF.R.as_matrix() @ self.center_F + X_GF.p
        touch = c_G - self.radius * n_G          # the sphere's point nearest the plane
        J_center = matter.calc_station_jacobian(state, self.sphere_mobod, self.center_F)
        J_touch = matter.calc_station_jacobian(
            state, self.sphere_mobod, X_GF.R.as_matrix().T @ (touch - X_GF.p))
        J_plane = matter.calc_station_jacobian(
            state, self.plane_mobod, X_GB.R.as_matrix().T @ (touch - X_GB.p))
        t1, t2 = tangents(n_G)
        return np.vstack([n_G @ (J_center - J_plane), t1 @ (J_touch - J_plane),
                          t2 @ (J_touch - J_plane)])
