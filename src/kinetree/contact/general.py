"""GeneralContactSubsystem: contact sets of bodies with their geometry (Simbody's older
contact API, the one OpenSim's HuntCrossleyForce and ElasticFoundationForce use).

Each contact set is a list of (MobilizedBody, ContactGeometry, X_BS) entries numbered from
0 in the order added; only entries of the same set meet, never two on one body. At
POSITION the overlapping pairs of every set are found (one broad phase over all sets,
:mod:`kinetree.contact.collision`) and :meth:`get_contacts` returns those of one set with
the set's own numbering. Forces come from elements of a GeneralForceSubsystem that read
them: ``HuntCrossleyForce`` (point contacts) and ``ElasticFoundationForce`` (meshes).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from kinetree.contact.collision import ContactList, ContactSearch
from kinetree.contact.friction import checked_transition_velocity
from kinetree.contact.geometry import ContactGeometry
from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.forces.force import Force
from kinetree.math import Transform
from kinetree.system.stage import Stage
from kinetree.system.subsystem import Subsystem

__all__ = ["ContactSetForce", "GeneralContactSubsystem"]


class GeneralContactSubsystem(ContactSearch, Subsystem):
    """Contact sets of bodies with geometry (module docstring)."""

    _ellipsoid_section_radii = True

    def __init__(self, system):
        self._sets: list[list] = []
        self._contact_forces: list = []
        super().__init__(system, "GeneralContactSubsystem")

    def create_contact_set(self) -> int:
        """A new, empty contact set; returns its index."""
        self._sets.append([])
        self.invalidate_subsystem_topology_cache()
        return len(self._sets) - 1

    def _set(self, contact_set, where: str) -> list:
        if not isinstance(contact_set, (int, np.integer)) or not 0 <= contact_set < len(
                self._sets):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.{where}: no contact set {contact_set!r}; there are "
                f"{len(self._sets)} (create one with create_contact_set()).")
        return self._sets[contact_set]

    def add_body(self, contact_set: int, mobod, geometry, X_BS=None) -> int:
        """Put ``geometry`` (frame S at X_BS in the body, m; identity by default) on
        ``mobod`` into ``contact_set``; returns its index in the set."""
        entries = self._set(contact_set, "add_body")
        if not hasattr(mobod, "get_mobilized_body_index"):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.add_body: expected a MobilizedBody, got "
                f"{type(mobod).__name__}.")
        if not isinstance(geometry, ContactGeometry):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.add_body: expected a ContactGeometry, got "
                f"{type(geometry).__name__}.")
        X_BS = Transform() if X_BS is None else X_BS
        if not isinstance(X_BS, Transform):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.add_body: X_BS must be a Transform, got "
                f"{type(X_BS).__name__}.")
        entries.append((mobod, geometry, X_BS))
        self.invalidate_subsystem_topology_cache()
        return len(entries) - 1

    def get_num_contact_sets(self) -> int:
        return len(self._sets)

    def get_num_bodies(self, contact_set: int) -> int:
        return len(self._set(contact_set, "get_num_bodies"))

    def _entry(self, contact_set, index, where: str):
        entries = self._set(contact_set, where)
        if not isinstance(index, (int, np.integer)) or not 0 <= index < len(entries):
            raise InvalidArgumentError(
                f"GeneralContactSubsystem.{where}: contact set {contact_set} has no body "
                f"{index!r}; it has {len(entries)}.")
        return entries[index]

    def get_body(self, contact_set: int, index: int):
        """The MobilizedBody of entry ``index`` of the set."""
        return self._entry(contact_set, index, "get_body")[0]

    def get_body_geometry(self, contact_set: int, index: int) -> ContactGeometry:
        return self._entry(contact_set, index, "get_body_geometry")[1]

    def get_body_transform(self, contact_set: int, index: int) -> Transform:
        """X_BS of entry ``index``."""
        return self._entry(contact_set, index, "get_body_transform")[2]

    # ------------------------------------------------------------- stages
    def realize_topology(self, state):
        entries, self._first = [], []
        for group, members in enumerate(self._sets):
            self._first.append(len(entries))
            entries += [(mobod.get_mobilized_body_index(), X_BS, geometry, group, ())
                        for mobod, geometry, X_BS in members]
        self._allocate_search(state, entries, "GeneralContactSubsystem")

    def realize_instance(self, state):
        """The parameters of every surface an enabled HuntCrossleyForce or
        ElasticFoundationForce acts on, for the compiled realization."""
        material = self._buffers(state).data.material
        material[:] = 0.0
        for force in self._contact_forces:
            if not force.is_disabled(state):
                first = self._first[force.get_contact_set_index()]
                rows, mine = force._material_rows()
                material[first:first + len(rows)][mine] = rows[mine]

    def realize_position(self, state):
        self._search(state, "GeneralContactSubsystem")

    def _adopt_contact_force(self, force) -> None:
        self._contact_forces.append(force)
        self.invalidate_subsystem_topology_cache()

    def get_contacts(self, state, contact_set: int) -> ContactList:
        """The overlapping pairs of ``contact_set`` at ``state`` (POSITION), numbered
        within the set: a ContactList (arrays in G)."""
        self._set(contact_set, "get_contacts")
        self._check(state)
        if self.get_stage(state) < Stage.POSITION:
            raise StageTooLowError(Stage.POSITION, self.get_stage(state),
                                   "GeneralContactSubsystem.get_contacts")
        found = self._contact_list(state)
        first = self._first[contact_set]
        mine = self._table.group[found.surf[:, 0]] == contact_set if len(found) else \
            np.zeros(0, bool)
        return ContactList(
            found.surf[mine] - first, found.normal[mine], found.depth[mine], found.origin[mine],
            found.kmax[mine], found.kmin[mine], found.kdir[mine],
            [dataclasses.replace(mc, mesh=mc.mesh - first, other=mc.other - first)
             for mc in found.meshes if self._table.group[mc.mesh] == contact_set])

    def _body_indices(self, contact_set: int) -> np.ndarray:
        return np.array([m.get_mobilized_body_index() for m, _, _ in self._sets[contact_set]],
                        dtype=np.int64)


class ContactSetForce(Force):
    """What HuntCrossleyForce and ElasticFoundationForce share: the contact set of a
    GeneralContactSubsystem they act on, a material per set entry (stiffness,
    dissipation, μs, μd, μv) and a friction transition velocity. A subclass computes
    ``_run(state, body_forces, with_forces)`` -> potential energy (J) from the set's
    contacts, adding forces only ``with_forces``."""

    def __init__(self, forces, contacts, contact_set: int):
        name = type(self).__name__
        if not isinstance(contacts, GeneralContactSubsystem):
            raise InvalidArgumentError(
                f"{name}: the second argument must be the GeneralContactSubsystem, got "
                f"{type(contacts).__name__}.")
        contacts._set(contact_set, name)
        self._contacts, self._set = contacts, int(contact_set)
        self._parameters: dict[int, tuple] = {}
        self._transition_velocity = 0.01
        super().__init__(forces)
        contacts._adopt_contact_force(self)

    def get_contact_set_index(self) -> int:
        return self._set

    def _check_body(self, index: int, where: str) -> None:
        """Refuse an entry that cannot take parameters (raise); any entry can here."""
        self._contacts._entry(self._set, index, where)

    def set_body_parameters(self, index: int, stiffness, dissipation, static_friction,
                            dynamic_friction, viscous_friction) -> None:
        """Material of entry ``index`` of the contact set: stiffness, dissipation (s/m),
        μs, μd (unitless), μv (s/m); the stiffness's unit is the element's."""
        where = f"{type(self).__name__}.set_body_parameters"
        self._check_body(index, where)
        values = tuple(float(v) for v in (stiffness, dissipation, static_friction,
                                          dynamic_friction, viscous_friction))
        if not all(math.isfinite(v) and v >= 0 for v in values):
            raise InvalidArgumentError(
                f"{where}: body {index}: stiffness, dissipation and friction must be finite "
                f"and >= 0, got {values}.")
        self._parameters[int(index)] = values
        self._forces.invalidate_subsystem_topology_cache()

    def get_transition_velocity(self) -> float:
        return self._transition_velocity

    def set_transition_velocity(self, velocity) -> None:
        """v_t (m/s, default 0.01), where static friction peaks."""
        self._transition_velocity = checked_transition_velocity(
            velocity, f"{type(self).__name__}.set_transition_velocity")
        self._forces.invalidate_subsystem_topology_cache()

    def _tree_cache(self, state):
        """The matter subsystem's cache arrays (POSITION realized)."""
        matter = self._contacts.get_system().get_matter_subsystem()
        return matter.get_tree_data(state, Stage.POSITION, type(self).__name__).cache

    def _run(self, state, body_forces, with_forces: bool) -> float:
        raise NotImplementedError

    def _material_rows(self) -> tuple[np.ndarray, np.ndarray]:
        """Per set entry, its row of the contact buffers' ``material`` for the compiled
        forces, and whether the element acts through it."""
        raise NotImplementedError

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        self._run(state, body_forces, True)

    def calc_potential_energy(self, state) -> float:
        return self._run(state, np.zeros((0, 6)), False)
