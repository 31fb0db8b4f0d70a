"""Checkpoints (study/checkpoint.py): a run saved part-way and resumed by a new TimeStepper
takes the same steps as the run that never stopped, bit for bit, for every integrator,
with events on the way; the file is checked before it is used."""

import numpy as np
import pytest
from support import INTEGRATOR_IDS, INTEGRATORS, world

import kinetree as kt
from kinetree.errors import StateMismatchError


class Spring(kt.Force.Custom.Implementation):
    """A spring on the first mobility, in Python (the integrators step in Python)."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] -= 2.0 * state.get_q()[0]


def double_pendulum(python_force, extra=None):
    system, matter, forces, body = world()
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    lower = kt.MobilizedBody.Ball(upper, kt.Transform([0, -1, 0]), body, kt.Transform())
    if python_force:
        kt.Force.Custom(forces, Spring())
    else:
        kt.Force.MobilityLinearSpring(forces, upper, 0, 2.0, 0.0)
    if extra is not None:
        kt.Force.Custom(forces, extra)
    system.add_event_handler(Kick(0.037))
    state = system.realize_topology()
    upper.set_one_q(state, 0, 1.2)
    lower.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_x(0.4), [0, 0, 0]))
    lower.set_u(state, [0.5, -0.3, 0.2])
    return system, state


class Kick(kt.PeriodicEventHandler):
    """Every ``interval`` s, a push on the upper pendulum."""

    def handle_event(self, state, accuracy):
        state.upd_u()[0] += 0.1
        return False


REPORTS = np.linspace(0.0125, 0.2, 16)


def stepper(system, integrator, fixed):
    integ = integrator(system, fixed) if fixed else integrator(system)
    if not fixed:
        integ.set_accuracy(1e-6)
    return kt.TimeStepper(system, integ)


@pytest.mark.parametrize("python_force", [True, False], ids=["python", "compiled"])
@pytest.mark.parametrize("integrator,fixed", INTEGRATORS, ids=INTEGRATOR_IDS)
def test_a_resumed_run_takes_the_same_steps_bit_for_bit(tmp_path, integrator, fixed,
                                                        python_force):
    system, state = double_pendulum(python_force)
    whole = stepper(system, integrator, fixed)
    whole.initialize(state)
    expected = []
    for t in REPORTS:
        whole.step_to(t)
        expected.append(whole.get_state().get_y().copy())

    first = stepper(system, integrator, fixed)
    first.initialize(state)
    for t in REPORTS[:7]:
        first.step_to(t)
    path = tmp_path / "run.npz"
    first.save_checkpoint(path)
    resumed = stepper(system, integrator, fixed)
    resumed.load_checkpoint(path)
    assert resumed.get_time() == REPORTS[6]
    assert resumed.get_state().get_y().tobytes() == expected[6].tobytes()
    for t, y in zip(REPORTS[7:], expected[7:]):
        resumed.step_to(t)
        assert resumed.get_state().get_y().tobytes() == y.tobytes(), t
    integ, reference = resumed.get_integrator(), whole.get_integrator()
    assert integ.get_num_steps_taken() == reference.get_num_steps_taken()
    assert integ.get_predicted_next_step_size() == reference.get_predicted_next_step_size()


def test_a_checkpoint_is_refused_by_another_integrator_or_system(tmp_path):
    system, state = double_pendulum(False)
    saving = stepper(system, kt.RungeKuttaMersonIntegrator, None)
    saving.initialize(state)
    saving.step_to(0.05)
    path = tmp_path / "run.npz"
    saving.save_checkpoint(path)
    with pytest.raises(StateMismatchError, match="RungeKuttaMersonIntegrator"):
        stepper(system, kt.VerletIntegrator, None).load_checkpoint(path)
    other, _ = double_pendulum(True)
    with pytest.raises(StateMismatchError, match="different topology"):
        stepper(other, kt.RungeKuttaMersonIntegrator, None).load_checkpoint(path)
    state.save(tmp_path / "state.npz")
    with pytest.raises(StateMismatchError, match="not a kinetree Checkpoint file"):
        stepper(system, kt.RungeKuttaMersonIntegrator, None).load_checkpoint(
            tmp_path / "state.npz")


class Fuse(kt.Force.Custom.Implementation):
    """The Python spring, which fails once t passes 0.1 s until it is ``repaired``."""

    repaired = False

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        if state.get_time() > 0.1 and not self.repaired:
            raise RuntimeError("the spring broke")
        mobility_forces[0] -= 2.0 * state.get_q()[0]


def test_simulate_resumes_from_its_last_checkpoint(tmp_path):
    fuse = Fuse()
    system, state = double_pendulum(False, fuse)
    fuse.repaired = True
    whole = kt.simulate(system, state, 0.2, report_interval=0.01, progress=False)
    fuse.repaired = False
    path = tmp_path / "run.npz"
    with pytest.raises(kt.errors.SimulationError) as caught:
        kt.simulate(system, state, 0.2, report_interval=0.01, checkpoint=path,
                    progress=False)
    assert 0 < caught.value.time < 0.2
    fuse.repaired = True
    rest = kt.simulate(system, None, 0.2, report_interval=0.01, resume=path, progress=False)
    assert rest.t[0] == caught.value.trajectory.t[-1]
    assert rest.q[-1].tobytes() == whole.q[-1].tobytes()
    assert rest.u[-1].tobytes() == whole.u[-1].tobytes()
