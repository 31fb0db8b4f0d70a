"""Force.LinearBushing: a six-axis linear spring-damper between a frame F on one body and
a frame M on another."""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.kernels.small import (
    add3,
    cross3,
    mat_mul,
    rotate3,
    rotate3_transpose,
    sub3,
    vec3,
)
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["linear_bushing"]


def _frame(X, where: str, what: str) -> list[float]:
    if not isinstance(X, Transform):
        raise InvalidArgumentError(f"{where}: {what} must be a Transform, got {X!r}.")
    return [*X.R.as_matrix().ravel(), *X.p]


def _transform(row) -> Transform:
    """The Transform of a frame's 12 parameters (R by rows, then p)."""
    return Transform(Rotation(np.asarray(row[:9]).reshape(3, 3)), row[9:12])


def _six(values, where: str, what: str) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    if v.shape != (6,) or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise InvalidArgumentError(
            f"{where}: {what} must be six finite values >= 0 (rotations first), got "
            f"{values!r}.")
    return v


class LinearBushing(TableForce):
    """The bushing measures M relative to F as q = [body-fixed x-y-z angles of R_FM (rad);
    p_FM (m, in F)] and applies the generalized forces f = -(k∘q + c∘q̇) conjugate to q:
    a spatial force on body2 at M's origin, and its opposite on body1. Stiffness and
    damping are six values each (N m/rad then N/m; N m s/rad then N s/m). Potential
    energy ½ Σ k q². Like a Bushing mobilizer it is singular when the middle angle is ±90°.
    Frames, stiffness and damping may differ per State (``set_frame_on_body1``, ...,
    ``set_stiffness``, ``set_damping``; Instance-stage changes, as in Simbody).
    """

    CODE = CODE
    STAGE = Stage.VELOCITY

    def __init__(self, forces, body1, X_B1F, body2, X_B2M, stiffness, damping):
        where = "Force.LinearBushing"
        self._mobods = (body1, body2)
        self._body1 = body1.get_mobilized_body_index()
        self._body2 = body2.get_mobilized_body_index()
        super().__init__(forces, [*_frame(X_B1F, where, "X_B1F"), *_frame(X_B2M, where, "X_B2M"),
                                  *_six(stiffness, where, "stiffness"),
                                  *_six(damping, where, "damping")])

    def set_frame_on_body1(self, state, X_B1F) -> LinearBushing:
        self._set_params(state, 0, _frame(X_B1F, "Force.LinearBushing.set_frame_on_body1",
                                          "X_B1F"), Stage.INSTANCE)
        return self

    def set_frame_on_body2(self, state, X_B2M) -> LinearBushing:
        self._set_params(state, 12, _frame(X_B2M, "Force.LinearBushing.set_frame_on_body2",
                                           "X_B2M"), Stage.INSTANCE)
        return self

    def set_stiffness(self, state, stiffness) -> LinearBushing:
        self._set_params(state, 24, _six(stiffness, "Force.LinearBushing.set_stiffness",
                                         "stiffness"), Stage.INSTANCE)
        return self

    def set_damping(self, state, damping) -> LinearBushing:
        self._set_params(state, 30, _six(damping, "Force.LinearBushing.set_damping",
                                         "damping"), Stage.INSTANCE)
        return self

    def get_q(self, state) -> np.ndarray:
        """q = [x-y-z angles of R_FM (rad); p_FM (m, in F)] in ``state`` (POSITION)."""
        prm = self._params(state)
        X_GF = self._body_transform(state, self._body1) @ _transform(prm[0:12])
        X_GM = self._body_transform(state, self._body2) @ _transform(prm[12:24])
        X_FM = X_GF.invert() @ X_GM
        return np.concatenate([X_FM.R.convert_rotation_to_body_fixed_xyz(), X_FM.p])

    def _body_transform(self, state, b: int) -> Transform:
        matter = self._forces.get_system().get_matter_subsystem()
        return matter.get_mobilized_body(b).get_body_transform(state)

    def get_stiffness(self, state) -> np.ndarray:
        return self._params(state)[24:30].copy()

    def get_damping(self, state) -> np.ndarray:
        return self._params(state)[30:36].copy()


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [R_B1F (9, by rows), p_B1F (3), R_B2M (9), p_B2M (3), k (6), c (6)]."""
    b1, b2 = fi[1], fi[2]
    R_GF, R_GM = cache.T[:3, :3], cache.T[:3, 3:]       # the shared scratch
    mat_mul(cache.R_GB[b1], ff[0:9].reshape((3, 3)), R_GF)
    mat_mul(cache.R_GB[b2], ff[12:21].reshape((3, 3)), R_GM)
    o1, o2 = vec3(cache.p_GB[b1]), vec3(cache.p_GB[b2])
    p_GF = add3(o1, rotate3(cache.R_GB[b1], vec3(ff[9:12])))
    p_GM = add3(o2, rotate3(cache.R_GB[b2], vec3(ff[21:24])))
    # R_FM = R_GFᵀ R_GM and its body-fixed x-y-z angles: R_FM = Rx(a) Ry(b) Rz(c).
    r02 = r12 = r22 = r01 = r00 = 0.0
    for k in range(3):
        r02 += R_GF[k, 0] * R_GM[k, 2]
        r12 += R_GF[k, 1] * R_GM[k, 2]
        r22 += R_GF[k, 2] * R_GM[k, 2]
        r01 += R_GF[k, 0] * R_GM[k, 1]
        r00 += R_GF[k, 0] * R_GM[k, 0]
    a = math.atan2(-r12, r22)
    b = math.atan2(r02, math.sqrt(r00 * r00 + r01 * r01))
    c = math.atan2(-r01, r00)
    p = rotate3_transpose(R_GF, sub3(p_GM, p_GF))
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)

    V1, V2 = cache.V_GB[b1], cache.V_GB[b2]
    w_GF = vec3(V1[:3])
    v_GF = add3(vec3(V1[3:]), cross3(w_GF, sub3(p_GF, o1)))
    v_GM = add3(vec3(V2[3:]), cross3(vec3(V2[:3]), sub3(p_GM, o2)))
    # The angle rates from w_FM (in F) = Hᵣ (ȧ, ḃ, ċ), Hᵣ = [[1, 0, sb], [0, ca, -sa cb],
    # [0, sa, ca cb]], solved in closed form (det Hᵣ = cb).
    w = rotate3_transpose(R_GF, sub3(vec3(V2[:3]), w_GF))
    b_dot = ca * w[1] + sa * w[2]
    c_dot = (-sa * w[1] + ca * w[2]) / cb
    a_dot = w[0] - sb * c_dot
    p_dot = rotate3_transpose(R_GF, sub3(sub3(v_GM, v_GF), cross3(w_GF, sub3(p_GM, p_GF))))

    k, d = ff[24:30], ff[30:36]
    fa = -(k[0] * a + d[0] * a_dot)
    fb = -(k[1] * b + d[1] * b_dot)
    fc = -(k[2] * c + d[2] * c_dot)
    f_F = (-(k[3] * p[0] + d[3] * p_dot[0]), -(k[4] * p[1] + d[4] * p_dot[1]),
           -(k[5] * p[2] + d[5] * p_dot[2]))
    # The torque whose power through w_FM equals Σ f q̇ of the angles: Hᵣ⁻ᵀ f.
    x2 = (fc - sb * fa) / cb
    t_F = (fa, ca * fb - sa * x2, sa * fb + ca * x2)
    torque = rotate3(R_GF, t_F)
    force = rotate3(R_GF, f_F)
    F1, F2 = body_forces[b1], body_forces[b2]
    for i in range(3):
        F2[i] += torque[i]
        F1[i] -= torque[i]
    add_station_force(body_forces, b2, sub3(p_GM, o2), force)
    add_station_force(body_forces, b1, sub3(p_GM, o1), (-force[0], -force[1], -force[2]))
    return 0.5 * (k[0] * a * a + k[1] * b * b + k[2] * c * c + k[3] * p[0] * p[0]
                  + k[4] * p[1] * p[1] + k[5] * p[2] * p[2])
