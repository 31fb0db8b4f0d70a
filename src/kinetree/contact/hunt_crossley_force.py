"""HuntCrossleyForce: Simbody's force element for the point contacts of one contact set of a
GeneralContactSubsystem (the element behind OpenSim's ``HuntCrossleyForce``).

Each surface of the set has a stiffness k (Pa), dissipation c (s/m) and static, dynamic and
viscous friction coefficients (default 1 Pa and zeros). For a contact of depth x, normal n
(from surface 1 into 2) and effective radius R, with Simbody's formulas exactly:

* s1 = k2^(2/3)/(k1^(2/3) + k2^(2/3)); the force acts at O + x (1/2 - s1) n;
* f_H = (4/3) E x √(R E x) with E = k1^(2/3) s1 (so E^(3/2) = E*), potential energy
  (2/5) f_H x;
* f = f_H (1 + (3/2) c v_n), c = c1 s1 + c2 (1 - s1), v_n the approach speed;
* friction f (min(w, 1)(μd + 2(μs - μd)/(1 + w²)) + μv v) along the slip, w = v/v_t, each μ
  the harmonic mean of the two surfaces' (:func:`~kinetree.contact.hollars`).

A contact whose f ≤ 0 (separating faster than the dissipation allows) applies no force at
all, friction included, as Simbody's element does (and so OpenSim's models).
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.contact.compliant import _apply, _velocity_at
from kinetree.contact.friction import combined_mu, hollars_kernel
from kinetree.contact.general import ContactSetForce
from kinetree.contact.mesh import TriangleMesh
from kinetree.jit import helper
from kinetree.registry import CONTACT
from kinetree.system.stage import Stage

__all__ = ["HuntCrossleyForce"]


@helper
def hunt_crossley_forces(surf, normal, depth, origin, kmax, kmin, body, M, p_GB, V_GB,
                         body_forces, with_forces):
    """Add to body_forces (when ``with_forces``) the force of every contact between
    surfaces an element acts on: those whose row of M (per surface: k^(2/3), c, μs, μd, μv,
    v_t, 1 if an element applies) is marked; ``body`` holds each surface's body. Returns
    their potential energy (J)."""
    pe = 0.0
    for m in range(depth.shape[0]):
        a, b = surf[m, 0], surf[m, 1]
        if M[a, 6] == 0.0:
            continue
        s1 = M[b, 0] / (M[a, 0] + M[b, 0])
        x = depth[m]
        n = normal[m]
        E = M[a, 0] * s1
        fH = (4.0 / 3.0) * E * x * math.sqrt(E * x / math.sqrt(kmax[m] * kmin[m]))
        pe += 0.4 * fH * x
        if not with_forces:
            continue
        h = x * (0.5 - s1)
        P = (origin[m, 0] + h * n[0], origin[m, 1] + h * n[1], origin[m, 2] + h * n[2])
        v1 = _velocity_at(V_GB, p_GB, body[a], P)
        v2 = _velocity_at(V_GB, p_GB, body[b], P)
        w = (v1[0] - v2[0], v1[1] - v2[1], v1[2] - v2[2])
        vn = w[0] * n[0] + w[1] * n[1] + w[2] * n[2]
        f = fH * (1.0 + 1.5 * (M[a, 1] * s1 + M[b, 1] * (1.0 - s1)) * vn)
        if f <= 0.0:
            continue
        slip_v = (w[0] - vn * n[0], w[1] - vn * n[1], w[2] - vn * n[2])   # 1 relative to 2
        slip = math.sqrt(slip_v[0] ** 2 + slip_v[1] ** 2 + slip_v[2] ** 2)
        F = (f * n[0], f * n[1], f * n[2])
        if slip != 0.0:
            mu = hollars_kernel(slip, combined_mu(M[a, 2], M[b, 2]), combined_mu(M[a, 3], M[b, 3]),
                                combined_mu(M[a, 4], M[b, 4]), M[a, 5])
            g = f * mu / slip
            F = (F[0] + g * slip_v[0], F[1] + g * slip_v[1], F[2] + g * slip_v[2])
        _apply(body_forces, p_GB, body[b], P, F, 1.0)
        _apply(body_forces, p_GB, body[a], P, F, -1.0)
    return pe


@helper
def contact_forces(d, transition_velocity, p_GB, V_GB, body_forces):
    """``hunt_crossley_forces`` for the point contacts of ContactData ``d``, whose
    ``material`` the GeneralContactSubsystem filled with the enabled elements' rows (each
    with its own transition velocity: ``transition_velocity``, CompliantContactSubsystem's,
    is not used)."""
    m = d.header[5]
    hunt_crossley_forces(d.surf[:m], d.normal[:m], d.depth[:m], d.origin[:m], d.kmax[:m],
                         d.kmin[:m], d.body, d.material, p_GB, V_GB, body_forces, True)


class HuntCrossleyForce(ContactSetForce):
    """``HuntCrossleyForce(forces, contacts, contact_set)`` (module docstring); stiffness
    in Pa."""

    CODE = CONTACT["hunt_crossley_force"]     # its part of the compiled realization

    def _surface_parameters(self) -> np.ndarray:
        """Per set entry, its row of material for ``hunt_crossley_forces``: k^(2/3), c, μs,
        μd, μv (defaults 1, 0, 0, 0, 0), v_t, 1."""
        n = self._contacts.get_num_bodies(self._set)
        rows = np.tile([1.0, 0.0, 0.0, 0.0, 0.0, self._transition_velocity, 1.0, 0.0], (n, 1))
        for i, values in self._parameters.items():
            rows[i, :5] = values
        rows[:, 0] **= 2.0 / 3.0
        return rows

    def _material_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """The surface parameters of the entries with point contacts (all but meshes)."""
        smooth = [not isinstance(g, TriangleMesh)
                  for _, g, _ in self._contacts._sets[self._set]]
        return self._surface_parameters(), np.array(smooth, dtype=bool)

    def _realize(self, stage, state) -> None:
        if stage == Stage.TOPOLOGY:
            self._params = (self._contacts._body_indices(self._set), self._surface_parameters())

    def _has_hook(self, stage) -> bool:
        return stage == Stage.TOPOLOGY

    def _run(self, state, body_forces, with_forces: bool) -> float:
        cache = self._tree_cache(state)
        cl = self._contacts.get_contacts(state, self._set)
        if not len(cl):
            return 0.0
        return hunt_crossley_forces(cl.surf, cl.normal, cl.depth, cl.origin, cl.kmax,
                                    cl.kmin, *self._params, cache.p_GB, cache.V_GB,
                                    body_forces, with_forces)
