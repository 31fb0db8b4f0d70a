"""run_reports: a simulation's reports taken in compiled code, between its runs of steps.

``simulate`` records y and the energy at every report time. Done in Python, each report
is a return from the compiled run of steps and some fifteen microseconds of Python: a
tenth of a small model's run, and in an ensemble's threads each return waits for the GIL.
Where nothing in Python needs to see a report (no event handlers, reporters or triggers,
no outputs but the energy; a model of built-in elements whose potential energy is its
force elements' alone, without constraints or quaternions, so that an interpolated
report is not projected), ``run_reports`` takes the runs of steps between reports and the
reports themselves in one compiled call, with the GIL released. Its numbers are those
of the Python reports, bit for bit: y at a step's end; inside a step the integrator's
cubic Hermite interpolation, written in the same operations as ``Integrator._interpolate``,
realized on the interpolated State's arrays; the kinetic energy by the same kernel, and
the force elements' potential energies, which ``simulate`` sums as the force subsystem
does.
"""

import numba
import numpy as np

from kinetree.engine.entry import call_native, native_address
from kinetree.engine.forward import ACCELERATION, POSITION
from kinetree.engine.step import _compiled_throughout, run_steps, undefer_qdotdot
from kinetree.integrators.step_control import (
    H_NEXT,
    REALIZATIONS,
    STEP_LIMIT,
    T0,
    T1,
    T_REPORT,
    T_STOP,
    WORK_PER_CALL,
)
from kinetree.jit import helper
from kinetree.multibody.kernels.energy import kinetic_energy
from kinetree.multibody.kernels.small import copy_vector as _copy

REACHED, STEPPING, RUN_FAILED, REPORT_FAILED, NEED_OTHER = 0, 1, 2, 3, 4
"""What stopped run_reports: every report it was asked for is made (REACHED); it returned
between runs of steps so that Python may look in (STEPPING); a run of steps failed, or
the realization of an interpolated report did (with the failure's code); a report falls
inside a step and the interpolated State is not made yet (NEED_OTHER)."""


@helper
def _hermite(t, t0, t1, y0, ydot0, y1, ydot1, out):
    """y(t) inside the step [t0, t1] by cubic Hermite interpolation of its ends into
    ``out``: Integrator._interpolate's operations, in its order."""
    h = t1 - t0
    if h <= 0:
        for i in range(out.shape[0]):
            out[i] = y1[i]
        return
    s = (t - t0) / h
    r = 1 - s
    h00 = (1 + 2 * s) * (r * r)
    h10 = s * (r * r)
    h01 = s * s * (3 - 2 * s)
    h11 = s * s * (s - 1)
    a, b = h * h10, h * h11
    for i in range(out.shape[0]):
        v = y0[i] * h00
        v = v + a * ydot0[i]
        v = v + h01 * y1[i]
        out[i] = v + b * ydot1[i]


@helper
def _record(model, data, k, kinetic, potential):
    """The energies of the State realized in ``model`` and ``data`` as report ``k``'s:
    the kinetic energy and the force elements' potential energies."""
    kinetic[k] = kinetic_energy(model.tree_i, model.tree_f, model.mobilizer_kinds,
                                data.buf, data.status)
    for i in range(potential.shape[1]):
        potential[k, i] = data.force_pe[i]


@numba.njit(cache=True, nogil=True)
def run_reports(run, steps, other, other_made, times, k, t_stop, t_rows, rows, kinetic,
                potential):
    """Reports ``k`` up to the last but one of ``times`` (s): for each, steps of ``run``
    (the compiled ``run_steps`` at address ``steps``) toward ``t_stop`` until its time is
    reached or passed, then the State's time into ``t_rows[k]``, its y into ``rows[k]``
    and its energies into ``kinetic[k]`` and ``potential[k]``; a report inside the last
    step is interpolated and realized on ``other`` (the interpolated State's
    Realization, if ``other_made``; else it stops there, NEED_OTHER). Returns (the next
    report, what stopped it, a failure's code or 0)."""
    return _run_reports(run, steps, run.control_f, run.control_i, run.work, run.model,
                        run.data, other.model, other.data, other.address, other_made, times,
                        k, t_stop, t_rows, rows, kinetic, potential)


