"""The rows of a step's proximal contacts, compiled and sparse: each contact's rows of the
constraint Jacobian G over the mobilities of the trees it touches, and those rows times
M⁻¹.

M is block diagonal over the trees (the subtrees of Ground's children), so a contact
between two bodies moves only the mobilities of their two trees: a free box's six, a
robot's own. A contact c keeps the list of those mobilities, ``dofs[start[c]:start[c +
1]]``, its rows over them, ``G[start[c]:start[c + 1], :nrows]`` (the separation speed and
the two slip speeds are G u over the list), and W = M⁻¹ Gᵀ over the same list, so that
an impulse λ changes u there by W λ. ``D[c]`` = Gᵀ W over the list is the contact's block
of G M⁻¹ Gᵀ, the change of its row velocities per unit impulse.

A contact is given as *terms*: a station term is a point on a body (p in G, m) whose
velocity v_GP (m/s, in G), dotted with the term's coefficient rows (3 x 3, one 3-vector
per row of the contact), adds to the contact's rows; a mobility term adds its
coefficients times one mobility's speed (a hard stop's row).
"""

from __future__ import annotations

import numba
import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.kernels.crba import calc_mass_matrix_blocks
from kinetree.multibody.kernels.small import PIVOT_TOLERANCE, invert_spd_scaled
from kinetree.multibody.tree_model import mobility_rows, unpack_cache, unpack_tree
from kinetree.system.stage import Stage


class TreeLayout:
    """The trees of a matter subsystem's bodies: ``tree_of_u`` (nu,) the tree of each
    mobility (numbered 0.. by Ground's children), ``tree_start`` (ntrees + 1,) and
    ``tree_dofs`` (nu,) each tree's mobilities in order, ``column`` (nu,) each mobility's
    place in its tree, ``width`` the largest tree's mobility count."""

    def __init__(self, matter, state):
        d = matter.get_tree_data(state, Stage.MODEL, "SemiExplicitEulerTimeStepper")
        tree = d.tree
        parent, u_start, nu = tree.parent, tree.u_start, tree.nu
        n = int(d.mobility_forces.size)
        root = np.zeros(len(parent), np.int64)
        trees: dict[int, list] = {}
        for b in range(1, len(parent)):
            root[b] = b if parent[b] == 0 else root[parent[b]]
            trees.setdefault(int(root[b]), []).extend(range(u_start[b], u_start[b] + nu[b]))
        self.tree_of_u = np.zeros(n, np.int64)
        self.column = np.zeros(n, np.int64)
        dofs, self.tree_start = [], [0]
        for t, members in enumerate(trees.values()):
            members.sort()
            self.tree_of_u[members] = t
            self.column[members] = np.arange(len(members))
            dofs += members
            self.tree_start.append(len(dofs))
        self.tree_dofs = np.array(dofs, np.int64)
        self.tree_start = np.array(self.tree_start, np.int64)
        self.width = int(np.diff(self.tree_start).max()) if n else 0
        self._blocks = np.zeros((n, self.width))
        self._inverse = np.zeros((n, self.width))

    def calc_m_inv_blocks(self, matter, state) -> np.ndarray:
        """Each tree's block of M⁻¹, stored as M's blocks are (``calc_mass_matrix_blocks``)
        (POSITION)."""
        d = matter.get_tree_data(state, Stage.POSITION, "SemiExplicitEulerTimeStepper")
        calc_mass_matrix_blocks(d.tree_i, d.tree_f, d.kinds, d.buf, d.status, self.column,
                                self._blocks)
        bad = invert_blocks(self._blocks, self.tree_start, self.tree_dofs, self._inverse)
        if bad >= 0:
            raise InvalidArgumentError(
                f"SemiExplicitEulerTimeStepper: the mass matrix of the tree holding mobility "
                f"{int(self.tree_dofs[self.tree_start[bad]])} is singular; give its bodies "
                f"mass and inertia.")
        return self._inverse


@numba.njit(cache=True)
def invert_blocks(M, tree_start, tree_dofs, out):
    """out's rows of each tree = the inverse of its block of M (rows of the tree's
    mobilities, columns their places in it). Returns -1, or the first tree whose block
    is singular (``small.invert_spd_scaled``)."""
    for t in range(tree_start.shape[0] - 1):
        s, n = tree_start[t], tree_start[t + 1] - tree_start[t]
        A = np.empty((n, n))
        for i in range(n):
            for j in range(n):
                A[i, j] = M[tree_dofs[s + i], j]
        if not invert_spd_scaled(A, n, np.diag(A).copy()) > PIVOT_TOLERANCE:
            return t
        for i in range(n):
            for j in range(n):
                out[tree_dofs[s + i], j] = A[i, j]
    return -1


