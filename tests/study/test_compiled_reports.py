"""simulate's reports taken in compiled code (engine/reports.py) are those Python takes,
bit for bit: at step ends and interpolated inside steps, the energy column included, for
a fixed step, error-controlled steps and a muscle-driven model; a run that diverges stops
with the same error and reports; a model whose reports Python must see takes them in
Python."""

import warnings
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
import kinetree.engine.reports as reports
from kinetree.errors import SimulationError
from kinetree.io import load_osim

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


def chain(n=5):
    """A chain of n pins under gravity with a spring at its first joint."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0.1, 0, 0], kt.Inertia(0.02, 0.03, 0.04)))
    parent = matter.Ground()
    for _ in range(n):
        parent = kt.MobilizedBody.Pin(parent, kt.Transform([0, -0.4, 0]), body,
                                      kt.Transform())
    spring = kt.Force.MobilityLinearSpring(forces, matter.get_mobilized_body(1), 0, 30.0, 0.2)
    state = system.realize_topology()
    state.set_q(np.linspace(0.5, -0.3, n))
    return system, state, spring


class Counted:
    """CompiledReports.take, counted; or, with ``allowed`` False, no compiled reports."""

    def __init__(self, monkeypatch, allowed=True):
        self.calls = 0
        take = reports.CompiledReports.take

        def counted(fast, *args):
            self.calls += 1
            return take(fast, *args)
        monkeypatch.setattr(reports.CompiledReports, "take", counted)
        if not allowed:
            monkeypatch.setattr(reports.CompiledReports, "for_run",
                                classmethod(lambda cls, *args: None))


def both(monkeypatch, run):
    """(``run()`` with Python's reports, ``run()`` with compiled ones, compiled calls)."""
    with monkeypatch.context() as m:
        Counted(m, allowed=False)
        python = run()
    with monkeypatch.context() as m:
        compiled = Counted(m)
        fast = run()
    return python, fast, compiled.calls


def assert_identical(a, b):
    for name in ("t", "q", "u", "z"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes(), name
    assert a.columns["energy"].tobytes() == b.columns["energy"].tobytes()
    assert a.stats["steps_taken"] == b.stats["steps_taken"]
    assert a.stats["realizations"] == b.stats["realizations"]
    assert a.states()[-1].get_y().tobytes() == b.states()[-1].get_y().tobytes()


@pytest.mark.parametrize("settings", [
    dict(integrator="RungeKutta4", fixed_step_size=1e-3),            # reports at step ends
    dict(accuracy=1e-6),                                             # inside steps
    dict(accuracy=1e-3, report_interval=0.0137),
    dict(integrator="RungeKuttaFeldberg", accuracy=1e-5, report_interval=0.003),
], ids=["rk4-fixed", "merson", "merson-odd-interval", "feldberg"])
def test_compiled_reports_are_pythons_bit_for_bit(monkeypatch, settings):
    system, state, _ = chain()
    python, fast, calls = both(monkeypatch, lambda: kt.simulate(
        system, state, 1.0, progress=False, **settings))
    assert calls > 0
    assert_identical(python, fast)


def test_a_model_of_many_force_elements_reports_the_same_energy(monkeypatch):
    """More than eight potential energies: numpy sums those pairwise, and the compiled
    reports' energy must still be calc_potential_energy's to the last bit."""
    system, state, _ = chain()
    forces = next(system.get_subsystem(i) for i in range(system.get_num_subsystems())
                  if isinstance(system.get_subsystem(i), kt.GeneralForceSubsystem))
    matter = system.get_matter_subsystem()
    for b in range(1, 6):
        kt.Force.MobilityLinearSpring(forces, matter.get_mobilized_body(b), 0, 3.0 * b, 0.1)
        kt.Force.MobilityLinearDamper(forces, matter.get_mobilized_body(b), 0, 0.01)
    state = system.realize_topology()
    state.set_q(np.linspace(0.5, -0.3, 5))
    python, fast, calls = both(monkeypatch, lambda: kt.simulate(
        system, state, 1.0, accuracy=1e-6, progress=False))
    assert calls > 0
    assert_identical(python, fast)


def test_a_muscle_driven_model_reports_the_same(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_osim(MODELS / "gait10dof18musc.osim")
    state = model.get_default_state()
    model.equilibrate_muscles(state)
    python, fast, calls = both(monkeypatch, lambda: kt.simulate(
        model.system, state, 0.05, accuracy=1e-5, progress=False))
    assert calls > 0
    assert_identical(python, fast)


def test_a_diverging_run_stops_with_the_same_error_and_reports(monkeypatch):
    system, state, spring = chain()
    spring.set_stiffness(state, 1e9)

    def run():
        with pytest.raises(SimulationError) as caught:
            kt.simulate(system, state, 0.5, progress=False, integrator="RungeKutta4",
                        fixed_step_size=1e-3, report_interval=1e-3)
        return caught.value

    python, fast, calls = both(monkeypatch, run)
    assert calls > 0
    assert str(python) == str(fast)
    assert python.trajectory.q.tobytes() == fast.trajectory.q.tobytes()
    assert python.state.get_y().tobytes() == fast.state.get_y().tobytes()


def test_reports_python_must_see_are_taken_in_python(monkeypatch):
    system, state, _ = chain()
    kt.Constraint.Rod(system.get_matter_subsystem().Ground(), [0.3, -0.5, 0],
                      system.get_matter_subsystem().get_mobilized_body(2), [0, 0, 0], 0.5)
    counted = Counted(monkeypatch)
    closed = system.realize_topology()
    kt.Assembler(system).assemble(closed)
    kt.simulate(system, closed, 0.1, progress=False)          # projected after each step
    seen = []

    class Reporter(kt.PeriodicEventReporter):
        def handle_event(self, s):
            seen.append(s.get_time())

    plain, plain_state, _ = chain()
    plain.add_event_reporter(Reporter(0.05))
    kt.simulate(plain, plain_state, 0.2, progress=False)
    assert counted.calls == 0
    assert len(seen) == 5


def test_compiled_reports_come_back_to_python_between_reports_of_a_long_run(monkeypatch):
    """A run of more than WORK_PER_CALL body realizations returns to Python on the way
    (where an interrupt is seen), then goes on: one body, a million realizations."""
    system, state, _ = chain(n=1)
    counted = Counted(monkeypatch)
    traj = kt.simulate(system, state, 2.6, integrator="RungeKutta4", fixed_step_size=1e-5,
                       report_interval=0.01, progress=False)
    assert traj.stats["realizations"] > reports.WORK_PER_CALL // 2
    assert counted.calls >= 2
    assert traj.t[-1] == 2.6 and len(traj) == 261


@pytest.mark.parametrize("n", [0, 1, 2, 7, 8, 9, 15, 16, 23, 127, 128, 300])
def test_row_sums_are_numpys_sums_of_each_row_alone(n):
    """The energy column's sums of many reports' potential energies at once equal numpy's
    sum of each report's alone, bit for bit, across numpy's summation orders (in turn,
    eight running sums, halves), -0.0 included."""
    rng = np.random.default_rng(n)
    a = rng.standard_normal((40, n)) * 10.0 ** rng.integers(-8, 9, size=(40, n))
    if n:
        a[0] = -0.0
    alone = np.array([row.sum() for row in a])
    assert reports.row_sums(a).tobytes() == alone.tobytes()
