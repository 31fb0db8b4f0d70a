"""Force.Custom: a force element whose physics is user code.

Write a ``Force.Custom.Implementation`` subclass with ``calc_force(state, body_forces,
particle_forces, mobility_forces)`` (add into the arrays: spatial forces [moment; force]
about each body's origin in Ground, one generalized force per u) and
``calc_potential_energy(state)``. If ``depends_only_on_positions()`` returns True the force
is computed once per change of q (a lazy POSITION cache entry) and reused while only u or
t changes.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.forces.force import Force, potential_energy
from kinetree.system.hooks import RealizeHooks
from kinetree.system.stage import Stage


class Implementation(RealizeHooks):
    """What a custom force computes. Override ``calc_force`` and, for a conservative force,
    ``calc_potential_energy``; the realize hooks are optional."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        raise NotImplementedError(
            f"{type(self).__qualname__} must implement calc_force(state, body_forces, "
            f"particle_forces, mobility_forces).")

    def calc_potential_energy(self, state) -> float:
        return 0.0

    def depends_only_on_positions(self) -> bool:
        return False


class Custom(Force):
    """``Force.Custom(forces, implementation)``."""

    Implementation = Implementation

    def __init__(self, forces, implementation: Implementation):
        if not isinstance(implementation, Implementation):
            raise InvalidArgumentError(
                f"Force.Custom: the implementation must subclass Force.Custom.Implementation, "
                f"got {type(implementation).__name__}.")
        self._impl = implementation
        super().__init__(forces)

    def get_implementation(self) -> Implementation:
        return self._impl

    def _realize(self, stage: Stage, state) -> None:
        if stage == Stage.TOPOLOGY and self._impl.depends_only_on_positions():
            self._cached = self._forces.allocate_lazy_cache_entry(state, Stage.POSITION, None)
        getattr(self._impl, f"realize_{stage.name.lower()}")(state)

    def _has_hook(self, stage: Stage) -> bool:
        name = f"realize_{stage.name.lower()}"
        return stage == Stage.TOPOLOGY or \
            getattr(type(self._impl), name) is not getattr(Implementation, name)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        if not self._impl.depends_only_on_positions():
            self._impl.calc_force(state, body_forces, particle_forces, mobility_forces)
            return
        subsystem = self._forces
        if not subsystem.is_cache_value_realized(state, self._cached):
            saved = (np.zeros_like(body_forces), np.zeros_like(mobility_forces))
            self._impl.calc_force(state, saved[0], particle_forces, saved[1])
            subsystem.set_cache_entry(state, self._cached, saved)
            subsystem.mark_cache_value_realized(state, self._cached)
        saved = subsystem.get_cache_entry(state, self._cached)
        body_forces += saved[0]
        mobility_forces += saved[1]

    def calc_potential_energy(self, state) -> float:
        return potential_energy(
            self._impl.calc_potential_energy(state),
            f"Force.Custom {self._index} ({type(self._impl).__name__}).calc_potential_energy")
