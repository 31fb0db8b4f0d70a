"""GeneralForceSubsystem: a collection of Force elements, each enabled or disabled per
State (an Instance-stage choice).

Its built-in elements are a table the compiled code evaluates (``elements/_table.py``,
``elements/dispatch.py``): the integer rows are fixed at TOPOLOGY, the parameters live in
the State as one Dynamics-stage array, and the rows of the enabled elements are chosen at
INSTANCE. Force.Custom elements run their Python after the table, adding into the same
arrays. The elements with state of their own (``TableForce.STATE_SIZE``) share one
auto-update discrete variable: the compiled realization reads a copy of it, taken as
DYNAMICS begins, and writes the values for the next auto-update and the elements'
reports into arrays of a DYNAMICS cache entry, which Python hands over to the variable's
update value after it: three array copies per realization, whatever the number of
elements. Within a MultibodySystem the table is evaluated inside the one compiled
realization (``engine/forward.py``); ``realize_dynamics`` evaluates it on its own when this
subsystem is realized alone (a second GeneralForceSubsystem, or a subclass that overrides
a hook).
"""

from __future__ import annotations

import numpy as np

from kinetree.engine.kinds import Kinds
from kinetree.errors import InvalidArgumentError, StageTooLowError
from kinetree.forces.elements._table import FORCE_I_COLUMNS, OUT, STATE, TableForce, Z
from kinetree.forces.elements.dispatch import calc_force_elements
from kinetree.forces.force import Force
from kinetree.forces.force_subsystem import ForceSubsystem
from kinetree.system.stage import Stage


