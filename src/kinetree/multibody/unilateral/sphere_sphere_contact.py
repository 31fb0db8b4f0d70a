"""SphereSphereContact: two spheres fixed on two bodies kept from interpenetrating, with
Coulomb friction at their point of contact (Simbody's SphereSphereContact)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import UnilateralContact, tangents


class SphereSphereContact(UnilateralContact):
    """``SphereSphereContact(body1, center1, radius1, body2, center2, radius2, min_cor,
    mu_s, mu_d, mu_v)``: the spheres of radius1 about center1 (m, in body1's frame) and of
    radius2 about center2 (in body2's) touch at most. The tangent rows hold the slip at
    their point of contact."""

    FRICTION_ROWS = 2

    def __init__(self, body1, center1, radius1, body2, center2, radius2, min_cor,
                 mu_s=0.0, mu_d=0.0, mu_v=0.0):
        super().__init__(min_cor, mu_s, mu_d, mu_v)
        self.body1, self.body2 = body1, body2
        self.center1 = np.asarray(center1, dtype=float).reshape(3)
        self.center2 = np.asarray(center2, dtype=float).reshape(3)
        self.radius1, self.radius2 = float(radius1), float(radius2)
        if not (self.radius1 > 0.0 and self.radius2 > 0.0):
            raise InvalidArgumentError(f"SphereSphereContact: the radii must be positive "
                                       f"(m), got {radius1!r} and {radius2!r}.")

    def _centers(self, poses):
        R_GB, p_GB = poses
        b1, b2 = self.body1.get_mobilized_body_index(), self.body2.get_mobilized_body_index()
        return (R_GB[b1] @ self.center1 + p_GB[b1], R_GB[b2] @ self.center2 + p_GB[b2])

    def _separation(self, state, poses) -> float:
        c1, c2 = self._centers(poses)
        return float(np.linalg.norm(c2 - c1) - self.radius1 - self.radius2)

    def _terms(self, state, poses) -> list:
        R_GB, p_GB = poses
        c1, c2 = self._centers(poses)
        d = c2 - c1
        n = d / np.linalg.norm(d)
        touch = c1 + self.radius1 * n
        t1, t2 = tangents(n)
        zero = np.zeros(3)
        normal, slip = np.vstack([n, zero, zero]), np.vstack([zero, t1, t2])
        terms = []
        for body, centre, sign in ((self.body1, c1, -1.0), (self.body2, c2, 1.0)):
            k = body.get_mobilized_body_index()
            terms.append((k, R_GB[k].T @ (centre - p_GB[k]), sign * normal))
            terms.append((k, R_GB[k].T @ (touch - p_GB[k]), sign * slip))
        return terms
