"""RealizationPlan: how a MultibodySystem realizes one State from TIME on.

At each change of the State's Instance stage the plan sorts the work of every stage into
what compiled code does (the matter subsystem's tree and one GeneralForceSubsystem's force
table: ``forward.realize_stages``) and the Python that must run around it, in the
System's realization order:

- a built-in subsystem (an ``EnginePart``, ``data.py``) contributes the fields of the
  compiled realization's model and data it owns (``engine_fields``) and the Python it
  still needs around the compiled call (``engine_python``: custom mobilizers'
  pre-passes, Python constraints, Force.Custom elements);
- any other subsystem, and a built-in one whose class overrides a realize hook, has its
  hooks called as System.realize would, so every hook a user writes is honored;
- the measures a subsystem adopted do their stage's work after the subsystem's.

A request to realize up to some stage then becomes a short list of actions in which
consecutive stages with no Python between them share one compiled call: a model made of
built-in elements goes from TIME to ACCELERATION in a single call.
"""

from __future__ import annotations

import functools

from kinetree.actuators.subsystem import ActuatorSubsystem
from kinetree.contact.compliant import CompliantContactSubsystem
from kinetree.contact.elastic_foundation_force import ElasticFoundationForce
from kinetree.contact.general import ContactSetForce, GeneralContactSubsystem
from kinetree.contact.tracker import ContactTrackerSubsystem
from kinetree.engine import project
from kinetree.engine.data import assemble
from kinetree.engine.entry import entry_point
from kinetree.engine.forward import (
    INCONSISTENT,
    NONFINITE,
    OVERFLOW,
    ZERO_QUATERNION,
    realization_of,
    realize,
)
from kinetree.engine.kinds import Kinds
from kinetree.forces.general import GeneralForceSubsystem
from kinetree.multibody.matter import SimbodyMatterSubsystem
from kinetree.registry import CONTACT
from kinetree.system.stage import STAGES, Stage
from kinetree.system.subsystem import Subsystem
from kinetree.system.threads import enter, leave, refuse_if_in_use

_HOOKS = {g: f"realize_{g.name.lower()}" for g in STAGES[Stage.TIME:Stage.REPORT + 1]}
_COMPILED = range(int(Stage.POSITION), int(Stage.ACCELERATION) + 1)
_KERNEL, _CALL, _STAGE = 0, 1, 2
"""The kinds of action of a plan, a list of them. A plan of one compiled call and nothing
else is instead a tuple (first, last, the Stage then reached)."""


def _keeps_hooks(subsystem, built_in: type) -> bool:
    """Whether ``subsystem`` realizes with ``built_in``'s own hooks (none overridden)."""
    return isinstance(subsystem, built_in) and all(
        getattr(type(subsystem), hook) is getattr(built_in, hook) for hook in _HOOKS.values())


def _hooks_and_measures(subsystem) -> dict:
    """{stage: [work]}: the realize hooks ``subsystem`` overrides from TIME on, each
    followed by its measures' work of that stage in one call (the part is marked realized
    after the call)."""
    work = {g: [getattr(subsystem, hook)] for g, hook in _HOOKS.items()
            if getattr(type(subsystem), hook) is not getattr(Subsystem, hook)}
    for g, (measures,) in subsystem._measure_work().items():
        work[g] = [_then(work[g][0], measures) if g in work else measures]
    return work


def _then(first, second):
    def both(state):
        first(state)
        second(state)
    return both


