"""The tree sweeps agree with each other and with calculus, on random trees of every
built-in mobilizer: ABA's u̇ equals M⁻¹(f − c) from CRBA and RNEA; RNEA inverts ABA;
finite differences of positions give velocities and of velocities give accelerations;
½ uᵀ M u is the bodies' kinetic energy."""

import importlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial.transform import Rotation as SciRot

from kinetree.engine.kinds import Kinds
from kinetree.multibody.kernels.aba import (
    calc_articulated_body_inertias,
    calc_tree_accelerations,
)
from kinetree.multibody.kernels.crba import calc_mass_matrix
from kinetree.multibody.kernels.n_matrix import multiply_by_n
from kinetree.multibody.kernels.position import calc_position_kinematics
from kinetree.multibody.kernels.rnea import calc_residual_forces
from kinetree.multibody.kernels.velocity import calc_velocity_kinematics
from kinetree.multibody.tree_model import (
    PARAM_SIZE,
    TreeModel,
    allocate_cache,
    pack_tree,
    unpack_cache,
)

MOBILIZERS = ["pin", "slider", "universal", "cylinder", "screw", "planar", "gimbal",
              "ball", "free", "translation", "bushing", "weld", "bend_stretch",
              "spherical_coords", "line_orientation", "free_line", "ellipsoid"]


def _module(name):
    return importlib.import_module(f"kinetree.multibody.mobilizers.{name}")


def random_tree(rng, kinds, euler=False):
    """A random tree: body i hangs from a random earlier body, with random frames and
    mass properties. Returns (tree, q, u)."""
    nb = len(kinds) + 1
    parent, code, nq, nu, qs, us = [-1], [0], [0], [0], [0], [0]
    q, u = [], []
    for i, kind in enumerate(kinds, start=1):
        mod = _module(kind)
        parent.append(int(rng.integers(0, i)))
        code.append(mod.CODE)
        n_q = getattr(mod, "NQ_EULER", mod.NQ) if euler else mod.NQ
        qs.append(len(q))
        us.append(len(u))
        nq.append(n_q)
        nu.append(mod.NU)
        qi = rng.uniform(-1, 1, n_q)
        if n_q in (4, 7) and hasattr(mod, "NQ_EULER"):
            qi[:4] /= np.linalg.norm(qi[:4])
        q.extend(qi)
        u.extend(rng.uniform(-1, 1, mod.NU))

    def rotations(n):
        return SciRot.random(n, random_state=rng.integers(1 << 31)).as_matrix()

    mass = rng.uniform(0.5, 2.0, nb)
    com = rng.uniform(-0.3, 0.3, (nb, 3))
    inertia = np.empty((nb, 3, 3))
    for b in range(nb):
        moments = rng.uniform(0.05, 0.2, 3)
        R = rotations(1)[0]
        central = R @ np.diag(moments) @ R.T
        c = com[b]
        inertia[b] = central + mass[b] * (c @ c * np.eye(3) - np.outer(c, c))
    prm = np.zeros((nb, PARAM_SIZE))
    prm[:, :3] = rng.uniform(0.05, 0.2, (nb, 3))
    tree = TreeModel(
        parent=np.array(parent), code=np.array(code), q_start=np.array(qs),
        nq=np.array(nq), u_start=np.array(us), nu=np.array(nu),
        reversed=np.zeros(nb, dtype=np.int64), prm=prm,
        R_PF=rotations(nb), p_PF=rng.uniform(-1, 1, (nb, 3)),
        R_MB=rotations(nb), p_MB=rng.uniform(-1, 1, (nb, 3)),
        mass=mass, com_B=com, inertia_B=inertia, kinds=Kinds("mobilizers", code),
    )
    return tree, np.array(q), np.array(u)


def qdot_of(tree, q, u):
    out = np.zeros_like(q)
    multiply_by_n(*pack_tree(tree), tree.kinds, q, u, out)
    return out


class Realized:
    """The buffers of one realized tree and named views of its cache."""

    def __init__(self, tree, q, u):
        self.tree_i, self.tree_f = pack_tree(tree)
        self.kinds = tree.kinds
        self.buf, self.status = allocate_cache(
            len(tree.parent), int(np.sum(tree.nu)), int(np.sum(tree.nq)))
        self.cache = unpack_cache(self.buf, self.status)
        calc_position_kinematics(self.tree_i, self.tree_f, self.kinds, q, self.buf,
                                 self.status)
        self.qdot = np.zeros_like(q)
        calc_velocity_kinematics(self.tree_i, self.tree_f, self.kinds, q, u, self.buf,
                                 self.status, self.qdot)
        calc_articulated_body_inertias(self.tree_i, self.tree_f, self.kinds, self.buf,
                                       self.status)
        assert self.status[0] == 0

    def args(self):
        return self.tree_i, self.tree_f, self.kinds, self.buf, self.status


