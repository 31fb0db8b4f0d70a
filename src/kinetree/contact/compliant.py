"""CompliantContactSubsystem: the force of every contact the tracker finds (paper §5,
Simbody's ``CompliantContactSubsystem`` with its default force generators).

In DYNAMICS, for each point contact (two smooth surfaces) it applies

* the Hertz force f_H = σ (4/3) E* √R x^(3/2) (eq 23), R = 2/(kmax + kmin) the composite
  radius, σ the eccentricity factor of the elliptical patch (eq 28-29), E* and the
  deformation split s1, s2 from the Hertz combining rules (Appendix A.1);
* Hunt-Crossley dissipation f = f_H (1 + (3/2) c* ẋ) (eqs 24-25), never pulling;
* friction μ(v) f (eq 27) against the slip velocity, μ the C2 Stribeck curve of
  :func:`~kinetree.contact.stribeck` with the subsystem's transition velocity;

at the contact point P = O + x (1/2 - s1) n, equal and opposite on the two bodies. For a
triangle mesh it applies the elastic foundation (§5.2) instead: a spring at each face
centroid inside the other surface, of stiffness per unit area k = (k1/h1)(k2/h2)/(k1/h1 +
k2/h2) (h the surfaces' layer thicknesses, so h = 1 m gives Simbody's k1 k2/(k1 + k2)), with
the same dissipation and friction per spring.

Every contact's force is reported (:meth:`get_contact_force`): the two surfaces and bodies,
point, normal, depth, normal and friction force, potential energy, power lost and the
patch (the Hertz ellipse, or the elastic foundation's centre of pressure and area).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numba
import numpy as np

from kinetree.contact.collision import unpack_contacts
from kinetree.contact.friction import (
    checked_transition_velocity,
    combined_mu,
    stribeck_kernel,
)
from kinetree.contact.hertz import (
    eccentricity_factor_kernel,
    hertz_patch_semi_axes,
)
from kinetree.contact.tracker import ContactTrackerSubsystem
from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.forces.force_subsystem import ForceSubsystem
from kinetree.jit import helper
from kinetree.system.stage import Stage

__all__ = ["CompliantContactSubsystem", "ContactForce"]

_SIGNIFICANT_SPEED = 1e-14   # m/s: slip slower than this has no direction, so no friction


@helper
def _velocity_at(V_GB, p_GB, b, P):
    """v (m/s, in G) of the point of body b at P, as a tuple."""
    w = V_GB[b]
    rx, ry, rz = P[0] - p_GB[b, 0], P[1] - p_GB[b, 1], P[2] - p_GB[b, 2]
    return (w[3] + w[1] * rz - w[2] * ry, w[4] + w[2] * rx - w[0] * rz,
            w[5] + w[0] * ry - w[1] * rx)


@helper
def _apply(body_forces, p_GB, b, P, F, sign):
    """Add sign·F (N, in G) acting at P to body b's spatial force about its origin."""
    rx, ry, rz = P[0] - p_GB[b, 0], P[1] - p_GB[b, 1], P[2] - p_GB[b, 2]
    body_forces[b, 0] += sign * (ry * F[2] - rz * F[1])
    body_forces[b, 1] += sign * (rz * F[0] - rx * F[2])
    body_forces[b, 2] += sign * (rx * F[1] - ry * F[0])
    body_forces[b, 3] += sign * F[0]
    body_forces[b, 4] += sign * F[1]
    body_forces[b, 5] += sign * F[2]


@helper
def _normal_and_friction(fn, vrel, n, us, ud, uv, vt):
    """(F, friction magnitude, slip speed): F = fn n + friction against the slip part of
    vrel (the velocity of surface 2's material point relative to surface 1's, m/s), for a
    normal force fn ≥ 0."""
    vn = vrel[0] * n[0] + vrel[1] * n[1] + vrel[2] * n[2]
    tx, ty, tz = vrel[0] - vn * n[0], vrel[1] - vn * n[1], vrel[2] - vn * n[2]
    slip = math.sqrt(tx * tx + ty * ty + tz * tz)
    ff = 0.0
    F = (fn * n[0], fn * n[1], fn * n[2])
    if fn > 0.0 and slip > _SIGNIFICANT_SPEED:
        ff = stribeck_kernel(slip, us, ud, uv, vt) * fn
        F = (F[0] - ff * tx / slip, F[1] - ff * ty / slip, F[2] - ff * tz / slip)
    return F, ff, slip


