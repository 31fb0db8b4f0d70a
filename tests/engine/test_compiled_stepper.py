"""Compiled derivative evaluations for integrators (engine/step.py): offered only where the
realization is one compiled call and the projection only normalizes quaternions, and then
the integrators take the same steps as with Python evaluations."""

import numpy as np
import pytest

import kinetree as kt

FLOOR = kt.Transform(kt.Rotation.about_z(-np.pi / 2), [0, 0, 0])


def model(extra=None):
    """A pin chain hanging from a free-floating base that bounces on the floor."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    kt.CompliantContactSubsystem(system, tracker)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    material = kt.ContactMaterial(1e5, 0.5, 0.8, 0.6, 0.1)
    matter.Ground().upd_body().add_contact_surface(
        FLOOR, kt.ContactSurface(kt.ContactGeometry.HalfSpace(), material))
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, -0.1, 0], kt.Inertia(0.02)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Sphere(0.1), material))
    base = kt.MobilizedBody.Free(matter.Ground(), body)
    bodies = [base]
    for _ in range(3):
        bodies.append(kt.MobilizedBody.Pin(bodies[-1], kt.Transform([0, -0.3, 0]), body,
                                           kt.Transform()))
        kt.Force.MobilityLinearDamper(forces, bodies[-1], 0, 0.05)
    if extra is not None:
        extra(system, matter, forces, bodies)
    state = system.realize_topology()
    base.set_q_to_fit_transform(state, kt.Transform(kt.Rotation.about_x(0.3), [0, 1.2, 0]))
    base.set_u(state, [1.0, 0.5, -0.3, 0.2, 0.0, 0.1])
    for b in bodies[1:]:
        b.set_one_q(state, 0, 0.4)
    return system, state


def run(system, state, integrator, compiled, accuracy=1e-6, fixed=None):
    integ = integrator(system)
    if fixed:
        integ.set_fixed_step_size(fixed)
    else:
        integ.set_accuracy(accuracy)
    integ.initialize(state)
    if not compiled:
        integ._stepper = None
    assert (integ._stepper is not None) == compiled
    for t in np.linspace(0.05, 0.8, 16):
        integ.step_to(t)
    return integ


@pytest.mark.parametrize("integrator,fixed", [
    (kt.RungeKuttaMersonIntegrator, None), (kt.RungeKuttaFeldbergIntegrator, None),
    (kt.VerletIntegrator, None), (kt.RungeKutta3Integrator, 1e-3)])
def test_compiled_evaluations_take_the_same_steps(integrator, fixed):
    system, state = model()
    a = run(system, state, integrator, True, fixed=fixed)
    b = run(system, state, integrator, False, fixed=fixed)
    assert a.get_num_steps_taken() == b.get_num_steps_taken()
    assert a.get_num_realizations() == b.get_num_realizations()
    np.testing.assert_allclose(a.get_state().get_y(), b.get_state().get_y(), rtol=0,
                               atol=1e-9)
    # The bounce happened: the base left the floor's contact at least once.
    assert a.get_num_steps_taken() > 40


class Push(kt.Force.Custom.Implementation):
    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += 0.1


def with_custom_force(system, matter, forces, bodies):
    kt.Force.Custom(forces, Push())


def with_constraint(system, matter, forces, bodies):
    kt.Constraint.Rod(matter.Ground(), [0, 1.5, 0], bodies[-1], [0, 0, 0], 1.0)


@pytest.mark.parametrize("extra", [with_custom_force, with_constraint])
def test_no_compiled_evaluations_with_python_in_the_realization(extra):
    system, state = model(extra)
    assert system._compiled_stepper(state.copy()) is None


def test_a_pile_that_outgrows_the_contact_buffers_integrates_the_same():
    """Compiled stages grow the contact buffers in the middle of a step and go on."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    kt.CompliantContactSubsystem(system, tracker)
    material = kt.ContactMaterial(1e4, 0.5, 0.3, 0.2, 0.0)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Sphere(0.2), material))
    # 40 spheres side by side, 0.5 m apart: no contacts, until they are moved together.
    balls = [kt.MobilizedBody.Free(matter.Ground(), body) for _ in range(40)]
    state = system.realize_topology()
    for i, b in enumerate(balls):
        b.set_q_to_fit_transform(state, kt.Transform([0.5 * i, 0, 0]))
    a = kt.RungeKuttaMersonIntegrator(system)
    a.set_accuracy(1e-5)
    a.initialize(state)
    assert a._stepper is not None
    a.step_to(0.01)
    crowded = a.get_state().copy()
    rng = np.random.default_rng(5)
    for b in balls:
        b.set_q_to_fit_transform(crowded, kt.Transform(rng.uniform(-0.05, 0.05, 3)))
    results = []
    for compiled in (True, False):
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_accuracy(1e-5)
        integ.initialize(crowded)
        if not compiled:
            integ._stepper = None
        else:
            buffer_size = integ._stepper._arguments[16].size
        integ.step_to(0.012)
        results.append(integ)
    assert results[0]._stepper._arguments[16].size > buffer_size     # grew mid-step
    assert results[0].get_num_steps_taken() == results[1].get_num_steps_taken()
    np.testing.assert_allclose(results[0].get_state().get_y(), results[1].get_state().get_y(),
                               atol=1e-9)
    assert len(tracker.get_active_contacts(results[0].get_state())) == 40 * 39 // 2
