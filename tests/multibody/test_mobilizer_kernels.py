"""Each mobilizer's compiled kernels against calculus and against Simbody's conventions.

For random q, u, u̇ (q not normalized; quaternion blocks deliberately not unit): R_FM is a
rotation; H u is the rate of X_FM along q̇ = N u; (dH/dt) u and (dN/dt) u + N u̇ are the
rates of H u and N u; N⁻¹ inverts N; the default q is the identity transform; and X_FM
follows the axis and coordinate conventions stated in each module's docstring.
"""

import importlib

import numpy as np
import pytest

from kinetree.math.rotation import Rotation
from kinetree.multibody.tree_model import PARAM_SIZE

# (module, Euler-angle mode)
CASES = [("weld", False), ("pin", False), ("slider", False), ("universal", False),
         ("cylinder", False), ("screw", False), ("planar", False), ("gimbal", False),
         ("ball", False), ("ball", True), ("free", False), ("free", True),
         ("translation", False), ("bushing", False), ("bend_stretch", False),
         ("spherical_coords", False), ("line_orientation", False),
         ("line_orientation", True), ("free_line", False), ("free_line", True),
         ("ellipsoid", False), ("ellipsoid", True)]
IDS = [f"{n}-euler" if e else n for n, e in CASES]
CASE = pytest.mark.parametrize("name, euler", CASES, ids=IDS)

PITCH = 0.13                         # prm[0]: Screw's pitch; prm[0:3]: Ellipsoid's radii
H_STEP = 1e-6
N_DRAWS = 3


def _module(name):
    return importlib.import_module(f"kinetree.multibody.mobilizers.{name}")


def _prm():
    prm = np.zeros(PARAM_SIZE)
    prm[:3] = (PITCH, 0.3, 0.2)
    return prm


def _has_quaternion(mod, euler):
    """Whether q starts with a quaternion block (the orientation mobilizers' default mode)."""
    return hasattr(mod, "NQ_EULER") and not euler


def _nq(mod, euler):
    return mod.NQ_EULER if euler else mod.NQ


def _default_q(mod, euler):
    return np.array(mod.DEFAULT_Q_EULER if euler else mod.DEFAULT_Q, dtype=float)


def _draws(mod, euler, unit=False):
    """Seeded random (q, u, u̇); a quaternion block gets norm 1.7 (or 1 when ``unit``)."""
    rng = np.random.default_rng(20240611)
    nq = _nq(mod, euler)
    for _ in range(N_DRAWS):
        q = rng.uniform(-1.0, 1.0, nq)
        if _has_quaternion(mod, euler):
            q[:4] *= (1.0 if unit else 1.7) / np.linalg.norm(q[:4])
        yield q, rng.uniform(-1.0, 1.0, mod.NU), rng.uniform(-1.0, 1.0, mod.NU)


def _x(mod, q, prm):
    R, p = np.zeros((3, 3)), np.zeros(3)
    mod.x_fm(q, prm, R, p)
    return R, p


def _h(mod, q, prm):
    H = np.zeros((6, 6))
    mod.h_fm(q, prm, H)
    return H[:, :mod.NU]


def _n(mod, q, v, prm):
    out = np.zeros(q.size)
    mod.n_mult(q, v, prm, out)
    return out


def _unskew(W):
    return np.array([W[2, 1] - W[1, 2], W[0, 2] - W[2, 0], W[1, 0] - W[0, 1]]) / 2.0


@CASE
def test_rotation_is_proper_orthonormal(name, euler):
    mod, prm = _module(name), _prm()
    for q, _, _ in _draws(mod, euler):
        R, _ = _x(mod, q, prm)
        np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-13)
        assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-13)
        if _has_quaternion(mod, euler):         # the quaternion's norm does not matter
            qu = q.copy()
            qu[:4] /= np.linalg.norm(qu[:4])
            np.testing.assert_allclose(_x(mod, qu, prm)[0], R, atol=1e-14)


@CASE
def test_velocity_is_rate_of_transform(name, euler):
    """V_FM = H u equals the central difference of X_FM along q̇ = N u."""
    mod, prm, h = _module(name), _prm(), H_STEP
    for q, u, _ in _draws(mod, euler):
        R, _ = _x(mod, q, prm)
        qd = _n(mod, q, u, prm)
        Rp, pp = _x(mod, q + h * qd, prm)
        Rm, pm = _x(mod, q - h * qd, prm)
        V = _h(mod, q, prm) @ u
        np.testing.assert_allclose(_unskew((Rp - Rm) / (2 * h) @ R.T), V[:3], atol=1e-8)
        np.testing.assert_allclose((pp - pm) / (2 * h), V[3:], atol=1e-8)


@CASE
def test_hdot_u_is_rate_of_h_u(name, euler):
    mod, prm, h = _module(name), _prm(), H_STEP
    for q, u, _ in _draws(mod, euler):
        qd = _n(mod, q, u, prm)
        out = np.full(6, np.nan)
        mod.hdot_u(q, u, prm, out)
        fd = (_h(mod, q + h * qd, prm) - _h(mod, q - h * qd, prm)) @ u / (2 * h)
        np.testing.assert_allclose(out, fd, atol=1e-8)