@helper
def hertz_contact_forces(surf, normal, depth, origin, kmax, kmin, body, stiffness,
                         dissipation, us, ud, uv, vt, p_GB, V_GB, body_forces, point, force,
                         report):
    """Hertz/Hunt-Crossley/Stribeck force of each point contact, added to body_forces;
    per contact: the point P (G), the force on surface 2 (N, G) and report = [f_normal,
    f_friction, slip speed, ẋ, potential energy, power lost, σ, s1]."""
    for m in range(depth.shape[0]):
        a, b = surf[m, 0], surf[m, 1]
        ka, kb = stiffness[a] ** (2.0 / 3.0), stiffness[b] ** (2.0 / 3.0)
        s1 = kb / (ka + kb)
        E = (ka * kb / (ka + kb)) ** 1.5
        c = dissipation[a] * s1 + dissipation[b] * (1.0 - s1)
        sigma = 1.0
        if kmax[m] - kmin[m] > 1e-12 * kmax[m]:
            sigma = eccentricity_factor_kernel(kmax[m], kmin[m])
        R = 2.0 / (kmax[m] + kmin[m])
        x = depth[m]
        n = normal[m]
        fH = sigma * (4.0 / 3.0) * E * math.sqrt(R) * x ** 1.5
        for i in range(3):
            point[m, i] = origin[m, i] + x * (0.5 - s1) * n[i]
        P = point[m]
        v1 = _velocity_at(V_GB, p_GB, body[a], P)
        v2 = _velocity_at(V_GB, p_GB, body[b], P)
        vrel = (v2[0] - v1[0], v2[1] - v1[1], v2[2] - v1[2])
        xdot = -(vrel[0] * n[0] + vrel[1] * n[1] + vrel[2] * n[2])
        fn = max(fH * (1.0 + 1.5 * c * xdot), 0.0)
        F, ff, slip = _normal_and_friction(fn, vrel, n, combined_mu(us[a], us[b]),
                                           combined_mu(ud[a], ud[b]), combined_mu(uv[a], uv[b]),
                                           vt)
        force[m, 0], force[m, 1], force[m, 2] = F
        _apply(body_forces, p_GB, body[b], P, F, 1.0)
        _apply(body_forces, p_GB, body[a], P, F, -1.0)
        report[m, 0], report[m, 1], report[m, 2], report[m, 3] = fn, ff, slip, xdot
        report[m, 4] = 0.4 * fH * x
        report[m, 5] = (fn - fH) * xdot + ff * slip if fn > 0.0 else 0.0
        report[m, 6], report[m, 7] = sigma, s1


@helper
def mesh_pair_parameters(M, mesh, other):
    """(k, c, μs, μd, μv, s_mesh) of the elastic foundation of surface ``mesh`` against
    ``other`` from their rows of the compliant ``material`` M (stiffness, dissipation,
    μs, μd, μv, thickness h): the layers in series, k/h each, s_mesh the mesh's share of
    the deformation."""
    kh_a, kh_b = M[mesh, 0] / M[mesh, 5], M[other, 0] / M[other, 5]
    s_mesh = kh_b / (kh_a + kh_b)
    return (kh_a * s_mesh, M[mesh, 1] * s_mesh + M[other, 1] * (1.0 - s_mesh),
            combined_mu(M[mesh, 2], M[other, 2]), combined_mu(M[mesh, 3], M[other, 3]),
            combined_mu(M[mesh, 4], M[other, 4]), s_mesh)


