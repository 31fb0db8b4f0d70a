"""Each mobilizer's local kinematics against calculus: H u is the rate of X_FM along
q̇ = N u, (dH/dt) u and (dN/dt) u are the rates of H u and N u, N⁻¹ inverts N, R_FM is a
rotation, and the default q is the identity transform."""

import importlib

import numpy as np
import pytest

from kinetree.multibody.tree_model import PARAM_SIZE

CASES = [("weld", False), ("pin", False), ("slider", False), ("universal", False),
         ("cylinder", False), ("screw", False), ("planar", False), ("gimbal", False),
         ("ball", False), ("ball", True), ("free", False), ("free", True),
         ("translation", False), ("bushing", False), ("bend_stretch", False),
         ("spherical_coords", False), ("line_orientation", False),
         ("line_orientation", True), ("free_line", False), ("free_line", True),
         ("ellipsoid", False), ("ellipsoid", True)]


def kinematics(mod, q, u, prm):
    R, p, H = np.zeros((3, 3)), np.zeros(3), np.zeros((6, 6))
    mod.x_fm(q, prm, R, p)
    mod.h_fm(q, prm, H)
    qd = np.zeros(q.size)
    mod.n_mult(q, u, prm, qd)
    return R, p, H[:, :mod.NU], qd


@pytest.mark.parametrize("name, euler", CASES, ids=[f"{n}{'-euler' if e else ''}"
                                                     for n, e in CASES])
def test_mobilizer_calculus(name, euler):
    mod = importlib.import_module(f"kinetree.multibody.mobilizers.{name}")
    nq = mod.NQ_EULER if euler else mod.NQ
    rng = np.random.default_rng(7)
    prm = np.zeros(PARAM_SIZE)
    prm[:3] = (0.13, 0.3, 0.2)                 # screw pitch; ellipsoid radii
    R0, p0, _, _ = kinematics(mod, np.array(getattr(mod, "DEFAULT_Q_EULER" if euler
                                                    else "DEFAULT_Q"), dtype=float),
                              np.zeros(mod.NU), prm)
    np.testing.assert_allclose(R0, np.eye(3), atol=1e-15)
    # at its default an ellipsoid puts M at the +z pole; everything else is the identity
    np.testing.assert_allclose(p0, [0, 0, 0.2] if name == "ellipsoid" else 0, atol=1e-15)
    for _ in range(3):
        q = rng.uniform(-1, 1, nq)
        if nq in (4, 7) and hasattr(mod, "NQ_EULER"):
            q[:4] *= 1.7 / np.linalg.norm(q[:4])      # not unit: kinematics normalize
        u, udot = rng.uniform(-1, 1, mod.NU), rng.uniform(-1, 1, mod.NU)
        R, p, H, qd = kinematics(mod, q, u, prm)
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-13)
        assert np.linalg.det(R) == pytest.approx(1.0)
        h = 1e-6
        Rp, pp, Hp, qdp = kinematics(mod, q + h * qd, u + h * udot, prm)
        Rm, pm, Hm, qdm = kinematics(mod, q - h * qd, u - h * udot, prm)
        W = (Rp - Rm) / (2 * h) @ R.T
        V = H @ u
        np.testing.assert_allclose([W[2, 1], W[0, 2], W[1, 0]], V[:3], atol=1e-8)
        np.testing.assert_allclose((pp - pm) / (2 * h), V[3:], atol=1e-8)
        hd = np.zeros(6)
        mod.hdot_u(q, u, prm, hd)
        dHu = ((Hp - Hm) / (2 * h)) @ u
        np.testing.assert_allclose(hd, dHu, atol=1e-7)
        qdd = np.zeros(nq)
        mod.ndot_u(q, u, prm, qdd)
        n_udot = np.zeros(nq)
        mod.n_mult(q, udot, prm, n_udot)
        np.testing.assert_allclose(qdd + n_udot, (qdp - qdm) / (2 * h), atol=1e-7)
        if nq:
            qu = q.copy()
            if nq in (4, 7) and hasattr(mod, "NQ_EULER"):
                qu[:4] /= np.linalg.norm(qu[:4])
            back = np.zeros(mod.NU)
            mod.n_inv_mult(qu, kinematics(mod, qu, u, prm)[3], prm, back)
            np.testing.assert_allclose(back, u, atol=1e-12)