@numba.njit(cache=True, nogil=True, _nrt=False)
def _run_reports(run, steps, control_f, control_i, work, model, data, other_model,
                 other_data, other_address, other_made, times, k, t_stop, t_rows, rows,
                 kinetic, potential):
    """run_reports on the fields of ``run`` and ``other`` (Realization), compiled without
    reference counting as ``step._run_steps`` is."""
    y0, ydot0, y1, ydot1 = work[0], work[1], work[2], work[3]
    last = times.shape[0] - 1
    nq, nu = other_data.q.shape[0], other_data.u.shape[0]
    # As a run of steps does, return between reports once about WORK_PER_CALL body
    # realizations are done, so that Python may look in (an interrupt, the clock).
    budget = WORK_PER_CALL // max(1, model.tree_i.shape[0])
    realizations_end = control_i[REALIZATIONS] + budget
    interpolated = 0
    start = k
    while k < last:
        if k > start and control_i[REALIZATIONS] + interpolated >= realizations_end:
            return k, STEPPING, 0
        target = times[k]
        t1 = control_f[T1]
        tol = 1e-14 * max(1.0, abs(t1))
        if target < t1 - tol:
            if not other_made:
                return k, NEED_OTHER, 0
            row = rows[k]
            _hermite(target, control_f[T0], t1, y0, ydot0, y1, ydot1, row)
            other_data.time[0] = target
            _copy(row[:nq], other_data.q)
            _copy(row[nq:nq + nu], other_data.u)
            _copy(row[nq + nu:], other_data.z)
            failed = call_native(other_address, POSITION, ACCELERATION, other_model,
                                 other_data)
            if failed != 0:
                return k, REPORT_FAILED, failed
            _record(other_model, other_data, k, kinetic, potential)
            t_rows[k] = target
            interpolated += 1
            k += 1
            continue
        if target - t1 <= tol:
            _copy(y1, rows[k])
            _record(model, data, k, kinetic, potential)
            t_rows[k] = t1
            k += 1
            continue
        control_f[T_STOP], control_f[T_REPORT] = t_stop, target
        control_i[STEP_LIMIT] = 0
        failed = call_native(steps, run)
        if failed != 0:
            return k, RUN_FAILED, failed
        if control_f[T1] < target - 1e-14 * max(1.0, abs(control_f[T1])):
            return k, STEPPING, 0
    return k, REACHED, 0