@helper
def _foundation_spring(spring, nearest, area, body_mesh, body_other, k, c, us, ud, uv,
                       s_mesh, vt, p_GB, V_GB, body_forces):
    """One spring of a mesh inside another surface: its force added to body_forces;
    returns (f_normal, f_elastic, x, ẋ, f_friction, slip speed, P, F on the other), the
    forces 0 where it pushes nothing."""
    n = (spring[0] - nearest[0], spring[1] - nearest[1], spring[2] - nearest[2])
    x = math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])    # toward the mesh's exterior
    P = (spring[0], spring[1], spring[2])
    if x == 0.0:
        return 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, P, (0.0, 0.0, 0.0)
    n = (n[0] / x, n[1] / x, n[2] / x)
    P = (spring[0] - s_mesh * x * n[0], spring[1] - s_mesh * x * n[1],
         spring[2] - s_mesh * x * n[2])
    vm = _velocity_at(V_GB, p_GB, body_mesh, P)
    vo = _velocity_at(V_GB, p_GB, body_other, P)
    vrel = (vo[0] - vm[0], vo[1] - vm[1], vo[2] - vm[2])
    xdot = -(vrel[0] * n[0] + vrel[1] * n[1] + vrel[2] * n[2])
    fK = k * area * x
    fn = fK * (1.0 + c * xdot)
    if fn <= 0.0:
        return 0.0, fK, x, xdot, 0.0, 0.0, P, (0.0, 0.0, 0.0)
    F, ff, slip = _normal_and_friction(fn, vrel, n, us, ud, uv, vt)
    _apply(body_forces, p_GB, body_other, P, F, 1.0)
    _apply(body_forces, p_GB, body_mesh, P, F, -1.0)
    return fn, fK, x, xdot, ff, slip, P, F


@numba.njit(cache=True)
def elastic_foundation_forces(spring_G, nearest_G, area, body_mesh, body_other, k, c, us, ud,
                              uv, s_mesh, vt, p_GB, V_GB, body_forces, totals):
    """The springs of one mesh inside another surface, added to body_forces; totals =
    [Σ f_normal, Σ PE, Σ power lost, Σ fn·P (3), Σ area, force on other (3)]."""
    for i in range(totals.shape[0]):
        totals[i] = 0.0
    for j in range(area.shape[0]):
        fn, fK, x, xdot, ff, slip, P, F = _foundation_spring(
            spring_G[j], nearest_G[j], area[j], body_mesh, body_other, k, c, us, ud, uv,
            s_mesh, vt, p_GB, V_GB, body_forces)
        if fn <= 0.0:
            continue
        totals[0] += fn
        totals[1] += 0.5 * fK * x
        totals[2] += (fn - fK) * xdot + ff * slip
        for i in range(3):
            totals[3 + i] += fn * P[i]
            totals[7 + i] += F[i]
        totals[6] += area[j]


class _Forces(NamedTuple):
    """The forces of one State's contacts (copies): the tracker's contacts, the point
    contacts' points, forces and reports, (MeshContact, totals) per mesh, and the
    potential energy."""

    contacts: object
    point: np.ndarray
    force: np.ndarray
    report: np.ndarray
    meshes: list
    potential_energy: float


class ContactForce(NamedTuple):
    """One contact's force at a State realized to DYNAMICS (all vectors in G).

    surface1, surface2: tracker surface numbers; body1, body2: MobilizedBody indices;
    point: where the force acts (m; the elastic foundation's centre of pressure); normal:
    unit, from surface 1 into surface 2; depth: overlap x (m; the largest spring's for a
    mesh); force_on_surface2: the total force on surface 2 at ``point`` (N; surface 1 gets
    its negative); normal_force (N, ≥ 0) and friction_force (N, vector) its parts;
    potential_energy (J); power_loss (W, ≥ 0); patch_semi_axes: (a, b) (m) of the Hertz
    ellipse, a along ``patch_major_axis`` (unit), or (0, 0) for a mesh; patch_area (m²):
    π a b, or the area of the springs in contact.
    """

    surface1: int
    surface2: int
    body1: int
    body2: int
    point: np.ndarray
    normal: np.ndarray
    depth: float
    force_on_surface2: np.ndarray
    normal_force: float
    friction_force: np.ndarray
    potential_energy: float
    power_loss: float
    patch_semi_axes: tuple
    patch_major_axis: np.ndarray
    patch_area: float