class RealizationPlan:
    """The realization of one State from TIME on, valid while its Instance-stage
    variables are unchanged (``version``)."""

    def __init__(self, system, state):
        self.version = state._instance_version
        self._before = {g: [] for g in _HOOKS}     # stage -> [(part, work)]
        self._after = {g: [] for g in _HOOKS}
        # _actions[stage][target]: how to realize from ``stage`` (the State's, INSTANCE or
        # beyond) through ``target``, made on first use (``_plan``).
        self._actions: list[list] = [[None] * len(STAGES) for _ in STAGES]
        self._system = system
        matter = system._matter
        compiled = matter is not None and _keeps_hooks(matter, SimbodyMatterSubsystem)
        subsystems = [system._subsystems[i] for i in system._order]
        # The one contact search compiled: the first tracker or general contact subsystem
        # keeping its own hooks.
        search = next((ss for ss in subsystems if _keeps_hooks(ss, ContactTrackerSubsystem)
                        or _keeps_hooks(ss, GeneralContactSubsystem)), None) \
            if compiled else None
        forces = compliant = actuators = None
        contact_set_forces = frozenset()
        self._compiled_parts = []
        fields = {}
        for i in system._order:
            ss = system._subsystems[i]
            if compiled and ss is matter:
                self._add(i, *matter.engine_python(state))
            elif compiled and forces is None and _keeps_hooks(ss, GeneralForceSubsystem):
                forces = ss
                contact_set_forces = _compiled_contact_set_forces(ss, search)
                self._add(i, *ss.engine_python(state, contact_set_forces))
            elif ss is search:
                self._add(i, *ss.engine_python(state))
            elif compiled and actuators is None and _keeps_hooks(ss, ActuatorSubsystem):
                actuators = ss
                self._add(i, *ss.engine_python(state))
            elif (compiled and compliant is None and search is not None
                  and _keeps_hooks(ss, CompliantContactSubsystem)
                  and ss.get_contact_tracker_subsystem() is search):
                compliant = ss
                self._add(i, *ss.engine_python(state))
            else:
                self._add(i, {}, _hooks_and_measures(ss))
                continue
            fields.update(ss.engine_fields(state))
            self._compiled_parts.append(i)
            self._add(i, {}, ss._measure_work())
        self.model = self.data = self.realization = None
        if compiled:
            if search is not None:
                fields["contact_kinds"] = _contact_kinds(forces, compliant, contact_set_forces)
                self._search = search
            self.model, self.data = assemble(fields)
            self.realization, self.realize_address = realization_of(self.model, self.data)
            self._realize = entry_point(realize, (0, 0, 0.0, self.realization))
            self._matter = matter
        # A model with constraints may meet ones without a solution: Python warns then.
        self._constrained = compiled and self.model.con_i.shape[0] > 0

    @functools.cached_property
    def project_steps(self):
        """The projection (``project.project_steps``) of this plan's model and data,
        called without numba's dispatch (``project.steps_entry``)."""
        return project.steps_entry(self.model, self.data)

    def _add(self, part: int, before: dict, after: dict) -> None:
        for g, works in before.items():
            self._before[g] += [(part, work) for work in works]
        for g, works in after.items():
            self._after[g] += [(part, work) for work in works]

    def _plan(self, start: int, target: int) -> list:
        """The actions realizing stages ``start``..``target``: compiled calls over runs of
        stages, Python calls, and the marks of each stage done."""
        actions = []
        for g in range(start, target + 1):
            actions += [(_CALL, g, part, work, False, True) for part, work in self._before[g]]
            if self.realization is not None and g in _COMPILED:
                if len(actions) >= 2 and actions[-2][0] == _KERNEL and actions[-2][2] == g - 1:
                    actions.pop()                       # the mark of stage g - 1
                    actions[-1] = (_KERNEL, actions[-1][1], g)
                else:
                    actions.append((_KERNEL, g, g))
            # A compiled part's own Python follows its compiled call, which marked it.
            actions += [(_CALL, g, part, work, True, part not in self._compiled_parts)
                        for part, work in self._after[g]]
            actions.append((_STAGE, STAGES[g]))
        return actions

    def _compiled_call(self, state, first: int, last: int, target: int) -> bool:
        """Realize stages ``first``..``last`` in compiled code; False if the call had to
        stop (``_stopped``)."""
        failed = self._realize(first, last, state._t, self.realization)
        if failed:
            self._stopped(state, failed, target)
        return not failed

    def _stopped(self, state, failed: int, target: int) -> None:
        """A compiled call returned ``failed``: if the contact search outgrew its buffers,
        grow them (dropping this plan, bound to the old ones) and realize ``state``
        through ``target`` again from where it is; else raise (``failure_error``)."""
        if failed != OVERFLOW:
            raise self.failure_error(state, failed)
        self._search._grow(state)
        self._system.realize(state, STAGES[target])

    def failure_error(self, state, failed: int) -> Exception:
        """The error for a compiled realization of ``state`` that returned ``failed``
        (``forward.realize_stages``' codes but OVERFLOW), naming the body or constraint
        at fault."""
        matter = self._matter
        if failed == NONFINITE:
            return matter._nonfinite_error(state, self.data)
        if failed == INCONSISTENT:
            return matter._inconsistent_error(state)
        if failed == ZERO_QUATERNION:
            return matter._zero_quaternion_error(state)
        return matter._singular_error(matter.get_tree_data(state, Stage.MODEL, "realize"),
                                      state)

    @staticmethod
    def mark_realized(state, stage) -> None:
        """Mark ``state`` realized through ``stage`` (a Stage): every part that had not
        got there has, and nothing else is owed on the way."""
        for part in state._parts:
            if part.stage < stage:
                part.stage = stage
        state._stage = stage

    def run(self, state, target: int) -> None:
        """Realize ``state`` (at INSTANCE or beyond) through ``target``."""
        actions = self._actions[state._stage][target]
        if actions is None:
            actions = self._plan(state._stage + 1, target)
            if len(actions) == 2 and actions[0][0] == _KERNEL:
                actions = (actions[0][1], actions[0][2], actions[1][1])
            self._actions[state._stage][target] = actions
        parts = state._parts
        if type(actions) is tuple:
            # Only built-in elements from here to the target: one call (holding the GIL),
            # then the marks.
            if state._user is not None:
                refuse_if_in_use(state, "This State")
            first, last, stage = actions
            failed = self._realize(first, last, state._t, self.realization)
            if failed:
                self._stopped(state, failed, target)
                return
            for part in parts:
                if part.stage < stage:
                    part.stage = stage
            state._stage = stage
            if self._constrained:
                self._matter._warn_if_inconsistent(state)
            return
        enter(state, "This State")
        try:
            self._run_actions(state, actions, target)
        finally:
            leave(state)
        if self._constrained:
            self._matter._warn_if_inconsistent(state)

    def _run_actions(self, state, actions: list, target: int) -> None:
        """The actions of a plan with Python in it, in turn."""
        parts = state._parts
        try:
            for action in actions:
                kind = action[0]
                if kind == _KERNEL:
                    if not self._compiled_call(state, action[1], action[2], target):
                        return
                    # The stages the call covered are done for every part but the
                    # last, which the Python that follows may still owe.
                    before_last = STAGES[action[2] - 1]
                    for part in parts:
                        if part.stage < before_last:
                            part.stage = before_last
                    for i in self._compiled_parts:
                        parts[i].stage = STAGES[action[2]]
                elif kind == _CALL:
                    _, g, i, work, mark, check = action
                    if not check or parts[i].stage < g:
                        state._realizing = STAGES[g]
                        work(state)
                        if mark:
                            parts[i].stage = STAGES[g]
                else:
                    self.mark_realized(state, action[1])
        finally:
            state._realizing = None