class CompiledReports:
    """``simulate``'s reports of one run taken by ``run_reports``, where they may be
    (module docstring): made by ``for_run``, or None where Python must see the reports."""

    def __init__(self, system, integrator, forces, entry, plan, count: int):
        self._system, self._integ = system, integrator
        self._run, self._steps = entry
        # The interpolated State's realization, once a report inside a step needs it;
        # until then the advanced State's stands in, unused.
        self._other, self._other_made = plan.realization, False
        state = integrator._advanced
        self._enabled = state._part_of(forces, "simulate").cache[
            forces._enabled_rows_index].value[0]
        nf = plan.data.force_pe.shape[0]
        self._kinetic, self._potential = np.zeros(count), np.zeros((count, nf))

    @classmethod
    def for_run(cls, system, integrator, stepper, outputs: dict, count: int):
        """The compiled reports of a ``simulate`` run driving ``stepper`` (a TimeStepper
        of ``integrator``) with these ``outputs``, once its compiled run of steps is
        under way; None if a report needs Python or the run is not compiled."""
        from kinetree.forces.general import GeneralForceSubsystem
        from kinetree.integrators.integrator import Integrator
        from kinetree.multibody.matter import SimbodyMatterSubsystem
        from kinetree.multibody.multibody_system import MultibodySystem

        integ = integrator
        if (not cls.ready(integ)
                or list(outputs) != ["energy"] or outputs["energy"] != system.calc_energy
                or any(getattr(type(system), name) is not getattr(MultibodySystem, name)
                       for name in ("calc_energy", "calc_kinetic_energy",
                                    "calc_potential_energy"))
                or system._event_handlers or system._event_reporters
                or system._scheduling("calc_time_of_next_scheduled_event")
                or system._scheduling("calc_time_of_next_scheduled_report")
                or integ._triggers or integ._return_every_internal_step
                or not integ._allow_interpolation or integ._auto_updates
                or type(integ)._interpolate is not Integrator._interpolate
                or stepper._unhandled is not None or stepper._report_all_significant_states):
            return None
        forces = system._force_subsystems()
        if len(forces) != 1 or type(forces[0]) is not GeneralForceSubsystem \
                or type(system.get_matter_subsystem()).calc_kinetic_energy \
                is not SimbodyMatterSubsystem.calc_kinetic_energy:
            return None
        advanced = integ._advanced
        plan = system._plan_of(advanced)
        if plan.model.con_i.shape[0] or plan.model.quaternion_q.shape[0] \
                or advanced._part_of(forces[0], "simulate").cache[
                    forces[0]._enabled_rows_index].value[1]:
            return None
        run = integ._stepper._entry[2]
        return cls(system, integ, forces[0], (run, native_address(run_steps, (run,))), plan,
                   count)

    @staticmethod
    def ready(integrator) -> bool:
        """Whether ``integrator``'s compiled run of steps is under way (its Run made, its
        first step size chosen): what ``for_run`` takes over."""
        compiled = integrator._stepper if integrator._runs_compiled else None
        return compiled is not None and compiled._entry is not None \
            and not np.isnan(integrator._control_f[H_NEXT])

    def take(self, times, k: int, t_stop: float, t_rows, rows, energy) -> tuple[int, int, int]:
        """Reports ``k`` on of ``times`` into simulate's ``t_rows``, ``rows`` and
        ``energy`` (``run_reports``); returns (the next report, what stopped it, a
        failure's code). The energy is the kinetic energy plus the force elements'
        potential energies, summed as GeneralForceSubsystem.calc_potential_energy and
        MultibodySystem.calc_potential_energy sum them."""
        integ = self._integ
        start = k
        try:
            k, status, code = run_reports(
                self._run, self._steps, self._other, self._other_made, times, k, t_stop,
                t_rows, rows, self._kinetic, self._potential)
        except BaseException:
            undefer_qdotdot(integ._stepper._entry[1])
            raise
        if status == NEED_OTHER and self._make_other():
            status = STEPPING                   # the next call goes on from here
        t1 = integ._control_f.item(T1)
        integ._stepper.mark_realized(t1)
        if k > start:
            # The integrator's current State is the last report's, as after Python's:
            # the interpolated one (whose arrays run_reports wrote) if it was inside a step.
            t_last = float(t_rows[k - 1])
            integ._returned_time = t_last
            integ._is_interpolated = t_last < t1
            if integ._is_interpolated:
                integ._write(integ._interpolated, t_last, rows[k - 1])
        potential = row_sums(self._potential[start:k][:, self._enabled]) + 0
        energy[start:k] = self._kinetic[start:k] + ((0 + potential) + 0.0)
        return k, status, code

    def _make_other(self) -> bool:
        """Make the interpolated State's realization for the reports inside steps; False
        (the report is then Python's) if it is not one compiled call."""
        state = self._integ._interpolated
        other = self._system._plan_of(state)
        if not _compiled_throughout(self._system, state, other):
            return False
        self._other, self._other_made = other.realization, True
        return True


PAIRWISE_BLOCK = 128
"""The length from which numpy's sum of a 1-d array splits it in halves."""


def row_sums(a: np.ndarray) -> np.ndarray:
    """Each row's sum of the 2-d ``a``, bit for bit as numpy sums that row alone (as
    calc_potential_energy sums one State's energies), column by column for all rows at
    once (``a.sum(axis=1)`` adds a short row in another order). numpy adds fewer than 8 numbers in
    turn and up to PAIRWISE_BLOCK in 8 running sums, paired at the end, to 0.0; a row
    longer than that is summed alone."""
    n = a.shape[1]
    if n >= PAIRWISE_BLOCK:
        return np.array([row.sum() for row in a])
    if n < 8:
        total = np.zeros(a.shape[0])
        for j in range(n):
            total = total + a[:, j]
        return 0.0 + total
    r = [a[:, j] for j in range(8)]
    j = 8
    while j + 8 <= n:
        r = [r[i] + a[:, j + i] for i in range(8)]
        j += 8
    total = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    for i in range(j, n):
        total = total + a[:, i]
    return 0.0 + total
