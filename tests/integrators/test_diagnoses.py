"""Failures name their true cause: a motion that diverged (a non-finite q or u, which an
error norm would otherwise let through), an Euler-angle mobilizer at its singular angle,
and bodies without mass."""

import math

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import KinetreeError, SimulationDivergedError, SimulationError


def slider(stiffness=1e6, damping=0.0, extra=None):
    """A pendulum carrying a slider on a spring (N/m) and a damper (N s/m); ``extra(forces)``
    adds more forces. By default the spring is far too stiff for a 10 ms explicit step."""
    system, matter, forces, link = world(gravity=(0, -9.8, 0))
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link, kt.Transform())
    slide = kt.MobilizedBody.Slider(pin, kt.Transform(), link, kt.Transform())
    kt.Force.MobilityLinearSpring(forces, slide, 0, stiffness, 0.0)
    if damping:
        kt.Force.MobilityLinearDamper(forces, slide, 0, damping)
    if extra is not None:
        extra(forces)
    state = system.realize_topology()
    slide.set_one_q(state, 0, 0.1)
    pin.set_one_q(state, 0, 0.5)
    return system, state


@pytest.mark.parametrize("integrator", ["ExplicitEuler", "RungeKutta3", "Verlet"])
def test_a_diverging_fixed_step_run_says_it_diverged(integrator):
    system, state = slider()
    with pytest.raises(SimulationError) as caught:
        kt.simulate(system, state, 5.0, integrator=integrator, fixed_step_size=0.01,
                    progress=False)
    assert isinstance(caught.value.__cause__, SimulationDivergedError)
    assert "diverged" in str(caught.value)
    # The last accepted State is finite: nothing non-finite got into it.
    assert np.isfinite(caught.value.state.get_y()).all()


class Broken(kt.Force.Custom.Implementation):
    """A force that turns NaN after 0.05 s (a sensor, a table lookup out of range)."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += math.nan if state.get_time() > 0.05 else 0.0


@pytest.mark.parametrize("integrator", ["RungeKuttaMerson", "RungeKuttaFeldberg",
                                        "SemiExplicitEuler2", "CPodes"])
def test_a_nan_force_under_error_control_is_caught_not_integrated(integrator):
    system, state = slider(extra=lambda forces: kt.Force.Custom(forces, Broken()))
    with pytest.raises(SimulationError) as caught:
        kt.simulate(system, state, 0.2, integrator=integrator, progress=False)
    assert isinstance(caught.value.__cause__, SimulationDivergedError)
    # Stopped at the first step whose stages met the NaN, nothing non-finite accepted.
    assert caught.value.time < 0.06
    assert np.isfinite(caught.value.state.get_y()).all()


def gimbal(q1):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.1, 0.2, 0.3)))
    joint = kt.MobilizedBody.Gimbal(matter.Ground(), kt.Transform(), body, kt.Transform())
    state = system.realize_topology()
    joint.set_q(state, [0.3, q1, -0.2])
    return system, state


def test_gimbal_lock_is_named_with_its_fix():
    system, state = gimbal(0.4)
    system.realize(state, kt.Stage.ACCELERATION)        # away from the singular angle
    system, state = gimbal(np.pi / 2)
    with pytest.raises(KinetreeError, match="gimbal lock.*Ball"):
        system.realize(state, kt.Stage.ACCELERATION)


def test_a_massless_terminal_body_is_named():
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    com = [0, -0.5, 0]
    heavy = kt.Body.Rigid(kt.MassProperties(
        1.0, com, kt.Inertia(0.02).shift_from_mass_center(com, 1.0)))
    massless = kt.Body.Rigid(kt.MassProperties(0.0, [0, 0, 0], kt.Inertia(0.0)))
    upper = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), heavy, kt.Transform())
    kt.MobilizedBody.Pin(upper, kt.Transform([0, -1, 0]), massless, kt.Transform())
    state = system.realize_topology()
    with pytest.raises(KinetreeError, match="MobilizedBody 2 .*no mass"):
        system.realize(state, kt.Stage.ACCELERATION)


@pytest.mark.parametrize("unit", [1.0, 1e3, 1e6, 1e9], ids=["m", "mm", "um", "nm"])
def test_the_singularity_test_does_not_depend_on_the_unit_of_length(unit):
    """A free body expressed in metres, millimetres, micrometres or nanometres: the
    rotational entries of its inertia grow with the square of the unit, the translational
    ones not at all; the same body must be accepted in every unit, with the same motion."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81 * unit, 0])
    com = np.array([0.1, 0.0, 0.0]) * unit
    inertia = kt.Inertia(0.02 * unit**2, 0.03 * unit**2, 0.04 * unit**2)
    body = kt.Body.Rigid(kt.MassProperties(2.0, com, inertia.shift_from_mass_center(com, 2.0)))
    kt.MobilizedBody.Free(matter.Ground(), kt.Transform(), body, kt.Transform())
    state = system.realize_topology()
    system.realize(state, kt.Stage.ACCELERATION)
    udot = state.get_u_dot()
    np.testing.assert_allclose(udot[:3], [0.0, 0.0, 0.0], atol=1e-9)      # gravity at the CoM
    np.testing.assert_allclose(udot[4] / unit, -9.81, rtol=1e-9)


