"""A fuzz of badly scaled trees: random trees of every built-in mobilizer whose bodies'
masses span 1e-6..1e6 kg and whose lengths span 1e-4..1e3 m. Every tree whose mass
matrix has cond(M) < 1e12 must be solved (the singularity test may refuse only worse),
and the articulated-body u̇ must have a backward error of at most 1e-10: the residual
M u̇ + c - f of inverse dynamics, relative to |M| |u̇| + |c - f|."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tree_kernels import MOBILIZERS, Realized, forward, mass_matrix, random_tree, residual

from kinetree.multibody.kernels.aba import calc_articulated_body_inertias
from kinetree.multibody.kernels.acceleration import calc_body_accelerations
from kinetree.multibody.kernels.position import calc_position_kinematics
from kinetree.multibody.kernels.velocity import calc_velocity_kinematics
from kinetree.multibody.tree_model import allocate_cache, pack_tree, unpack_cache

MASS_DECADES = 6
"""Masses 1e-6..1e6 kg. At such ratios a light body carrying a heavy one (1e-6 kg under
3e5 kg, seed 1152381) has an articulated inertia D so ill-conditioned that the
articulated-body method loses its parent's inertia in round-off; the inertia sweep then
solves the tree through its mass matrix (``kernels/dense.py``)."""


def scaled_tree(rng, kinds):
    """random_tree with each body's mass scaled by 10^±MASS_DECADES and each body's
    lengths (its frames, mass centre, inertia radius, mobilizer parameters) by
    10^[-4, 3]."""
    tree, q, u = random_tree(rng, kinds)
    nb = len(tree.parent)
    mass_scale = 10.0 ** rng.uniform(-MASS_DECADES, MASS_DECADES, nb)
    length = 10.0 ** rng.uniform(-4, 3, nb)
    scaled = tree._replace(
        mass=tree.mass * mass_scale,
        com_B=tree.com_B * length[:, None],
        inertia_B=tree.inertia_B * (mass_scale * length**2)[:, None, None],
        p_PF=tree.p_PF * length[tree.parent.clip(0)][:, None],
        p_MB=tree.p_MB * length[:, None],
        prm=tree.prm * length[:, None])
    return scaled, q, u


def realize_unchecked(tree, q, u):
    """The tree's buffers realized through its articulated inertias; the status says
    whether the singularity test refused it."""
    r = Realized.__new__(Realized)
    r.tree_i, r.tree_f = pack_tree(tree)
    r.kinds = tree.kinds
    r.buf, r.status = allocate_cache(
            len(tree.parent), int(np.sum(tree.nu)), int(np.sum(tree.nq)))
    r.cache = unpack_cache(r.buf, r.status)
    calc_position_kinematics(r.tree_i, r.tree_f, r.kinds, q, r.buf, r.status)
    r.qdot = np.zeros_like(q)
    calc_velocity_kinematics(r.tree_i, r.tree_f, r.kinds, q, u, r.buf, r.status, r.qdot)
    calc_articulated_body_inertias(r.tree_i, r.tree_f, r.kinds, r.buf, r.status)
    return r


@settings(max_examples=200, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**32 - 1), size=st.integers(1, 8))
def test_well_conditioned_trees_solve_with_a_small_backward_error(seed, size):
    rng = np.random.default_rng(seed)
    kinds = list(rng.choice(MOBILIZERS, size))
    tree, q, u = scaled_tree(rng, kinds)
    r = realize_unchecked(tree, q, u)
    M = mass_matrix(tree, r)
    if M.size == 0:
        return
    condition = np.linalg.cond(M)
    if r.status[0] != 0:
        assert condition >= 1e12, f"refused a tree with cond(M) = {condition:.3g}"
        return
    if condition >= 1e12:
        return
    f = rng.uniform(-1, 1, len(u)) * np.abs(np.diag(M))
    F = np.zeros((len(tree.parent), 6))
    udot, _ = forward(tree, r, f, F)             # articulated bodies, or M where ill-conditioned
    bias = residual(tree, r, np.zeros(len(u)), f, F)           # c - f
    error = residual(tree, r, udot, f, F)                      # M u̇ + c - f
    scale = np.linalg.norm(M, 2) * np.linalg.norm(udot) + np.linalg.norm(bias)
    assert np.linalg.norm(error) <= 1e-10 * scale, (condition, np.linalg.norm(error) / scale)


def test_a_light_body_carrying_a_heavy_one_is_solved_through_its_mass_matrix():
    """The tree the articulated-body method alone refused (its parent's articulated
    inertia indefinite in round-off at cond(M) = 6e9): now solved through M, to a
    backward error of round-off."""
    rng = np.random.default_rng(1152381)
    kinds = list(rng.choice(MOBILIZERS, 3))
    tree, q, u = scaled_tree(rng, kinds)
    assert kinds == ["free_line", "planar", "cylinder"]
    assert tree.mass[2] < 1e-5 and tree.mass[3] > 1e5          # 1e-6 kg carries 3e5 kg
    r = realize_unchecked(tree, q, u)
    assert r.status[0] == 0 and r.status[4] == 1
    M = mass_matrix(tree, r)
    f = rng.uniform(-1, 1, len(u)) * np.abs(np.diag(M))
    F = np.zeros((len(tree.parent), 6))
    udot, A = forward(tree, r, f, F)
    error = residual(tree, r, udot, f, F)
    bias = residual(tree, r, np.zeros(len(u)), f, F)
    scale = np.linalg.norm(M, 2) * np.linalg.norm(udot) + np.linalg.norm(bias)
    assert np.linalg.norm(error) <= 1e-14 * scale
    # The body accelerations are those of u̇ (J u̇ + the Coriolis terms).
    expected = np.zeros_like(A)
    calc_body_accelerations(*r.args(), True, udot, expected)
    np.testing.assert_array_equal(A, expected)