class GeneralForceSubsystem(ForceSubsystem):
    """Holds Force elements; in DYNAMICS each enabled one adds its forces."""

    def __init__(self, system):
        self._forces = []
        super().__init__(system, "GeneralForceSubsystem")

    def _adopt_force(self, force) -> int:
        self._forces.append(force)
        self.invalidate_subsystem_topology_cache()
        return len(self._forces) - 1

    def get_num_forces(self) -> int:
        return len(self._forces)

    def get_force(self, index: int):
        try:
            return self._forces[index]
        except (IndexError, TypeError):
            raise InvalidArgumentError(
                f"GeneralForceSubsystem.get_force: no force {index!r}; it has "
                f"{len(self._forces)}.") from None

    def get_topology_description(self) -> str:
        return super().get_topology_description() + "|" + ",".join(
            type(f).__name__ for f in self._forces)

    # ------------------------------------------------------------- layout
    def realize_topology(self, state):
        forces = self._forces
        self._enabled_index = self.allocate_discrete_variable(
            state, Stage.INSTANCE, [not f._disabled_by_default for f in forces])
        force_i = np.zeros((len(forces), FORCE_I_COLUMNS), dtype=np.int64)
        force_i[:, STATE] = force_i[:, OUT] = force_i[:, Z] = -1
        params, at = [], 0
        states, n_state, n_out, n_z = [], 0, 0, 0
        for k, f in enumerate(forces):
            if isinstance(f, TableForce):
                f._lay_out(self._matter())
                force_i[k, :4] = f._row()
                force_i[k, 4] = at
                params.append(f._defaults)
                at += f._defaults.size
                if f.STATE_SIZE:
                    force_i[k, STATE] = n_state
                    states.append(np.asarray(f._default_state(), dtype=float))
                    n_state += f.STATE_SIZE
                if f.OUT_SIZE:
                    force_i[k, OUT] = n_out
                    n_out += f.OUT_SIZE
                if f.Z_SIZE:
                    force_i[k, Z] = n_z
                    n_z += f.Z_SIZE
        # The table's continuous variables: the subsystem's first z (its elements with
        # Python hooks allocate theirs after), so that they are one slice the compiled
        # realization owns.
        self._n_z = n_z
        if n_z:
            first = self.allocate_z(state, np.zeros(n_z))
            force_i[force_i[:, Z] >= 0, Z] += first
        self._force_i = force_i
        # The elements' own state: one auto-update variable (Dynamics stage, its update
        # computed with DYNAMICS), and the arrays the compiled realization reads and fills.
        self._state_index = None if not states else \
            self.allocate_auto_update_discrete_variable(
                state, Stage.DYNAMICS, np.concatenate(states), Stage.DYNAMICS)
        self._work_index = self.allocate_cache_entry(
            state, Stage.DYNAMICS, Stage.DYNAMICS,
            {"time": np.zeros(1), "state": np.zeros(n_state), "next": np.zeros(n_state),
             "out": np.full(n_out, np.nan)})
        self._kinds = Kinds("forces", [force_i[k, 0] for k, f in enumerate(forces)
                                       if isinstance(f, TableForce)])
        self._params_index = self.allocate_discrete_variable(
            state, Stage.DYNAMICS, np.concatenate(params) if params else np.zeros(0))
        self._enabled_rows_index = self.allocate_cache_entry(
            state, Stage.INSTANCE, Stage.INSTANCE, None)
        self._pe_index = self.allocate_cache_entry(
            state, Stage.DYNAMICS, Stage.DYNAMICS, np.zeros(len(forces)))
        self._python = [f for f in forces if not isinstance(f, TableForce)]
        self._with_hooks = {g: [f for f in forces if f._has_hook(g)] for g in Stage
                            if Stage.TOPOLOGY <= g <= Stage.REPORT}
        self._realize_elements(Stage.TOPOLOGY, state)

    def realize_model(self, state):
        tree = self._matter().get_tree_data(state, Stage.MODEL, "GeneralForceSubsystem").tree
        for f in self._forces:
            if isinstance(f, TableForce):
                f._check_model(tree)
        self._realize_elements(Stage.MODEL, state)

    def realize_instance(self, state):
        enabled = self.get_discrete_variable(state, self._enabled_index)
        rows = np.array([k for k, f in enumerate(self._forces)
                         if enabled[k] and isinstance(f, TableForce)], dtype=np.int64)
        python = tuple(k for k, f in enumerate(self._forces)
                       if enabled[k] and not isinstance(f, TableForce))
        self.set_cache_entry(state, self._enabled_rows_index, (rows, python))
        self._realize_elements(Stage.INSTANCE, state)

    # --------------------------------------------------------- realization
    def _realize_elements(self, stage: Stage, state) -> None:
        """Run the stage hooks of the elements that have any (custom forces)."""
        for force in self._with_hooks[stage]:
            force._realize(stage, state)

    def realize_time(self, state):
        self._realize_elements(Stage.TIME, state)

    def realize_position(self, state):
        self._realize_elements(Stage.POSITION, state)

    def realize_velocity(self, state):
        self._realize_elements(Stage.VELOCITY, state)

    def realize_dynamics(self, state):
        d = self._matter().get_tree_data(state, Stage.VELOCITY, "GeneralForceSubsystem")
        matter = self._matter()
        f = self.engine_fields(state)
        work = self._work(state)
        work["time"][0] = state.get_time()
        if self._state_index is not None:
            self._take_state(state)
        calc_force_elements(f["force_kinds"], f["force_rows"], f["force_i"], f["force_f"],
                            d.tree_i, d.tree_f, d.kinds, d.buf, d.status,
                            *matter._kernel_q_u(state), d.body_forces, d.mobility_forces,
                            f["force_pe"], work["time"], f["force_state"], f["force_next"],
                            f["force_out"], f["force_zdot"])
        if self._state_index is not None:
            self._hand_over_state(state)
        self._python_dynamics(state)

    # ----------------------------------------------------- the elements' state
    def _work(self, state) -> dict:
        """The arrays the compiled realization reads the elements' state from and writes
        their next state and reports to (this State's own, fixed at TOPOLOGY)."""
        return state._part_of(self, "GeneralForceSubsystem").cache[self._work_index].value

    def _take_state(self, state) -> None:
        """As DYNAMICS begins: the elements' current state, for the compiled realization
        (the variable itself may have been replaced by an auto-update since), and as their
        next state until they compute it (a disabled element keeps its own)."""
        d = state._discrete(self, self._state_index, "GeneralForceSubsystem")
        work = self._work(state)
        np.copyto(work["state"], d.value)
        np.copyto(work["next"], d.value)

    def _hand_over_state(self, state) -> None:
        """After DYNAMICS: the elements' next state becomes the update value of their
        auto-update variable, marked computed (an integrator installs it as its next step
        begins)."""
        d = state._discrete(self, self._state_index, "GeneralForceSubsystem")
        np.copyto(d.update.value, self._work(state)["next"])
        d.update.version = state._version(d.update.earliest)

    def _element_state(self, state, force) -> np.ndarray:
        """The state of element ``force`` in ``state`` (a read-only view)."""
        self._check(state)
        at = self._force_i[force._index, STATE]
        view = state._discrete(self, self._state_index, "GeneralForceSubsystem").value[
            at:at + force.STATE_SIZE].view()
        view.flags.writeable = False
        return view

    def _set_element_state(self, state, force, first: int, values) -> None:
        """Write the state of element ``force`` from its entry ``first`` on: a change of a
        Dynamics-stage discrete variable (the pending auto-update is dropped)."""
        at = self._force_i[force._index, STATE] + first
        values = np.asarray(values, dtype=float).ravel()
        self.upd_discrete_variable(state, self._state_index)[at:at + values.size] = values

    def _element_results(self, state, force, where: str) -> tuple[np.ndarray, np.ndarray]:
        """(next state, reports) of element ``force`` as the realization of ``state``
        through DYNAMICS left them (read-only views); StageTooLowError before that."""
        self._check(state)
        part = state._part_of(self, "GeneralForceSubsystem")
        if part.stage < Stage.DYNAMICS:
            raise StageTooLowError(Stage.DYNAMICS, part.stage, where)
        if not self.get_discrete_variable(state, self._enabled_index)[force._index]:
            raise InvalidArgumentError(
                f"{where}: the force is disabled in this State, so it computed nothing; "
                f"enable it (force.enable(state)) to have its reports.")
        work = self._work(state)
        k = force._index
        at, out = self._force_i[k, STATE], self._force_i[k, OUT]
        views = (work["next"][at:at + force.STATE_SIZE].view(),
                 work["out"][out:out + force.OUT_SIZE].view())
        for v in views:
            v.flags.writeable = False
        return views

    def _scratch(self, state) -> tuple:
        """(time, state, next state, reports, z derivatives) arrays for evaluating elements
        apart from the realization: the current state, and scratch for what they write."""
        work = self._work(state)
        current = np.zeros(0) if self._state_index is None else \
            state._discrete(self, self._state_index, "GeneralForceSubsystem").value
        return (np.array([state.get_time()]), current, np.zeros(work["next"].size),
                np.zeros(work["out"].size), np.zeros(self._n_z))

    def realize_acceleration(self, state):
        self._realize_elements(Stage.ACCELERATION, state)

    def realize_report(self, state):
        self._realize_elements(Stage.REPORT, state)

    def engine_fields(self, state) -> dict:
        """The force table's fields of the compiled realization's model and data
        (``engine/data.py``): the Kinds of its elements, their integer rows, the enabled
        rows, the parameters, the potential energies DYNAMICS fills (J) and the elements'
        state, reports and continuous variables (the subsystem's first z)."""
        part = state._part_of(self, "GeneralForceSubsystem")
        work = part.cache[self._work_index].value
        z = part.z_slice.start
        return {"force_kinds": self._kinds, "force_i": self._force_i,
                "force_rows": part.cache[self._enabled_rows_index].value[0],
                "force_f": self._params_array(state),
                "force_pe": part.cache[self._pe_index].value,
                "force_state": work["state"], "force_next": work["next"],
                "force_out": work["out"], "force_z_at": z,
                "force_z": state._z[z:z + self._n_z], "force_zdot": state._zdot[z:z + self._n_z]}

    def _params_array(self, state) -> np.ndarray:
        return state._discrete(self, self._params_index, "GeneralForceSubsystem").value

    def _compiled_variables(self) -> tuple:
        return (self._params_index,)

    def _python_dynamics(self, state, compiled_elsewhere=frozenset()) -> None:
        """The Python of DYNAMICS: element hooks, then the enabled Python elements but
        those ``compiled_elsewhere`` (indices of elements whose forces the compiled
        realization applies, such as HuntCrossleyForce with its contact search)."""
        self._realize_elements(Stage.DYNAMICS, state)
        python = state._part_of(self, "GeneralForceSubsystem").cache[
            self._enabled_rows_index].value[1]
        if python:
            d = self._matter().get_tree_data(state, Stage.VELOCITY, "GeneralForceSubsystem")
            for k in python:
                if k not in compiled_elsewhere:
                    try:
                        self._forces[k].calc_force(state, d.body_forces, None,
                                                   d.mobility_forces)
                    except Exception as error:
                        error.add_note(f"raised by force {k} of GeneralForceSubsystem "
                                       f"({type(self._forces[k]).__name__}) at t = "
                                       f"{state.get_time():.17g} s")
                        raise

    def engine_python(self, state, compiled_elsewhere=frozenset()) -> tuple[dict, dict]:
        """(before, after): per stage, the Python this subsystem runs around the compiled
        call when its table is evaluated inside the one compiled realization, but that
        of the elements ``compiled_elsewhere`` (indices of elements whose forces the
        compiled realization applies, such as HuntCrossleyForce with its contact
        search)."""
        work = {g: [lambda s, g=g: self._realize_elements(g, s)]
                for g in (Stage.TIME, Stage.POSITION, Stage.VELOCITY, Stage.ACCELERATION,
                          Stage.REPORT) if self._with_hooks[g]}
        python = [k for k, f in enumerate(self._forces)
                  if not isinstance(f, TableForce) and k not in compiled_elsewhere]
        if self._with_hooks[Stage.DYNAMICS] or python:
            work[Stage.DYNAMICS] = [lambda s: self._python_dynamics(s, compiled_elsewhere)]
        before = {}
        if self._state_index is not None:
            before[Stage.DYNAMICS] = [self._take_state]
            work[Stage.DYNAMICS] = [self._hand_over_state, *work.get(Stage.DYNAMICS, [])]
        return before, work

    def _matter(self):
        return self.get_system().get_matter_subsystem()

    # ------------------------------------------------------------ elements
    def _force_index(self, force, where: str) -> int:
        """The index of ``force``: one of this subsystem's Force elements, or its index."""
        if isinstance(force, Force):
            if force._forces is not self:
                raise InvalidArgumentError(
                    f"GeneralForceSubsystem.{where}: the {type(force).__name__} belongs to "
                    f"another force subsystem.")
            return force._index
        if isinstance(force, (bool, np.bool_)) or not isinstance(force, (int, np.integer)) \
                or not 0 <= force < len(self._forces):
            raise InvalidArgumentError(
                f"GeneralForceSubsystem.{where}: no force {force!r}; give one of its Force "
                f"elements or an index 0..{len(self._forces) - 1}.")
        return int(force)

    upd_force = get_force

    def get_multibody_system(self):
        """The MultibodySystem this subsystem belongs to."""
        return self.get_system()

    def is_force_disabled(self, state, force) -> bool:
        """Whether ``force`` (an element of this subsystem or its index) is disabled in
        ``state``."""
        k = self._force_index(force, "is_force_disabled")
        return not self.get_discrete_variable(state, self._enabled_index)[k]

    def set_force_is_disabled(self, state, force, disabled: bool) -> None:
        """Disable (True) or enable ``force`` (an element or its index) in ``state``; an
        Instance-stage change."""
        k = self._force_index(force, "set_force_is_disabled")
        enabled = list(self.get_discrete_variable(state, self._enabled_index))
        enabled[k] = not disabled
        self.set_discrete_variable(state, self._enabled_index, enabled)

    def calc_force_contributions_sum(self, state, force_indexes, body_forces=None,
                                     mobility_forces=None) -> tuple[np.ndarray, np.ndarray]:
        """The sum of the forces the elements ``force_indexes`` (elements of this
        subsystem or their indices, in any order) would apply if ``state`` were realized
        to DYNAMICS, the disabled ones contributing nothing: (body forces, bodies x 6, rows
        [moment about the body origin; force] in N m and N, in Ground, Ground's row
        first; mobility forces, one per u). ``state`` must be realized far enough for each
        element (POSITION, or VELOCITY for a damper; if unsure, VELOCITY). Arrays given as
        ``body_forces`` and ``mobility_forces`` are zeroed and filled in place, and
        returned."""
        where = "GeneralForceSubsystem.calc_force_contributions_sum"
        if isinstance(force_indexes, (Force, int, np.integer)):
            raise InvalidArgumentError(
                f"{where}: force_indexes must be a list of elements or indices; wrap a single "
                f"one in a list.")
        chosen = [self._force_index(k, "calc_force_contributions_sum") for k in force_indexes]
        enabled = self.get_discrete_variable(state, self._enabled_index)
        chosen = [k for k in chosen if enabled[k]]
        table = [k for k in chosen if isinstance(self._forces[k], TableForce)]
        stage = max((self._forces[k].STAGE for k in table), default=Stage.MODEL)
        matter = self._matter()
        d = matter.get_tree_data(state, stage, where)
        F = self._output(body_forces, d.body_forces.shape, where, "body_forces")
        f = self._output(mobility_forces, d.mobility_forces.shape, where, "mobility_forces")
        if table:
            calc_force_elements(self._kinds, np.array(table, dtype=np.int64), self._force_i,
                                self._params_array(state), d.tree_i, d.tree_f, d.kinds,
                                d.buf, d.status, *matter._kernel_q_u(state), F, f,
                                np.zeros(len(self._forces)), *self._scratch(state))
        for k in chosen:
            if not isinstance(self._forces[k], TableForce):
                self._forces[k].calc_force(state, F, None, f)
        return F, f

    @staticmethod
    def _output(given, shape: tuple, where: str, what: str) -> np.ndarray:
        """A zeroed array of ``shape``: ``given`` (checked) or a new one."""
        if given is None:
            return np.zeros(shape)
        if not isinstance(given, np.ndarray) or given.shape != shape or \
                given.dtype != np.float64 or not given.flags.writeable:
            raise InvalidArgumentError(
                f"{where}: {what} must be a writable float64 array of shape {shape}, or "
                f"None for a new one.")
        given[...] = 0.0
        return given

    _CHECKS_SET_VALUES = True

    def check_loaded_discrete_variable(self, state, index: int, value) -> str | None:
        """As Subsystem's; besides, the element parameters each element's setters keep
        >= 0 (a stiffness, a damping) must be so, and an element's own discrete
        variables within its range (``Force.check_discrete_value``)."""
        why = super().check_loaded_discrete_variable(state, index, value)
        if why is not None:
            return why
        if index == self._state_index:
            for force in self._forces:
                if isinstance(force, TableForce) and force.STATE_SIZE:
                    at = self._force_i[force._index, STATE]
                    why = force.check_state(value[at:at + force.STATE_SIZE])
                    if why is not None:
                        return f"force {force._index} ({type(force).__name__}): {why}"
            return None
        if index != self._params_index:
            return next((why for force in self._forces
                         if (why := force.check_discrete_value(index, value)) is not None),
                        None)
        for force in self._forces:
            if isinstance(force, TableForce):
                at = self._force_i[force._index, 4]
                why = force.check_parameters(value[at:at + force._defaults.size])
                if why is not None:
                    return f"force {force._index} ({type(force).__name__}): {why}"
        return None

    def _element_params(self, state, force) -> np.ndarray:
        """The parameters of table element ``force`` in ``state`` (read-only view)."""
        self._check(state)
        at = self._force_i[force._index, 4]
        view = self._params_array(state)[at:at + force._defaults.size]
        view.flags.writeable = False
        return view

    def _set_element_params(self, state, force, first: int, values, stage: Stage) -> None:
        """Write parameters of ``force`` in place (the compiled realization holds the
        array), backing the State up below ``stage``."""
        self._check(state)
        state.invalidate_all(stage)
        at = self._force_i[force._index, 4] + first
        values = np.asarray(values, dtype=float)
        self._params_array(state)[at:at + values.size] = values

    def _evaluate(self, state, force, stage: Stage) -> tuple[np.ndarray, np.ndarray, float]:
        """(body forces, mobility forces, potential energy) of one table element in
        ``state``, realized to at least ``stage``, whether or not it is enabled."""
        matter = self._matter()
        d = matter.get_tree_data(state, stage, f"Force.{type(force).__name__}")
        F, f = np.zeros_like(d.body_forces), np.zeros_like(d.mobility_forces)
        pe = np.zeros(len(self._forces))
        calc_force_elements(self._kinds, np.array([force._index], dtype=np.int64),
                            self._force_i, self._params_array(state), d.tree_i, d.tree_f,
                            d.kinds, d.buf, d.status, *matter._kernel_q_u(state), F, f,
                            pe, *self._scratch(state))
        return F, f, float(pe[force._index])

    def calc_potential_energy(self, state) -> float:
        """The enabled elements' potential energy (J); needs DYNAMICS."""
        self.get_system().require_stage(state, Stage.DYNAMICS,
                                        "GeneralForceSubsystem.calc_potential_energy")
        cache = state._part_of(self, "GeneralForceSubsystem").cache
        rows, python = cache[self._enabled_rows_index].value
        pe = cache[self._pe_index].value        # realized with DYNAMICS, checked above
        return float(pe[rows].sum()
                     + sum(self._forces[k].calc_potential_energy(state) for k in python))