def overdamped():
    """The slider held by a spring and a damper so strong that it creeps (rates 1e5 and
    1e-2 per second): a stiff model."""
    return slider(stiffness=1e3, damping=1e5)


def test_a_stiff_run_stopped_by_its_step_limit_says_it_is_stiff():
    system, state = overdamped()
    with pytest.raises(SimulationError) as caught:
        kt.simulate(system, state, 10.0, accuracy=1e-3, max_steps=3000, progress=False)
    assert "step limit (3000 steps)" in str(caught.value)
    assert "stiff" in str(caught.value) and "CPodes" in str(caught.value)
    assert 0 < caught.value.time < 10.0 and len(caught.value.trajectory.t) > 0
    # CPodes takes the same model through with far fewer steps.
    run = kt.simulate(system, state, 10.0, integrator="CPodes", accuracy=1e-3,
                      max_steps=3000, progress=False)
    assert run.stats["steps_taken"] < 3000


def test_a_wall_clock_limit_stops_the_run():
    system, state = slider()
    with pytest.raises(SimulationError, match="wall-clock limit"):
        kt.simulate(system, state, 1e4, accuracy=1e-3, max_wall_time=0.2, progress=False)


def test_a_run_that_looks_stiff_says_so_while_it_runs():
    system, state = overdamped()
    with pytest.warns(kt.errors.KinetreeWarning, match="stiff.*CPodes"):
        kt.simulate(system, state, 0.5, accuracy=1e-3, progress=False)


class FailsWhenFast(kt.Force.Custom.Implementation):
    """A force whose formula divides by zero once the slider moves faster than 1e5 m/s,
    as compiled contact code can on values grown without bound."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[1] += 0.0 / float(abs(state.get_u()[1]) < 1e5)


def test_an_arithmetic_failure_in_a_fixed_step_run_reports_how_large_the_state_grew():
    system, state = slider(extra=lambda forces: kt.Force.Custom(forces, FailsWhenFast()))
    with pytest.raises(SimulationError) as caught:
        kt.simulate(system, state, 5.0, integrator="ExplicitEuler", fixed_step_size=0.01,
                    progress=False)
    assert isinstance(caught.value.__cause__, ZeroDivisionError)
    largest_u = np.abs(caught.value.state.get_u()).max()
    assert 1e5 > largest_u > 1e2  # it grew from rest tenfold a step, and failed after
    message = str(caught.value)
    assert f"largest |u| {largest_u:.3g}" in message
    assert "the fixed step of 0.01 s is too large" in message


class Undefined(kt.Force.Custom.Implementation):
    """No force where |q| < 1, and none defined (NaN) beyond, where the motion never goes:
    a muscle's fiber shorter than its width, a table's range."""

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        q = state.get_q()[0]
        mobility_forces[0] += math.nan if abs(q) >= 1.0 else 0.0


def test_a_trial_step_out_of_the_models_domain_is_retried_shorter():
    """A pendulum swinging to 0.95 rad whose model is undefined past 1 rad: a long trial
    step that overshoots into the undefined region is taken again shorter, as Simbody
    retries a step whose evaluation failed; the run ends where the pendulum without the
    force does."""
    def pendulum(with_force):
        system, matter, forces, link = world(gravity=(0, -9.8, 0))
        pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), link,
                                   kt.Transform([0, 1, 0]))
        if with_force:
            kt.Force.Custom(forces, Undefined())
        state = system.realize_topology()
        pin.set_one_q(state, 0, 0.95)
        return system, state

    ends = []
    for with_force in (True, False):
        system, state = pendulum(with_force)
        run = kt.simulate(system, state, 3.0, accuracy=1e-2, maximum_step_size=0.5,
                          progress=False)
        ends.append(run.q[-1, 0])
        if with_force:
            assert run.stats["error_test_failures"] > 0
    assert ends[0] == pytest.approx(ends[1], abs=1e-2)     # both at accuracy 1e-2
