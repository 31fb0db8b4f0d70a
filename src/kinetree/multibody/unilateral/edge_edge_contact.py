"""EdgeEdgeContact: an edge of one body kept from passing through a crossing edge of another,
with Coulomb friction where they touch (Simbody's EdgeEdgeContact, on its line-on-line
contact geometry)."""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import UnilateralContact


def _edge(X, half_length, where: str):
    from kinetree.math import Transform

    if not isinstance(X, Transform):
        raise InvalidArgumentError(f"{where}: an edge frame must be a Transform (the edge's "
                                   f"centre, its direction along x, its outward direction "
                                   f"along z), got {type(X).__name__}.")
    half_length = float(half_length)
    if not (math.isfinite(half_length) and half_length > 0.0):
        raise InvalidArgumentError(f"{where}: an edge's half length must be > 0 (m), got "
                                   f"{half_length!r}.")
    M = X.to_mat44()
    return M[:3, 3].copy(), M[:3, 0].copy(), M[:3, 2].copy(), half_length


class EdgeEdgeContact(UnilateralContact):
    """``EdgeEdgeContact(mobod_F, X_FEf, half_length_F, mobod_B, X_BEb, half_length_B,
    min_cor, mu_s, mu_d, mu_v)``: edge Ef of body F (centre at X_FEf's origin, along its x
    axis, its solid's outward direction its z axis) and edge Eb of body B stay on either
    side of each other where they cross. The normal n is along df × db, pointing out of F
    and into B; the separation is the distance between the two edges' lines along n. The
    edges are in contact only where each line's nearest point lies within the other's
    half length of its centre, and they are not parallel; the friction rows are along df
    and n × df at the point midway between the nearest points."""

    FRICTION_ROWS = 2

    def __init__(self, mobod_F, X_FEf, half_length_F, mobod_B, X_BEb, half_length_B,
                 min_cor, mu_s=0.0, mu_d=0.0, mu_v=0.0):
        super().__init__(min_cor, mu_s, mu_d, mu_v)
        self.mobod_F, self.mobod_B = mobod_F, mobod_B
        self.edge_F = _edge(X_FEf, half_length_F, "EdgeEdgeContact")
        self.edge_B = _edge(X_BEb, half_length_B, "EdgeEdgeContact")

    def _geometry(self, poses):
        """(separation (m), contact point Co, its frame rows n, df, n × df, all in G), or
        None where the edges do not cross within their lengths."""
        R_GB, p_GB = poses
        ends = []
        for mobod, (p, d, s, half) in ((self.mobod_F, self.edge_F),
                                       (self.mobod_B, self.edge_B)):
            k = mobod.get_mobilized_body_index()
            ends.append((R_GB[k] @ p + p_GB[k], R_GB[k] @ d, R_GB[k] @ s, half))
        (pf, df, sf, hf), (pb, db, sb, hb) = ends
        w = np.cross(df, db)
        # the clearer of the two outward directions sets the sense: out of F, into B
        wsf, wsb = w @ sf, w @ sb
        sense = (1.0 if wsf >= 0.0 else -1.0) if abs(wsf) > abs(wsb) \
            else (-1.0 if wsb >= 0.0 else 1.0)
        size = np.linalg.norm(w)
        if size < 1e-12:
            return None                                  # parallel: no crossing point
        n = sense * w / size
        p = pb - pf
        pxn = np.cross(p, n)
        tf, tb = -sense / size * (db @ pxn), -sense / size * (df @ pxn)
        if abs(tf) > hf or abs(tb) > hb:
            return None
        point = 0.5 * (pf + tf * df + pb + tb * db)
        return float(p @ n), point, np.vstack([n, df, np.cross(n, df)])

    def _separation(self, state, poses) -> float:
        found = self._geometry(poses)
        return math.inf if found is None else found[0]

    def _terms(self, state, poses) -> list:
        R_GB, p_GB = poses
        _, point, rows = self._geometry(poses)
        terms = []
        for mobod, sign in ((self.mobod_F, -1.0), (self.mobod_B, 1.0)):
            k = mobod.get_mobilized_body_index()
            terms.append((k, R_GB[k].T @ (point - p_GB[k]), sign * rows))
        return terms
