"""MultibodySystem: a System with one SimbodyMatterSubsystem and any force subsystems.

Within each stage the matter subsystem is realized first: forces read body positions and
velocities it computes, and it zeroes the force accumulators the force subsystems then add
into during DYNAMICS.
"""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.system.stage import Stage
from kinetree.system.system import System

_TIME, _INSTANCE, _ACCELERATION = int(Stage.TIME), int(Stage.INSTANCE), int(Stage.ACCELERATION)


class MultibodySystem(System):
    """The System of multibody models: matter, forces, and their energies."""

    def __init__(self, name: str = "MultibodySystem"):
        super().__init__(name)
        self._matter = None

    def _set_matter_subsystem(self, matter) -> None:
        if self._matter is not None:
            raise InvalidArgumentError(
                "MultibodySystem: it already has a SimbodyMatterSubsystem; a MultibodySystem "
                "has exactly one.")
        self._matter = matter

    def get_matter_subsystem(self):
        if self._matter is None:
            raise InvalidArgumentError(
                "MultibodySystem: no SimbodyMatterSubsystem yet; create one with "
                "kt.SimbodyMatterSubsystem(system).")
        return self._matter

    upd_matter_subsystem = get_matter_subsystem

    def _realization_order(self):
        order = list(range(len(self._subsystems)))
        if self._matter is not None:
            order.remove(self._matter._index)
            order.insert(0, self._matter._index)
        return order

    def realize(self, state, stage=Stage.REPORT) -> None:
        """As System.realize. From TIME to ACCELERATION or beyond, a tree without
        constraints or custom mobilizers whose only applied force is one UniformGravity is
        realized by one compiled call (kernels/forward.py), with the same results as the
        stage-by-stage hooks and none of their Python per stage."""
        target = Stage.coerce(stage, "System.realize")
        if (target >= _ACCELERATION and state._stage <= _TIME
                and state._system_uid == self._uid
                and state._topology_version == self._topology_version):
            if state._stage < _TIME:
                super().realize(state, Stage.TIME)
            plan = state._system_plan
            if plan is None or plan[0] != state._versions[_INSTANCE]:
                plan = state._system_plan = (state._versions[_INSTANCE],
                                             self._forward_call(state))
            forward = plan[1]
            parts = state._parts
            if forward is not None and all([p.stage == _TIME for p in parts]):
                forward()
                for part in parts:
                    part.stage = Stage.ACCELERATION
                state._stage = Stage.ACCELERATION
                if target == _ACCELERATION:
                    return
        super().realize(state, stage)

    def _forward_call(self, state):
        """The one-call pipeline bound to ``state``'s arrays, if it applies (see realize),
        else None: the matter able to, and every other subsystem a force subsystem that
        adds at most gravity. It depends on the topology and the Instance-stage variables
        only, so the State keeps it until those change (State.copy drops it)."""
        matter = self._matter
        if matter is None or not matter._can_realize_forward():
            return None
        gravity = None
        for ss in self._subsystems:
            if ss is matter:
                continue
            offered = getattr(ss, "_forward_gravity", None)
            g = offered(state) if offered is not None else None
            if g is None or (gravity is not None and g.any() and gravity.any()):
                return None
            if gravity is None or g.any():
                gravity = g
        return matter._forward_call(state, gravity if gravity is not None else np.zeros(3))

    def _force_subsystems(self):
        return [ss for ss in self._subsystems if hasattr(ss, "calc_potential_energy")
                and ss is not self._matter]

    def calc_kinetic_energy(self, state) -> float:
        """Kinetic energy of all bodies (J); needs VELOCITY."""
        return self.get_matter_subsystem().calc_kinetic_energy(state)

    def calc_potential_energy(self, state) -> float:
        """Sum of every force subsystem's potential energy (J); needs DYNAMICS."""
        self.require_stage(state, Stage.DYNAMICS, "MultibodySystem.calc_potential_energy")
        return float(sum(fs.calc_potential_energy(state) for fs in self._force_subsystems()))

    def calc_energy(self, state) -> float:
        """Kinetic plus potential energy (J); needs DYNAMICS."""
        return self.calc_kinetic_energy(state) + self.calc_potential_energy(state)