def _contact_kinds(forces, compliant, contact_set_forces) -> Kinds:
    """The contact parts of a compiled realization with a contact search: the search, the
    compliant model of CompliantContactSubsystem ``compliant`` (None if none), and the
    kinds of the elements of GeneralForceSubsystem ``forces`` at ``contact_set_forces``."""
    codes = {CONTACT["collision"]} | {forces._forces[k].CODE for k in contact_set_forces}
    if compliant is not None:
        codes.add(CONTACT["compliant"])
    return Kinds("contact", codes)


def _compiled_contact_set_forces(forces, search) -> frozenset:
    """The indices in GeneralForceSubsystem ``forces`` of the HuntCrossleyForce and
    ElasticFoundationForce elements the compiled realization applies with ``search``'s
    contacts: all of those on it, or none. None when some are elsewhere (the compiled
    call applies every enabled one), when two of one kind share a contact set (their
    parameters share the rows of the surfaces), or when elastic foundations meet springs
    the Python pass finds (a mesh against a mesh or an ellipsoid)."""
    mine = [f for f in forces._forces if isinstance(f, ContactSetForce) and f._contacts is search]
    if not mine:
        return frozenset()
    on_search = getattr(search, "_contact_forces", ())
    kinds_and_sets = [(type(f), f.get_contact_set_index()) for f in mine]
    if (len(mine) != len(on_search) or len(set(kinds_and_sets)) != len(kinds_and_sets)
            or (search._has_python_kinds
                and any(isinstance(f, ElasticFoundationForce) for f in mine))):
        return frozenset()
    return frozenset(k for k, f in enumerate(forces._forces) if f in mine)