def realize(tree, q, u):
    return Realized(tree, q, u)


def forward(tree, r, f, F):
    udot = np.zeros(len(f))
    calc_tree_accelerations(*r.args(), True, f, F, udot)
    return udot, r.cache.A_GB.copy()


def residual(tree, r, udot, f, F, velocity_terms=True):
    out = np.zeros(len(udot))
    calc_residual_forces(*r.args(), velocity_terms, udot, f, F, out)
    return out


def mass_matrix(tree, r):
    n = int(tree.nu.sum())
    M = np.zeros((n, n))
    calc_mass_matrix(*r.args(), M)
    return M


CASES = [(seed, euler) for seed in range(4) for euler in (False, True)]


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), euler=st.booleans())
def test_aba_equals_mass_matrix_solve(seed, euler):
    rng = np.random.default_rng(seed)
    kinds = list(rng.permutation(MOBILIZERS)) + list(rng.choice(MOBILIZERS, 6))
    tree, q, u = random_tree(rng, kinds, euler)
    cache = realize(tree, q, u)
    f = rng.uniform(-1, 1, len(u))
    F = rng.uniform(-1, 1, (len(tree.parent), 6))
    udot, _ = forward(tree, cache, f, F)

    M = mass_matrix(tree, cache)
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    assert np.linalg.eigvalsh(M).min() > 0
    bias = residual(tree, cache, np.zeros(len(u)), f, F)      # c(q,u) - f - Jᵀ F
    np.testing.assert_allclose(udot, np.linalg.solve(M, -bias), rtol=1e-9, atol=1e-9)
    # inverse dynamics inverts forward dynamics
    np.testing.assert_allclose(residual(tree, cache, udot, f, F), 0.0, atol=1e-9)
    # M u̇ from RNEA with no velocity terms equals CRBA's M
    Mu = residual(tree, cache, udot, np.zeros(len(u)), cache.cache.zero, velocity_terms=False)
    np.testing.assert_allclose(Mu, M @ udot, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("seed, euler", CASES[:4])
def test_kinetic_energy_from_mass_matrix(seed, euler):
    rng = np.random.default_rng(10 + seed)
    tree, q, u = random_tree(rng, list(rng.choice(MOBILIZERS, 10)), euler)
    cache = realize(tree, q, u)
    ke = 0.0
    for b in range(1, len(tree.parent)):
        Mb = np.zeros((6, 6))
        c, m = cache.cache.com_G[b], tree.mass[b]
        cx = np.array([[0, -c[2], c[1]], [c[2], 0, -c[0]], [-c[1], c[0], 0]])
        Mb[:3, :3], Mb[3:, 3:] = cache.cache.I_G[b], m * np.eye(3)
        Mb[:3, 3:], Mb[3:, :3] = m * cx, -m * cx
        ke += 0.5 * cache.cache.V_GB[b] @ Mb @ cache.cache.V_GB[b]
    assert 0.5 * u @ mass_matrix(tree, cache) @ u == pytest.approx(ke, rel=1e-12)


@pytest.mark.parametrize("seed, euler", CASES[:4])
def test_finite_differences_of_kinematics(seed, euler):
    """q̇ = N u moves X_GB at V_GB, and (q̇, u̇) move V_GB at A_GB."""
    rng = np.random.default_rng(20 + seed)
    tree, q, u = random_tree(rng, list(rng.choice(MOBILIZERS, 8)), euler)
    cache = realize(tree, q, u)
    f = rng.uniform(-1, 1, len(u))
    F = rng.uniform(-1, 1, (len(tree.parent), 6))
    udot, A = forward(tree, cache, f, F)
    h = 1e-6

    qd = qdot_of(tree, q, u)
    np.testing.assert_array_equal(cache.qdot, qd)   # the velocity sweep's q̇ is N u

    def at(t):
        ut = u + t * udot
        # second-order accurate path: q(t) = q + t q̇ + t²/2 q̈ is not needed for central
        # differences of first derivatives
        return realize(tree, q + t * qd, ut)

    plus, minus = at(h), at(-h)
    for b in range(1, len(tree.parent)):
        now, p, m = cache.cache, plus.cache, minus.cache
        dR = (p.R_GB[b] - m.R_GB[b]) / (2 * h)
        W = dR @ now.R_GB[b].T
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        np.testing.assert_allclose(w, now.V_GB[b, :3], atol=1e-6)
        dp = (p.p_GB[b] - m.p_GB[b]) / (2 * h)
        np.testing.assert_allclose(dp, now.V_GB[b, 3:], atol=1e-6)
        dV = (p.V_GB[b] - m.V_GB[b]) / (2 * h)
        np.testing.assert_allclose(dV, A[b], atol=1e-5)
