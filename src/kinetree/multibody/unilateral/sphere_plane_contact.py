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

    def _separation(self, state, poses) -> float:
        R_GB, p_GB = poses
        b, f = self.plane_mobod.get_mobilized_body_index(), \
            self.sphere_mobod.get_mobilized_body_index()
        c_G = R_GB[f] @ self.center_F + p_GB[f]
        return float(self.normal_B @ (R_GB[b].T @ (c_G - p_GB[b])) - self.height
                     - self.radius)

    def _terms(self, state, poses) -> list:
        R_GB, p_GB = poses
        b, f = self.plane_mobod.get_mobilized_body_index(), \
            self.sphere_mobod.get_mobilized_body_index()
        n_G = R_GB[b] @ self.normal_B
        c_G = R_GB[f] @ self.center_F + p_GB[f]
        touch = c_G - self.radius * n_G          # the sphere's point nearest the plane
        t1, t2 = tangents(n_G)
        zero = np.zeros(3)
        # the normal row at the centre (the separation's rate), the slip at the touch point
        return [(f, self.center_F, np.vstack([n_G, zero, zero])),
                (f, R_GB[f].T @ (touch - p_GB[f]), np.vstack([zero, t1, t2])),
                (b, R_GB[b].T @ (touch - p_GB[b]), -np.vstack([n_G, t1, t2]))]