@helper
def contact_forces(d, vt, p_GB, V_GB, body_forces):
    """The Hertz/Hunt-Crossley/Stribeck force of every point contact the search left in
    ContactData ``d`` and the elastic foundation of its springs, with transition velocity
    ``vt`` (m/s), added to body_forces; the point contacts' points, forces and reports
    into ``d``."""
    m = d.header[5]
    M = d.material
    if m > 0:
        hertz_contact_forces(d.surf[:m], d.normal[:m], d.depth[:m], d.origin[:m],
                             d.kmax[:m], d.kmin[:m], d.body, M[:, 0], M[:, 1], M[:, 2],
                             M[:, 3], M[:, 4], vt, p_GB, V_GB, body_forces, d.point[:m],
                             d.force[:m], d.report[:m])
    for j in range(d.header[10]):
        mesh, other = d.spring_surf[j, 0], d.spring_surf[j, 1]
        k, c, us, ud, uv, s_mesh = mesh_pair_parameters(M, mesh, other)
        _foundation_spring(d.spring_G[j], d.nearest_G[j],
                           d.face_area[d.face_start[mesh] + d.spring_face[j]], d.body[mesh],
                           d.body[other], k, c, us, ud, uv, s_mesh, vt, p_GB, V_GB,
                           body_forces)


@helper
def calc_compliant_forces(contact_i, contact_f, vt, p_GB, V_GB, body_forces):
    """``contact_forces`` on the flat buffers."""
    contact_forces(unpack_contacts(contact_i, contact_f), vt, p_GB, V_GB, body_forces)