@numba.njit(cache=True)
def _place(tree_of_u, column, first, second, size_first, u):
    """u's place in a contact's mobility list: its place in its tree, after the first
    tree's mobilities if it is of the second tree."""
    t = tree_of_u[u]
    if t == first:
        return column[u]
    return size_first + column[u] if t == second else -1


@numba.njit(cache=True)
def build_rows(tree_i, tree_f, kinds, buf, status, tree_of_u, tree_start, tree_dofs, column,
               Minv, n_contacts, term_contact, term_body, term_point, term_coef,
               mob_contact, mob_u, mob_coef):
    """(start (nc + 1), dofs, G (len(dofs), 3), W (len(dofs), 3), D (nc, 3, 3)) of the
    contacts given by their terms (module docstring); ``Minv`` as
    ``TreeLayout.calc_m_inv_blocks`` gives it. A contact touching more than two trees
    gives start[0] = -1 - that contact."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    first = np.full(n_contacts, -1, np.int64)
    second = np.full(n_contacts, -1, np.int64)
    start = np.zeros(n_contacts + 1, np.int64)
    for k in range(term_contact.shape[0] + mob_contact.shape[0]):
        if k < term_contact.shape[0]:
            c, b = term_contact[k], term_body[k]
            if b == 0:
                continue
            t = tree_of_u[tree.u_start[b]] if tree.nu[b] > 0 else -1
            if t < 0:
                # a body without mobilities of its own: its nearest ancestor's tree
                a = tree.parent[b]
                while a != 0 and tree.nu[a] == 0:
                    a = tree.parent[a]
                if a == 0:
                    continue
                t = tree_of_u[tree.u_start[a]]
        else:
            c = mob_contact[k - term_contact.shape[0]]
            t = tree_of_u[mob_u[k - term_contact.shape[0]]]
        if first[c] < 0 or first[c] == t:
            first[c] = t
        elif second[c] < 0 or second[c] == t:
            second[c] = t
        else:
            start[0] = -1 - c
            return start, np.zeros(0, np.int64), np.zeros((0, 3)), np.zeros((0, 3)), \
                np.zeros((0, 3, 3))
    size_first = np.zeros(n_contacts, np.int64)
    for c in range(n_contacts):
        n = 0
        if first[c] >= 0:
            size_first[c] = tree_start[first[c] + 1] - tree_start[first[c]]
            n += size_first[c]
        if second[c] >= 0:
            n += tree_start[second[c] + 1] - tree_start[second[c]]
        start[c + 1] = start[c] + n
    total = start[n_contacts]
    dofs = np.empty(total, np.int64)
    G = np.zeros((total, 3))
    W = np.empty((total, 3))
    D = np.zeros((n_contacts, 3, 3))
    _fill_rows(tree_i, tree_f, kinds, buf, status, tree_of_u, tree_start, tree_dofs, column,
               Minv, term_contact, term_body, term_point, term_coef, mob_contact, mob_u,
               mob_coef, first, second, size_first, start, dofs, G, W, D)
    return start, dofs, G, W, D


@numba.njit(cache=True, _nrt=False)
def _fill_rows(tree_i, tree_f, kinds, buf, status, tree_of_u, tree_start, tree_dofs, column,
               Minv, term_contact, term_body, term_point, term_coef, mob_contact, mob_u,
               mob_coef, first, second, size_first, start, dofs, G, W, D):
    """``build_rows``'s dofs, G (zero on entry), W and D (zero on entry), without
    reference counting: the tree's and cache's views and each body's rows of H cost
    nothing here."""
    tree = unpack_tree(tree_i, tree_f, kinds)
    cache = unpack_cache(buf, status)
    n_contacts = start.shape[0] - 1
    for c in range(n_contacts):
        at = start[c]
        for t in (first[c], second[c]):
            if t >= 0:
                for i in range(tree_start[t], tree_start[t + 1]):
                    dofs[at] = tree_dofs[i]
                    at += 1
    for k in range(term_contact.shape[0]):
        c, b = term_contact[k], term_body[k]
        px, py, pz = term_point[k, 0], term_point[k, 1], term_point[k, 2]
        a = b
        while a != 0:
            H = mobility_rows(tree, cache.H_cols, a)
            dx, dy, dz = px - cache.p_GB[a, 0], py - cache.p_GB[a, 1], pz - cache.p_GB[a, 2]
            for j in range(tree.nu[a]):
                u = tree.u_start[a] + j
                w0, w1, w2 = H[j, 0], H[j, 1], H[j, 2]
                # the station's velocity per unit u: v + w × (p - p_GA)
                v0 = H[j, 3] + w1 * dz - w2 * dy
                v1 = H[j, 4] + w2 * dx - w0 * dz
                v2 = H[j, 5] + w0 * dy - w1 * dx
                i = start[c] + _place(tree_of_u, column, first[c], second[c],
                                      size_first[c], u)
                for r in range(3):
                    G[i, r] += term_coef[k, r, 0] * v0 + term_coef[k, r, 1] * v1 \
                        + term_coef[k, r, 2] * v2
            a = tree.parent[a]
    for k in range(mob_contact.shape[0]):
        c, u = mob_contact[k], mob_u[k]
        i = start[c] + _place(tree_of_u, column, first[c], second[c], size_first[c], u)
        for r in range(3):
            G[i, r] += mob_coef[k, r]
    for c in range(n_contacts):
        # M⁻¹ is zero between the contact's two trees: W and D block by block
        s, split, e = start[c], start[c] + size_first[c], start[c + 1]
        for lo, hi in ((s, split), (split, e)):
            for i in range(lo, hi):
                w0, w1, w2 = 0.0, 0.0, 0.0
                row = dofs[i]
                for j in range(lo, hi):
                    m = Minv[row, j - lo]
                    w0 += m * G[j, 0]
                    w1 += m * G[j, 1]
                    w2 += m * G[j, 2]
                W[i, 0], W[i, 1], W[i, 2] = w0, w1, w2
        for i in range(s, e):
            for r in range(3):
                g = G[i, r]
                D[c, r, 0] += g * W[i, 0]
                D[c, r, 1] += g * W[i, 1]
                D[c, r, 2] += g * W[i, 2]


@numba.njit(cache=True)
def pair_terms(body_a, body_b, point, frame, has_friction):
    """(term_contact, term_body, term_point, term_coef, nrows) of contacts between bodies
    A and B at ``point`` (nc, 3, in G) whose rows are those of ``frame`` (nc, 3, 3: the
    normal from A toward B, two tangents): each contact's term on B, then on A with the
    rows negated (the rows are B's velocity there less A's); the tangent rows are zero
    and nrows 1 where the contact has no friction."""
    n = body_a.shape[0]
    term_contact = np.empty(2 * n, np.int64)
    term_body = np.empty(2 * n, np.int64)
    term_point = np.empty((2 * n, 3))
    term_coef = np.zeros((2 * n, 3, 3))
    nrows = np.empty(n, np.int64)
    for c in range(n):
        nrows[c] = 3 if has_friction[c] else 1
        for side in range(2):
            k = c + side * n
            term_contact[k] = c
            term_body[k] = body_b[c] if side == 0 else body_a[c]
            sign = 1.0 if side == 0 else -1.0
            for i in range(3):
                term_point[k, i] = point[c, i]
                for r in range(nrows[c]):
                    term_coef[k, r, i] = sign * frame[c, r, i]
    return term_contact, term_body, term_point, term_coef, nrows


@numba.njit(cache=True)
def row_velocities(start, dofs, G, u):
    """(nc, 3): each contact's row velocities G u."""
    n_contacts = start.shape[0] - 1
    v = np.zeros((n_contacts, 3))
    for c in range(n_contacts):
        for i in range(start[c], start[c + 1]):
            for r in range(3):
                v[c, r] += G[i, r] * u[dofs[i]]
    return v


@numba.njit(cache=True)
def apply_impulses(start, dofs, W, lam, du):
    """du += M⁻¹ Gᵀ λ, λ (nc, 3) the contacts' impulses."""
    for c in range(start.shape[0] - 1):
        for i in range(start[c], start[c + 1]):
            du[dofs[i]] += W[i, 0] * lam[c, 0] + W[i, 1] * lam[c, 1] + W[i, 2] * lam[c, 2]
