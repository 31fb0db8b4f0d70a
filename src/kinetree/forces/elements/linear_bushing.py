"""Force.LinearBushing: a six-axis linear spring-damper between a frame F on one body and
a frame M on another."""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._stations import add_station_force
from kinetree.forces.elements._table import TableForce, Z
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


_WHERE = "Force.LinearBushing"


def _body_xyz_rate_matrix(angles) -> np.ndarray:
    """Hᵣ with w_FM (in F) = Hᵣ (ȧ, ḃ, ċ) for R_FM = Rx(a) Ry(b) Rz(c) (det Hᵣ = cos b)."""
    a, b = angles[0], angles[1]
    ca, sa, cb, sb = math.cos(a), math.sin(a), math.cos(b), math.sin(b)
    return np.array([[1.0, 0.0, sb], [0.0, ca, -sa * cb], [0.0, sa, ca * cb]])


def _body_xyz(R) -> list[float]:
    """[a, b, c] (rad) with R = Rx(a) Ry(b) Rz(c), by the kernel's formulas (``calc``)."""
    return [math.atan2(-R[1, 2], R[2, 2]), math.atan2(R[0, 2], math.hypot(R[0, 0], R[0, 1])),
            math.atan2(-R[0, 1], R[0, 0])]


class LinearBushing(TableForce):
    """The bushing measures M relative to F as q = [body-fixed x-y-z angles of R_FM (rad);
    p_FM (m, in F)] and applies the generalized forces f = -(k∘q + c∘q̇) conjugate to q:
    a spatial force on body2 at M's origin, and its opposite on body1. Stiffness and
    damping are six values each (N m/rad then N/m; N m s/rad then N s/m). Potential
    energy ½ Σ k q²; the damping dissipates power Σ c q̇², whose time integral, the
    dissipated energy (J), is a continuous state variable z of the element, as in Simbody
    (``get_dissipated_energy``). Like a Bushing mobilizer it is singular when the middle
    angle is ±90°. Frames, stiffness and damping may differ per State
    (``set_frame_on_body1``, ..., ``set_stiffness``, ``set_damping``; Instance-stage
    changes, as in Simbody); the defaults new States start from are ``set_default_...``
    (topological changes).

    ``LinearBushing(forces, body1, X_B1F, body2, X_B2M, stiffness, damping)``, or
    ``LinearBushing(forces, body1, body2, stiffness, damping)`` with F and M the body frames.
    """

    CODE = CODE
    STAGE = Stage.VELOCITY
    Z_SIZE = 1

    def __init__(self, forces, body1, *args):
        if len(args) == 3:
            body2, stiffness, damping = args
            X_B1F = X_B2M = Transform()
        elif len(args) == 5:
            X_B1F, body2, X_B2M, stiffness, damping = args
        else:
            raise InvalidArgumentError(
                f"{_WHERE}: call it as (forces, body1, X_B1F, body2, X_B2M, stiffness, "
                f"damping) or (forces, body1, body2, stiffness, damping).")
        self._mobods = (body1, body2)
        self._body1 = body1.get_mobilized_body_index()
        self._body2 = body2.get_mobilized_body_index()
        super().__init__(forces, [*_frame(X_B1F, _WHERE, "X_B1F"),
                                  *_frame(X_B2M, _WHERE, "X_B2M"),
                                  *_six(stiffness, _WHERE, "stiffness"),
                                  *_six(damping, _WHERE, "damping")])

    # ------------------------------------------------------------ defaults
    def _set_default(self, first: int, values) -> LinearBushing:
        self._defaults[first:first + len(values)] = values
        self._forces.invalidate_subsystem_topology_cache()
        return self

    def set_default_frame_on_body1(self, X_B1F) -> LinearBushing:
        """The frame F on body 1 new States start from, X_B1F (m, in B1); a topological
        change. Returns this bushing, for chaining."""
        return self._set_default(0, _frame(X_B1F, f"{_WHERE}.set_default_frame_on_body1",
                                           "X_B1F"))

    def set_default_frame_on_body2(self, X_B2M) -> LinearBushing:
        """The frame M on body 2 new States start from, X_B2M (m, in B2); a topological
        change."""
        return self._set_default(12, _frame(X_B2M, f"{_WHERE}.set_default_frame_on_body2",
                                            "X_B2M"))

    def set_default_stiffness(self, stiffness) -> LinearBushing:
        """The six stiffnesses new States start from (>= 0; N m/rad for qx, qy, qz, then
        N/m for px, py, pz); a topological change."""
        return self._set_default(24, _six(stiffness, f"{_WHERE}.set_default_stiffness",
                                          "stiffness"))

    def set_default_damping(self, damping) -> LinearBushing:
        """The six damping coefficients new States start from (>= 0; N m s/rad, then
        N s/m); a topological change."""
        return self._set_default(30, _six(damping, f"{_WHERE}.set_default_damping",
                                          "damping"))

    def get_default_frame_on_body1(self) -> Transform:
        """X_B1F: the default frame F on body 1 (m, in B1)."""
        return _transform(self._defaults[0:12])

    def get_default_frame_on_body2(self) -> Transform:
        """X_B2M: the default frame M on body 2 (m, in B2)."""
        return _transform(self._defaults[12:24])

    def get_default_stiffness(self) -> np.ndarray:
        """The six default stiffnesses (N m/rad, then N/m)."""
        return self._defaults[24:30].copy()

    def get_default_damping(self) -> np.ndarray:
        """The six default damping coefficients (N m s/rad, then N s/m)."""
        return self._defaults[30:36].copy()

    # ---------------------------------------------------- instance parameters
    def set_frame_on_body1(self, state, X_B1F) -> LinearBushing:
        """X_B1F (m, in B1) in ``state``: an Instance-stage change. Returns this bushing."""
        self._set_params(state, 0, _frame(X_B1F, f"{_WHERE}.set_frame_on_body1", "X_B1F"),
                         Stage.INSTANCE)
        return self

    def set_frame_on_body2(self, state, X_B2M) -> LinearBushing:
        """X_B2M (m, in B2) in ``state``: an Instance-stage change."""
        self._set_params(state, 12, _frame(X_B2M, f"{_WHERE}.set_frame_on_body2", "X_B2M"),
                         Stage.INSTANCE)
        return self

    def set_stiffness(self, state, stiffness) -> LinearBushing:
        """The six stiffnesses (>= 0) in ``state``: an Instance-stage change."""
        self._set_params(state, 24, _six(stiffness, f"{_WHERE}.set_stiffness", "stiffness"),
                         Stage.INSTANCE)
        return self

    def set_damping(self, state, damping) -> LinearBushing:
        """The six damping coefficients (>= 0) in ``state``: an Instance-stage change."""
        self._set_params(state, 30, _six(damping, f"{_WHERE}.set_damping", "damping"),
                         Stage.INSTANCE)
        return self

    def get_frame_on_body1(self, state) -> Transform:
        """X_B1F in ``state`` (m, in B1)."""
        return _transform(self._params(state)[0:12])

    def get_frame_on_body2(self, state) -> Transform:
        """X_B2M in ``state`` (m, in B2)."""
        return _transform(self._params(state)[12:24])

    def get_stiffness(self, state) -> np.ndarray:
        """The six stiffnesses in ``state`` (N m/rad, then N/m)."""
        return self._params(state)[24:30].copy()

    def get_damping(self, state) -> np.ndarray:
        """The six damping coefficients in ``state`` (N m s/rad, then N s/m)."""
        return self._params(state)[30:36].copy()

    # ------------------------------------------------------------ kinematics
    def _tree(self, state, stage: Stage, method: str):
        matter = self._forces.get_system().get_matter_subsystem()
        return matter.get_tree_data(state, stage, f"{_WHERE}.{method}")

    def _positions(self, state, method: str) -> tuple:
        """(R_GF, p_GF, R_GM, p_GM, R_FM, p_FM, q, p_B1F_G, p_B2M_G) as arrays (POSITION)."""
        c = self._tree(state, Stage.POSITION, method).cache
        prm = self._params(state)
        b1, b2 = self._body1, self._body2
        R_GF = c.R_GB[b1] @ prm[0:9].reshape(3, 3)
        R_GM = c.R_GB[b2] @ prm[12:21].reshape(3, 3)
        p_B1F_G = c.R_GB[b1] @ prm[9:12]
        p_B2M_G = c.R_GB[b2] @ prm[21:24]
        p_GF, p_GM = c.p_GB[b1] + p_B1F_G, c.p_GB[b2] + p_B2M_G
        R_FM, p_FM = R_GF.T @ R_GM, R_GF.T @ (p_GM - p_GF)
        angles = _body_xyz(R_FM)
        return (R_GF, p_GF, R_GM, p_GM, R_FM, p_FM, np.concatenate([angles, p_FM]),
                p_B1F_G, p_B2M_G)

    def _velocities(self, state, method: str) -> tuple:
        """(V_GF, V_GM, V_FM, q̇) as arrays (VELOCITY), with the positions."""
        pos = self._positions(state, method)
        R_GF, p_GF, _, p_GM, _, _, q, p_B1F_G, p_B2M_G = pos
        c = self._tree(state, Stage.VELOCITY, method).cache
        V1, V2 = c.V_GB[self._body1], c.V_GB[self._body2]
        V_GF = np.concatenate([V1[:3], V1[3:] + np.cross(V1[:3], p_B1F_G)])
        V_GM = np.concatenate([V2[:3], V2[3:] + np.cross(V2[:3], p_B2M_G)])
        # M's velocity in F, the derivative taken in F: F's own turning removed.
        w_FM = R_GF.T @ (V_GM[:3] - V_GF[:3])
        v_FM = R_GF.T @ (V_GM[3:] - V_GF[3:] - np.cross(V_GF[:3], p_GM - p_GF))
        qdot = np.concatenate([np.linalg.solve(_body_xyz_rate_matrix(q), w_FM), v_FM])
        return V_GF, V_GM, np.concatenate([w_FM, v_FM]), qdot, pos

    def _forces_now(self, state, method: str) -> tuple:
        """(f, F_GM, F_GF, power) (VELOCITY): the generalized forces on body 2, the
        spatial forces on body 2 at M and on body 1 at F (in G), the dissipated power."""
        _, _, _, qdot, pos = self._velocities(state, method)
        R_GF, p_GF, _, p_GM, _, _, q, _, _ = pos
        prm = self._params(state)
        k, c = prm[24:30], prm[30:36]
        f = -(k * q + c * qdot)
        # The moment whose power through w_FM equals the angles' Σ f q̇: Hᵣ⁻ᵀ f.
        m_G = R_GF @ np.linalg.solve(_body_xyz_rate_matrix(q).T, f[:3])
        f_G = R_GF @ f[3:]
        F_GM = np.concatenate([m_G, f_G])
        F_GF = np.concatenate([-(m_G + np.cross(p_GM - p_GF, f_G)), -f_G])
        return f, F_GM, F_GF, float(c @ (qdot * qdot))

    def get_q(self, state) -> np.ndarray:
        """q = [body-fixed x-y-z angles of R_FM (rad); p_FM (m, in F)] (POSITION)."""
        return self._positions(state, "get_q")[6]

    def get_x_gf(self, state) -> Transform:
        """X_GF: body 1's frame F in Ground (POSITION)."""
        R_GF, p_GF = self._positions(state, "get_x_gf")[:2]
        return Transform(Rotation._trusted(R_GF), p_GF)

    def get_x_gm(self, state) -> Transform:
        """X_GM: body 2's frame M in Ground (POSITION)."""
        R_GM, p_GM = self._positions(state, "get_x_gm")[2:4]
        return Transform(Rotation._trusted(R_GM), p_GM)

    def get_x_fm(self, state) -> Transform:
        """X_FM: frame M in frame F (POSITION)."""
        R_FM, p_FM = self._positions(state, "get_x_fm")[4:6]
        return Transform(Rotation._trusted(R_FM), p_FM)

    def get_q_dot(self, state) -> np.ndarray:
        """q̇ = [angle rates (rad/s); v_FM (m/s, p_FM's derivative taken in F, in F)]
        (VELOCITY)."""
        return self._velocities(state, "get_q_dot")[3]

    def get_v_gf(self, state) -> np.ndarray:
        """V_GF = [w; v] (rad/s, m/s, in G): frame F's spatial velocity in Ground, at F's
        origin (VELOCITY)."""
        return self._velocities(state, "get_v_gf")[0]

    def get_v_gm(self, state) -> np.ndarray:
        """V_GM (in G): frame M's spatial velocity in Ground, at M's origin (VELOCITY)."""
        return self._velocities(state, "get_v_gm")[1]

    def get_v_fm(self, state) -> np.ndarray:
        """V_FM (in F): M's spatial velocity in F, the derivative of X_FM taken in F, so
        unaffected by F's own motion in Ground (VELOCITY)."""
        return self._velocities(state, "get_v_fm")[2]

    # ---------------------------------------------------------------- forces
    def get_f(self, state) -> np.ndarray:
        """The six generalized forces -(k∘q + c∘q̇) (N m, then N) on body 2, as a Bushing
        mobilizer between F and M would take them; their negatives act on body 1
        (VELOCITY)."""
        return self._forces_now(state, "get_f")[0]

    def get_f_gm(self, state) -> np.ndarray:
        """[moment; force] (N m, N, in G) this bushing applies to body 2 at M's origin
        (VELOCITY)."""
        return self._forces_now(state, "get_f_gm")[1]

    def get_f_gf(self, state) -> np.ndarray:
        """[moment; force] (N m, N, in G) this bushing applies to body 1 at F's origin,
        equal and opposite to ``get_f_gm`` (VELOCITY)."""
        return self._forces_now(state, "get_f_gf")[2]

    # ------------------------------------------------- energy, power and work
    def get_potential_energy(self, state) -> float:
        """½ Σ k q² (J) (POSITION)."""
        q = self._positions(state, "get_potential_energy")[6]
        return 0.5 * float(self._params(state)[24:30] @ (q * q))

    def get_power_dissipation(self, state) -> float:
        """The power the damping dissipates, Σ c q̇² (W >= 0) (VELOCITY)."""
        return self._forces_now(state, "get_power_dissipation")[3]

    def get_dissipated_energy(self, state) -> float:
        """The energy (J) dissipated since the variable was last set: the time integral of
        ``get_power_dissipation``, a continuous state variable z of the element. The
        system's energy plus the dissipated energies of its bushings is conserved when
        the other forces are conservative."""
        return float(self._forces.get_z(state)[self._z_index()])

    def set_dissipated_energy(self, state, energy) -> None:
        """Restart the dissipated energy at ``energy`` (J, >= 0; usually 0)."""
        where = f"{_WHERE}.set_dissipated_energy"
        try:
            e = float(energy)
        except (TypeError, ValueError):
            raise InvalidArgumentError(f"{where}: expected a number (J), got {energy!r}.") \
                from None
        if not e >= 0.0 or not math.isfinite(e):
            raise InvalidArgumentError(
                f"{where}: the dissipated energy must be finite and >= 0, got {energy!r}.")
        self._forces.upd_z(state)[self._z_index()] = e

    def _z_index(self) -> int:
        """Where the dissipated energy is in the force subsystem's z."""
        return int(self._forces._force_i[self._index, Z])


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [R_B1F (9, by rows), p_B1F (3), R_B2M (9), p_B2M (3), k (6), c (6)]; the
    power the damping dissipates is the derivative of the element's z."""
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
    # The dissipated energy's rate: the power of the damping, Σ c q̇² (W).
    cache.force_zdot[fi[Z]] = (d[0] * a_dot * a_dot + d[1] * b_dot * b_dot
                               + d[2] * c_dot * c_dot + d[3] * p_dot[0] * p_dot[0]
                               + d[4] * p_dot[1] * p_dot[1] + d[5] * p_dot[2] * p_dot[2])
    return 0.5 * (k[0] * a * a + k[1] * b * b + k[2] * c * c + k[3] * p[0] * p[0]
                  + k[4] * p[1] * p[1] + k[5] * p[2] * p[2])