@CASE
def test_qddot_is_rate_of_n_u(name, euler):
    """q̈ = N u̇ + (dN/dt) u equals the rate of N(q(t)) u(t), u(t) = u + t u̇."""
    mod, prm, h = _module(name), _prm(), H_STEP
    for q, u, ud in _draws(mod, euler):
        qd = _n(mod, q, u, prm)
        ndot = np.full(q.size, np.nan)
        mod.ndot_u(q, u, prm, ndot)
        qdd = _n(mod, q, ud, prm) + ndot
        fd = (_n(mod, q + h * qd, u + h * ud, prm) - _n(mod, q - h * qd, u - h * ud, prm))
        np.testing.assert_allclose(qdd, fd / (2 * h), atol=1e-8)


@CASE
def test_n_inverse_inverts_n(name, euler):
    mod, prm = _module(name), _prm()
    for q, u, _ in _draws(mod, euler, unit=True):
        qd = _n(mod, q, u, prm)
        if _has_quaternion(mod, euler):         # q̇ keeps |q| fixed
            assert abs(q[:4] @ qd[:4]) < 1e-14
        back = np.full(mod.NU, np.nan)
        mod.n_inv_mult(q, qd, prm, back)
        np.testing.assert_allclose(back, u, atol=1e-12)


@CASE
def test_default_q_is_identity(name, euler):
    mod, prm = _module(name), _prm()
    q0 = _default_q(mod, euler)
    assert q0.size == _nq(mod, euler)
    R, p = _x(mod, q0, prm)
    np.testing.assert_allclose(R, np.eye(3), atol=1e-15)
    # at its default an Ellipsoid puts M at the +z pole (radius prm[2]); all else at F
    np.testing.assert_allclose(p, [0.0, 0.0, 0.2] if name == "ellipsoid" else 0.0,
                               atol=1e-15)


def test_type_codes_are_distinct():
    mods = {_module(n) for n, _ in CASES}
    assert len({m.CODE for m in mods}) == len(mods)


def _rx(a):
    return Rotation.about_x(a).as_matrix()


def _ry(a):
    return Rotation.about_y(a).as_matrix()


def _rz(a):
    return Rotation.about_z(a).as_matrix()


def _xyz(a):
    return Rotation.from_body_fixed_xyz(a).as_matrix()


def _quat(q):
    return Rotation.from_quaternion(q).as_matrix()


# Simbody's X_FM of each mobilizer, built from the Python Rotation class: (R_FM, p_FM)
EXPECTED = {
    ("weld", False): lambda q: (np.eye(3), np.zeros(3)),
    ("pin", False): lambda q: (_rz(q[0]), np.zeros(3)),
    ("slider", False): lambda q: (np.eye(3), np.array([q[0], 0.0, 0.0])),
    ("universal", False): lambda q: (_rx(q[0]) @ _ry(q[1]), np.zeros(3)),
    ("cylinder", False): lambda q: (_rz(q[0]), np.array([0.0, 0.0, q[1]])),
    ("screw", False): lambda q: (_rz(q[0]), np.array([0.0, 0.0, PITCH * q[0]])),
    ("planar", False): lambda q: (_rz(q[0]), np.array([q[1], q[2], 0.0])),
    ("gimbal", False): lambda q: (_xyz(q), np.zeros(3)),
    ("ball", False): lambda q: (_quat(q), np.zeros(3)),
    ("ball", True): lambda q: (_xyz(q), np.zeros(3)),
    ("free", False): lambda q: (_quat(q[:4]), q[4:]),
    ("free", True): lambda q: (_xyz(q[:3]), q[3:]),
    ("translation", False): lambda q: (np.eye(3), q),
    ("bushing", False): lambda q: (_xyz(q[:3]), q[3:]),
}


@pytest.mark.parametrize("name, euler", list(EXPECTED),
                         ids=[f"{n}-euler" if e else n for n, e in EXPECTED])
def test_transform_follows_simbody_convention(name, euler):
    mod, prm = _module(name), _prm()
    for q, _, _ in _draws(mod, euler):
        R_exp, p_exp = EXPECTED[(name, euler)](q)
        R, p = _x(mod, q, prm)
        np.testing.assert_allclose(R, R_exp, atol=1e-14)
        np.testing.assert_allclose(p, p_exp, atol=1e-15)


def test_speeds_of_orientation_mobilizers():
    """Ball's and Free's rotational u is w_FM in F in both modes; Gimbal's and Bushing's
    are the x-y-z angle rates, whose w_FM is x q̇0 + Rx(q0) y q̇1 + Rx(q0) Ry(q1) z q̇2."""
    prm = _prm()
    q = np.array([0.3, -0.7, 1.1])
    u = np.array([0.2, -0.5, 0.9])
    w_gimbal = (np.array([1.0, 0, 0]) * u[0] + _rx(q[0])[:, 1] * u[1]
                + (_rx(q[0]) @ _ry(q[1]))[:, 2] * u[2])
    np.testing.assert_allclose(_h(_module("gimbal"), q, prm) @ u, np.r_[w_gimbal, 0, 0, 0],
                               atol=1e-15)
    qb = np.r_[q, 0.4, 0.5, 0.6]
    ub = np.r_[u, -1.0, 2.0, 3.0]
    np.testing.assert_allclose(_h(_module("bushing"), qb, prm) @ ub, np.r_[w_gimbal, ub[3:]],
                               atol=1e-15)
    for name, qq in (("ball", q), ("free", np.r_[q, 1.0, 2.0, 3.0])):
        mod = _module(name)
        uu = np.r_[u, -1.0, 2.0, 3.0][:mod.NU]
        np.testing.assert_allclose(_h(mod, qq, prm) @ uu, np.r_[uu, np.zeros(6 - mod.NU)])
