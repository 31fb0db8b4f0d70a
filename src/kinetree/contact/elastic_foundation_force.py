"""ElasticFoundationForce: Simbody's elastic-foundation force element for the triangle
meshes of one contact set of a GeneralContactSubsystem (the element behind OpenSim's
``ElasticFoundationForce``).

Each mesh given parameters (stiffness k in N/m³, i.e. pressure per metre of
penetration, dissipation c in s/m, friction coefficients) puts a spring at the centroid of
each face. For every face whose centroid lies inside the other surface of a contact, with
d the vector from the centroid to the other surface's nearest point (m, pointing out of the
other surface) and A the face's area, Simbody's formulas exactly:

* f = k A |d| (1 + c v_n), v_n the approach speed along d; only f > 0 pushes, along d on
  the mesh and against it on the other body, both at the nearest point;
* friction f (min(w, 1)(μd + 2(μs - μd)/(1 + w²)) + μv v) along the slip, w = v/v_t
  (:func:`~kinetree.contact.hollars`), with the mesh's own coefficients;
* potential energy ½ k A |d|² per spring; when both surfaces of a contact are meshes with
  parameters, each one's springs count half their area.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from kinetree.contact.compliant import _apply, _velocity_at
from kinetree.contact.friction import hollars_kernel
from kinetree.contact.general import ContactSetForce
from kinetree.contact.mesh import TriangleMesh
from kinetree.errors import InvalidArgumentError

__all__ = ["ElasticFoundationForce"]


@numba.njit(cache=True)
def elastic_foundation_springs(spring_G, nearest_G, area, body_mesh, body_other, k, c, us,
                               ud, uv, vt, p_GB, V_GB, body_forces, with_forces):
    """Add the springs' forces to body_forces (when ``with_forces``); returns their
    potential energy (J)."""
    vo = np.empty(3)
    d = np.empty(3)
    F = np.empty(3)
    pe = 0.0
    for j in range(area.shape[0]):
        dist2 = 0.0
        for i in range(3):
            d[i] = nearest_G[j, i] - spring_G[j, i]
            dist2 += d[i] * d[i]
        dist = math.sqrt(dist2)
        if dist == 0.0:
            continue
        pe += 0.5 * k * area[j] * dist2
        if not with_forces:
            continue
        P = nearest_G[j]
        vm = _velocity_at(V_GB, p_GB, body_mesh, P)
        v_other = _velocity_at(V_GB, p_GB, body_other, P)
        vn = 0.0
        for i in range(3):
            d[i] /= dist
            vo[i] = v_other[i] - vm[i]
            vn += vo[i] * d[i]
        f = k * area[j] * dist * (1.0 + c * vn)
        if f <= 0.0:
            continue
        for i in range(3):
            vo[i] -= vn * d[i]                  # slip of the other body relative to the mesh
        slip = math.sqrt(vo[0] * vo[0] + vo[1] * vo[1] + vo[2] * vo[2])
        mu = hollars_kernel(slip, us, ud, uv, vt) if slip != 0.0 else 0.0
        for i in range(3):
            F[i] = f * d[i] + (f * mu * vo[i] / slip if slip != 0.0 else 0.0)
        _apply(body_forces, p_GB, body_mesh, P, F, 1.0)
        _apply(body_forces, p_GB, body_other, P, F, -1.0)
    return pe


class ElasticFoundationForce(ContactSetForce):
    """``ElasticFoundationForce(forces, contacts, contact_set)`` (module docstring);
    stiffness in N/m³, and only meshes take parameters."""

    def _check_body(self, index: int, where: str) -> None:
        geometry = self._contacts._entry(self._set, index, where)[1]
        if not isinstance(geometry, TriangleMesh):
            raise InvalidArgumentError(
                f"{where}: body {index} of contact set {self._set} is a "
                f"{type(geometry).__name__}, not a triangle mesh; the elastic foundation "
                f"puts its springs on a mesh's faces (use HuntCrossleyForce for smooth "
                f"surfaces).")

    def _run(self, state, body_forces, with_forces: bool) -> float:
        cache = self._tree_cache(state)
        bodies = self._contacts._body_indices(self._set)
        pe = 0.0
        for mc in self._contacts.get_contacts(state, self._set).meshes:
            if mc.mesh not in self._parameters:
                continue
            scale = 0.5 if mc.other in self._parameters else 1.0
            pe += elastic_foundation_springs(
                mc.spring_G, mc.nearest_G, scale * mc.area, bodies[mc.mesh], bodies[mc.other],
                *self._parameters[mc.mesh], self._transition_velocity, cache.p_GB,
                cache.V_GB, body_forces, with_forces)
        return pe
