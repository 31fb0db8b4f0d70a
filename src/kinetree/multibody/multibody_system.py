"""MultibodySystem: a System with one SimbodyMatterSubsystem and any force subsystems.

Within each stage the matter subsystem is realized first: forces read body positions and
velocities it computes, and it zeroes the force accumulators the force subsystems then add
into during DYNAMICS.
"""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.forces.force import potential_energy
from kinetree.system.stage import Stage
from kinetree.system.system import System

_INSTANCE = int(Stage.INSTANCE)
_REPORT = Stage.REPORT         # an Enum class's attribute costs ~150 ns to read
_engine = None     # kinetree.engine, imported on first use


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
        """As System.realize. From TIME on, the State's RealizationPlan (engine/plan.py)
        runs the built-in elements of every stage asked for in compiled calls, one call for
        consecutive stages with no user code between them, and every user hook in its
        place: the results are those of the stage-by-stage hooks."""
        if state._system_uid != self._uid or state._topology_version != self._topology_version:
            self._check_state(state, "System.realize")
        target = stage if type(stage) is Stage else Stage.coerce(stage, "System.realize")
        if target > _REPORT:
            raise InvalidArgumentError("System.realize: the highest stage is REPORT.")
        if state._stage >= target:
            return
        plan = state._system_plan
        # A State below INSTANCE was invalidated there since its plan was made, so the
        # plan's version tells both.
        if plan is None or plan.version != state._instance_version:
            if state._stage < _INSTANCE:
                super().realize(state, min(target, Stage.INSTANCE))
                if target <= _INSTANCE:
                    return
            plan = self._plan_of(state)
        plan.run(state, target)

    def _plan_of(self, state):
        """The RealizationPlan of ``state`` (realized to INSTANCE), made if it has none for
        its current Instance-stage variables."""
        plan = state._system_plan
        if plan is None or plan.version != state._instance_version:
            global _engine
            if _engine is None:
                import kinetree.engine.plan
                import kinetree.engine.step
                _engine = kinetree.engine           # the engine sits above this module
            plan = state._system_plan = _engine.plan.RealizationPlan(self, state)
        return plan

    def _compiled_stepper(self, state):
        """A CompiledStepper (engine/step.py) taking an integrator's steps on ``state``
        in compiled code, if its realization allows (a model of built-in elements
        without constraints), else None."""
        self.realize(state, Stage.INSTANCE)
        self._plan_of(state)
        return _engine.step.CompiledStepper.for_state(self, state)

    def _force_subsystems(self):
        return [ss for ss in self._subsystems if hasattr(ss, "calc_potential_energy")
                and ss is not self._matter]

    def calc_kinetic_energy(self, state) -> float:
        """Kinetic energy of all bodies (J); needs VELOCITY."""
        return self.get_matter_subsystem().calc_kinetic_energy(state)

    def calc_potential_energy(self, state) -> float:
        """Sum of every force subsystem's potential energy (J); needs DYNAMICS."""
        self.require_stage(state, Stage.DYNAMICS, "MultibodySystem.calc_potential_energy")
        return sum(potential_energy(fs.calc_potential_energy(state),
                                    f"{fs.get_name()}.calc_potential_energy")
                   for fs in self._force_subsystems()) + 0.0

    def calc_energy(self, state) -> float:
        """Kinetic plus potential energy (J); needs DYNAMICS."""
        return self.calc_kinetic_energy(state) + self.calc_potential_energy(state)

    def get_rigid_body_forces(self, state, stage):
        """The body spatial forces the force subsystems have applied through ``stage``
        (MODEL..DYNAMICS): (bodies x 6), rows [moment about the body origin; force] (N m;
        N, in Ground), Ground's row first; read-only. Every force is applied during
        DYNAMICS, so through an earlier stage they are zero. Needs ``stage``."""
        return self._applied_forces(state, stage, "get_rigid_body_forces")[0]

    def get_mobility_forces(self, state, stage):
        """The generalized forces (one per u, N or N m) the force subsystems have applied
        through ``stage`` (MODEL..DYNAMICS), as ``get_rigid_body_forces``; read-only."""
        return self._applied_forces(state, stage, "get_mobility_forces")[1]

    def _applied_forces(self, state, stage, method: str) -> tuple:
        """(body forces, mobility forces) through ``stage``, read-only."""
        where = f"MultibodySystem.{method}"
        g = Stage.coerce(stage, where)
        if not Stage.MODEL <= g <= Stage.DYNAMICS:
            raise InvalidArgumentError(
                f"{where}: forces are accumulated at stages MODEL through DYNAMICS; got "
                f"{g.name}. Ask for DYNAMICS for all of them.")
        self.require_stage(state, g, where)
        d = self.get_matter_subsystem().get_tree_data(state, Stage.MODEL, where)
        forces = (d.body_forces.view(), d.mobility_forces.view())
        if g < Stage.DYNAMICS:
            forces = (forces[0].copy(), forces[1].copy())
            forces[0].fill(0.0)
            forces[1].fill(0.0)
        for a in forces:
            a.flags.writeable = False
        return forces
