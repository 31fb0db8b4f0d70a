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

import numpy as np

from kinetree.contact.compliant import _apply, _velocity_at
from kinetree.contact.friction import hollars_kernel
from kinetree.contact.general import ContactSetForce
from kinetree.contact.mesh import TriangleMesh
from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.registry import CONTACT

__all__ = ["ElasticFoundationForce"]


@helper
def _spring(spring, nearest, area, body_mesh, body_other, k, c, us, ud, uv, vt, p_GB, V_GB,
            body_forces, with_forces):
    """One spring: its force added to body_forces (when ``with_forces``); returns its
    potential energy (J)."""
    d = (nearest[0] - spring[0], nearest[1] - spring[1], nearest[2] - spring[2])
    dist2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
    dist = math.sqrt(dist2)
    if dist == 0.0:
        return 0.0
    pe = 0.5 * k * area * dist2
    if not with_forces:
        return pe
    P = (nearest[0], nearest[1], nearest[2])
    vm = _velocity_at(V_GB, p_GB, body_mesh, P)
    v_other = _velocity_at(V_GB, p_GB, body_other, P)
    n = (d[0] / dist, d[1] / dist, d[2] / dist)
    vo = (v_other[0] - vm[0], v_other[1] - vm[1], v_other[2] - vm[2])
    vn = vo[0] * n[0] + vo[1] * n[1] + vo[2] * n[2]
    f = k * area * dist * (1.0 + c * vn)
    if f <= 0.0:
        return pe
    # The slip of the other body relative to the mesh.
    slip_v = (vo[0] - vn * n[0], vo[1] - vn * n[1], vo[2] - vn * n[2])
    slip = math.sqrt(slip_v[0] ** 2 + slip_v[1] ** 2 + slip_v[2] ** 2)
    F = (f * n[0], f * n[1], f * n[2])
    if slip != 0.0:
        g = f * hollars_kernel(slip, us, ud, uv, vt) / slip
        F = (F[0] + g * slip_v[0], F[1] + g * slip_v[1], F[2] + g * slip_v[2])
    _apply(body_forces, p_GB, body_mesh, P, F, 1.0)
    _apply(body_forces, p_GB, body_other, P, F, -1.0)
    return pe


@helper
def elastic_foundation_springs(spring_G, nearest_G, area, body_mesh, body_other, k, c, us,
                               ud, uv, vt, p_GB, V_GB, body_forces, with_forces):
    """Add the springs' forces to body_forces (when ``with_forces``); returns their
    potential energy (J)."""
    pe = 0.0
    for j in range(area.shape[0]):
        pe += _spring(spring_G[j], nearest_G[j], area[j], body_mesh, body_other, k, c, us, ud,
                      uv, vt, p_GB, V_GB, body_forces, with_forces)
    return pe


@helper
def contact_forces(d, transition_velocity, p_GB, V_GB, body_forces):
    """``_spring`` for every spring of ContactData ``d`` whose mesh's row of ``material``
    the GeneralContactSubsystem marked (an enabled element's k, c, μs, μd, μv, v_t, 1):
    the compiled search's springs, each mesh against a half space or a sphere
    (``transition_velocity``, CompliantContactSubsystem's, is not used)."""
    M = d.material
    for j in range(d.header[10]):
        mesh, other = d.spring_surf[j, 0], d.spring_surf[j, 1]
        if M[mesh, 6] == 0.0:
            continue
        _spring(d.spring_G[j], d.nearest_G[j], d.face_area[d.face_start[mesh] + d.spring_face[j]],
                d.body[mesh], d.body[other], M[mesh, 0], M[mesh, 1], M[mesh, 2], M[mesh, 3],
                M[mesh, 4], M[mesh, 5], p_GB, V_GB, body_forces, True)


class ElasticFoundationForce(ContactSetForce):
    """``ElasticFoundationForce(forces, contacts, contact_set)`` (module docstring);
    stiffness in N/m³, and only meshes take parameters."""

    CODE = CONTACT["elastic_foundation_force"]     # its part of the compiled realization

    def _check_body(self, index: int, where: str) -> None:
        geometry = self._contacts._entry(self._set, index, where)[1]
        if not isinstance(geometry, TriangleMesh):
            raise InvalidArgumentError(
                f"{where}: body {index} of contact set {self._set} is a "
                f"{type(geometry).__name__}, not a triangle mesh; the elastic foundation "
                f"puts its springs on a mesh's faces (use HuntCrossleyForce for smooth "
                f"surfaces).")

    def _material_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """k, c, μs, μd, μv, v_t, 1 for each mesh given parameters."""
        n = self._contacts.get_num_bodies(self._set)
        rows, mine = np.zeros((n, 8)), np.zeros(n, dtype=bool)
        for i, values in self._parameters.items():
            rows[i, :7] = (*values, self._transition_velocity, 1.0)
            mine[i] = True
        return rows, mine

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
