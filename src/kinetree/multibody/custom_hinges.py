"""The pre-pass of the Custom and FunctionBased mobilizers, and their N blocks.

A custom mobilizer's X_FM, H_F (in F), (dH_F/dt) u (in F) and N blocks depend only on its
own q and u, so before the compiled POSITION and VELOCITY sweeps the matter subsystem asks
each custom body's implementation for them, here, and writes them where the sweeps read
them (cache.R_FM, p_FM, H_F, hdot_u). The sweeps' hinge functions for the custom type code
leave those rows alone; the N products of the kernels give zeros for custom bodies, and the
matter subsystem overwrites those blocks with the ones kept here. A tree without custom
bodies has no ``CustomHinges`` and pays nothing.
"""

from __future__ import annotations

import copy

import numpy as np

from kinetree.multibody.mobilizers.custom import WORK_SIZE


class CustomHinges:
    """One State's N, N⁻¹ and Ṅ u blocks and scratch for the custom bodies of a tree."""

    def __init__(self, bodies: list, tree):
        self.bodies = bodies
        self.impls = [b._impl for b in bodies]
        self.index = [b._index for b in bodies]
        self.q = [slice(int(tree.q_start[b]), int(tree.q_start[b] + tree.nq[b]))
                  for b in self.index]
        self.u = [slice(int(tree.u_start[b]), int(tree.u_start[b] + tree.nu[b]))
                  for b in self.index]
        self.N = [np.zeros((s.stop - s.start, t.stop - t.start)) for s, t in zip(self.q, self.u)]
        self.N_inv = [np.zeros(N.shape[::-1]) for N in self.N]
        self.ndot_u = [np.zeros(N.shape[0]) for N in self.N]
        self.work = [np.zeros(WORK_SIZE) for _ in self.N]
        for impl, N, N_inv in zip(self.impls, self.N, self.N_inv):
            if impl._identity_n:
                N[:], N_inv[:] = np.eye(N.shape[0]), np.eye(N.shape[0])
        self.general = [k for k, impl in enumerate(self.impls) if not impl._identity_n]
        """The bodies whose N blocks the kernels leave to be filled here (N not I)."""

    def __deepcopy__(self, memo) -> CustomHinges:
        new = copy.copy(self)
        for name in ("N", "N_inv", "ndot_u", "work"):
            setattr(new, name, [a.copy() for a in getattr(self, name)])
        return new

    def position(self, state, cache, q: np.ndarray) -> None:
        """X_FM, H_F, N and N⁻¹ of every custom body, from this State's q."""
        for k, (impl, b, sq) in enumerate(zip(self.impls, self.index, self.q)):
            impl.realize_position(state)
            impl._hinge_position(state, q[sq], cache.R_FM[b], cache.p_FM[b],
                                 cache.H_F_cols[self.u[k]].T, self.N[k], self.N_inv[k],
                                 self.work[k])

    def velocity(self, state, cache, q: np.ndarray, u: np.ndarray) -> None:
        """V_FM (so the implementations can read it), (dH_F/dt) u and Ṅ u of every custom
        body, from this State's u."""
        for k, (impl, b, sq, su) in enumerate(zip(self.impls, self.index, self.q, self.u)):
            ub = u[su]
            cache.V_FM[b] = ub @ cache.H_F_cols[su]
            impl.realize_velocity(state)
            impl._hinge_velocity(state, q[sq], ub, cache.hdot_u[b], self.ndot_u[k],
                                 self.work[k])

    # ------------------------------------------------------------ N blocks
    def n_mult(self, u: np.ndarray, out: np.ndarray) -> None:
        """out[q of each custom body] = N u."""
        for k in self.general:
            out[self.q[k]] = self.N[k] @ u[self.u[k]]

    def n_transpose(self, f: np.ndarray, out: np.ndarray) -> None:
        """out[u of each custom body] = Nᵀ f."""
        for k in self.general:
            out[self.u[k]] = self.N[k].T @ f[self.q[k]]

    def n_inv_mult(self, qdot: np.ndarray, out: np.ndarray) -> None:
        """out[u of each custom body] = N⁻¹ q̇."""
        for k in self.general:
            out[self.u[k]] = self.N_inv[k] @ qdot[self.q[k]]

    def n_inv_size(self) -> int:
        """How many numbers ``write_n_inv`` writes."""
        return sum(self.N_inv[k].size for k in self.general)

    def write_n_inv(self, out: np.ndarray) -> None:
        """The N⁻¹ blocks (nu x nq, row by row) of the bodies whose N is not the identity,
        one after another in the order of their bodies, from out[0] on: what a
        projection's q-space metric reads for them (engine/project.py)."""
        at = 0
        for k in sorted(self.general, key=lambda k: self.index[k]):
            block = self.N_inv[k]
            out[at:at + block.size] = block.reshape(-1)
            at += block.size

    def n_inv_transpose(self, x: np.ndarray, out: np.ndarray) -> None:
        """out[q of each custom body] = N⁻ᵀ x."""
        for k in self.general:
            out[self.q[k]] = self.N_inv[k].T @ x[self.u[k]]

    def qdotdot(self, udot: np.ndarray, out: np.ndarray) -> None:
        """out[q of each custom body] = N u̇ + Ṅ u."""
        for k in self.general:
            out[self.q[k]] = self.N[k] @ udot[self.u[k]] + self.ndot_u[k]

    def n_dot(self, state, v: np.ndarray, out: np.ndarray) -> None:
        """out[q of each custom body] = Ṅ v, from the implementations."""
        for k in self.general:
            out[self.q[k]] = self.impls[k].multiply_by_n_dot(state, False, v[self.u[k]])

    def n_block(self, index: int) -> np.ndarray:
        """The N block of custom body ``index`` (nq x nu)."""
        return self.N[self.index.index(index)]

    def ndot_u_block(self, index: int) -> np.ndarray:
        return self.ndot_u[self.index.index(index)]