class CompliantContactSubsystem(ForceSubsystem):
    """Forces for the contacts a ContactTrackerSubsystem finds (module docstring)."""

    def __init__(self, system, tracker: ContactTrackerSubsystem):
        if not isinstance(tracker, ContactTrackerSubsystem):
            raise InvalidArgumentError(
                f"CompliantContactSubsystem: the second argument must be the "
                f"ContactTrackerSubsystem, got {type(tracker).__name__}.")
        self._tracker = tracker
        self._transition_velocity = 0.01
        super().__init__(system, "CompliantContactSubsystem")

    def get_contact_tracker_subsystem(self) -> ContactTrackerSubsystem:
        return self._tracker

    def set_transition_velocity(self, velocity) -> CompliantContactSubsystem:
        """The slip speed v_t (m/s, default 0.01) at which static friction peaks; a
        topological change."""
        self._transition_velocity = checked_transition_velocity(
            velocity, "CompliantContactSubsystem.set_transition_velocity")
        self.invalidate_subsystem_topology_cache()
        return self

    def get_transition_velocity(self) -> float:
        return self._transition_velocity

    def realize_dynamics(self, state):
        matter = self.get_system().get_matter_subsystem()
        data = matter.get_tree_data(state, Stage.VELOCITY, "CompliantContactSubsystem")
        buffers = self._tracker._buffers(state)
        calc_compliant_forces(buffers.contact_i, buffers.contact_f, self._transition_velocity,
                              data.cache.p_GB, data.cache.V_GB, data.body_forces)
        self._mesh_forces(state)

    def engine_fields(self, state) -> dict:
        """The compliant model's field of the compiled realization's model
        (``engine/data.py``)."""
        return {"transition_velocity": self.get_transition_velocity()}

    def engine_python(self, state) -> tuple[dict, dict]:
        """(before, after): per stage, the Python this subsystem runs around the compiled
        call when its forces are computed inside the one compiled realization: the
        elastic foundation of the meshes the tracker's Python pass finds."""
        return {}, {Stage.DYNAMICS: [self._mesh_forces]} if self._tracker._has_python_kinds \
            else {}

    def _mesh_forces(self, state) -> None:
        """The elastic foundation of the meshes the tracker's Python pass found (against
        ellipsoids and meshes), added to the body forces."""
        buffers = self._tracker._buffers(state)
        if buffers.python_meshes:
            matter = self.get_system().get_matter_subsystem()
            data = matter.get_tree_data(state, Stage.VELOCITY, "CompliantContactSubsystem")
            self._foundation(buffers, buffers.python_meshes, data.cache, data.body_forces)

    def _foundation(self, buffers, meshes, cache, body_forces) -> list:
        """Apply the elastic foundation of ``meshes`` (MeshContact) to body_forces; their
        totals (``elastic_foundation_forces``)."""
        M, body = buffers.data.material, buffers.data.body
        found = []
        for mc in meshes:
            totals = np.zeros(10)
            elastic_foundation_forces(
                mc.spring_G, mc.nearest_G, mc.area, body[mc.mesh], body[mc.other],
                *mesh_pair_parameters(M, mc.mesh, mc.other), self._transition_velocity,
                cache.p_GB, cache.V_GB, body_forces, totals)
            found.append(totals)
        return found

    def realize_topology(self, state):
        self._forces_index = self.allocate_lazy_cache_entry(state, Stage.DYNAMICS, None)

    def _forces(self, state, where: str) -> _Forces:
        """The contacts' forces and reports at ``state``, gathered once per realization
        of DYNAMICS (a lazy cache entry)."""
        self._check(state)
        if self.get_stage(state) < Stage.DYNAMICS:
            raise StageTooLowError(Stage.DYNAMICS, self.get_stage(state),
                                   f"CompliantContactSubsystem.{where}")
        if not self.is_cache_value_realized(state, self._forces_index):
            self.set_cache_entry(state, self._forces_index, self._gather(state, where))
            self.mark_cache_value_realized(state, self._forces_index)
        return self.get_cache_entry(state, self._forces_index)

    def _gather(self, state, where: str) -> _Forces:
        buffers = self._tracker._buffers(state)
        d, m = buffers.data, int(buffers.data.header[5])
        contacts = self._tracker._contact_list(state)
        meshes = contacts.meshes
        totals = []
        if meshes:
            # The springs' totals for the reports, again (their forces went to the State).
            matter = self.get_system().get_matter_subsystem()
            cache = matter.get_tree_data(state, Stage.VELOCITY, where).cache
            totals = self._foundation(buffers, meshes, cache, np.zeros((cache.p_GB.shape[0], 6)))
        pe = float(d.report[:m, 4].sum()) + sum(float(t[1]) for t in totals)
        return _Forces(contacts, d.point[:m].copy(),
                       d.force[:m].copy(), d.report[:m].copy(), list(zip(meshes, totals)), pe)

    def calc_potential_energy(self, state) -> float:
        """Elastic energy stored in all contacts (J): (2/5) f_H x per Hertz contact, ½ k A x²
        per spring."""
        return self._forces(state, "calc_potential_energy").potential_energy

    def get_num_contact_forces(self, state) -> int:
        f = self._forces(state, "get_num_contact_forces")
        return len(f.contacts) + len(f.meshes)

    def get_contact_force(self, state, index: int) -> ContactForce:
        """The ``index``-th contact's force (:class:`ContactForce`): the point contacts
        first, then one entry per mesh in contact."""
        f = self._forces(state, "get_contact_force")
        count = len(f.contacts) + len(f.meshes)
        if not isinstance(index, (int, np.integer)) or not 0 <= index < count:
            raise InvalidArgumentError(
                f"CompliantContactSubsystem.get_contact_force: no contact force {index!r}; "
                f"there are {count} at this State.")
        table = self._tracker._table
        if index < len(f.contacts):
            cl = f.contacts
            a, b = (int(s) for s in cl.surf[index])
            n = cl.normal[index]
            fn, _, _, _, pe, power, _, _ = f.report[index]
            x = float(cl.depth[index])
            axes = hertz_patch_semi_axes(x, float(cl.kmax[index]), float(cl.kmin[index]))
            major = np.cross(n, cl.kdir[index])    # a lies along kmin's direction
            return ContactForce(a, b, int(table.body[a]), int(table.body[b]),
                                f.point[index].copy(), n.copy(), x, f.force[index].copy(),
                                float(fn), f.force[index] - fn * n, float(pe), float(power),
                                axes, major, math.pi * axes[0] * axes[1])
        mc, totals = f.meshes[index - len(f.contacts)]
        F = totals[7:10].copy()
        offsets = mc.spring_G - mc.nearest_G
        depths = np.linalg.norm(offsets, axis=1)
        deepest = int(np.argmax(depths))
        n = offsets[deepest] / depths[deepest] if depths[deepest] > 0 else np.zeros(3)
        fn = float(totals[0])
        cop = totals[3:6] / fn if fn > 0 else mc.spring_G.mean(axis=0)
        normal_part = float(F @ n) * n
        return ContactForce(mc.other, mc.mesh, int(table.body[mc.other]),
                            int(table.body[mc.mesh]), cop, -n, float(depths.max()), -F,
                            fn, -(F - normal_part), float(totals[1]), float(totals[2]),
                            (0.0, 0.0), np.zeros(3), float(totals[6]))
