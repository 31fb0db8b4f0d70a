"""Compiled runs of steps for integrators (engine/step.py): offered only where the
realization is one compiled call and the projection is the matter subsystem's (quaternions
and built-in constraints), and then the integrators take the same steps as with Python
evaluations."""

import numpy as np
import pytest

import kinetree as kt
from kinetree.integrators.runge_kutta import ExplicitRungeKutta

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
    integ = integrator(system, fixed)
    if not fixed:
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
    (kt.VerletIntegrator, None), (kt.RungeKutta3Integrator, 1e-3),
    (kt.SemiExplicitEulerIntegrator, 1e-3)])
def test_compiled_evaluations_take_the_same_steps(integrator, fixed):
    system, state = model()
    a = run(system, state, integrator, True, fixed=fixed)
    b = run(system, state, integrator, False, fixed=fixed)
    assert a._runs_compiled == (integrator is not kt.VerletIntegrator)
    assert a.get_num_steps_taken() == b.get_num_steps_taken()
    assert a.get_num_realizations() == b.get_num_realizations()
    np.testing.assert_allclose(a.get_state().get_y(), b.get_state().get_y(), rtol=0,
                               atol=1e-9)
    # The bounce happened: the base left the floor's contact at least once.
    assert a.get_num_steps_taken() > 40


@pytest.mark.parametrize("integrator,fixed", [(kt.RungeKuttaMersonIntegrator, None),
                                              (kt.RungeKutta4Integrator, 1e-3)])
def test_a_compiled_run_leaves_its_state_with_the_qdotdot_of_its_end(integrator, fixed):
    """A run's derivatives skip q̈ (status[QDOTDOT_DEFERRED]), and the State it leaves has
    the q̈ of a fresh realization of its q and u, bit for bit: the free base's quaternion
    makes Ṅ u count; a realization after the run computes q̈ again."""
    system, state = model()
    integ = run(system, state, integrator, True, fixed=fixed)
    end = integ.get_advanced_state()
    matter = system.get_matter_subsystem()
    fresh = end.copy()
    fresh.invalidate_all(kt.Stage.POSITION)
    system.realize(fresh, kt.Stage.ACCELERATION)
    assert matter.get_q_dot_dot(end).tobytes() == matter.get_q_dot_dot(fresh).tobytes()
    assert np.abs(matter.get_q_dot_dot(end)[:4]).max() > 0.1
    end.set_u(end.get_u() * 0.5)
    system.realize(end, kt.Stage.ACCELERATION)
    fresh.set_u(end.get_u())
    system.realize(fresh, kt.Stage.ACCELERATION)
    assert matter.get_q_dot_dot(end).tobytes() == matter.get_q_dot_dot(fresh).tobytes()


def with_motion_of_time(system, matter, forces, bodies):
    kt.Motion.Sinusoid(bodies[2], kt.Motion.Level.ACCELERATION, 3.0, 7.0, 0.2)


class OffsetStages(ExplicitRungeKutta):
    """Two stages whose second is taken at t0 + h/2 though its a row sums to 1: not a
    consistent method, but one that tells apart where the stage times come from."""

    method_name = "OffsetStages"
    min_order = max_order = 1
    c = (0.0, 0.5)
    a = ((1.0,),)
    b = (0.5, 0.5)
    e = (0.1, -0.1)


@pytest.mark.parametrize("integrator,fixed", [(OffsetStages, 1e-3),
                                              (kt.RungeKuttaFeldbergIntegrator, None)])
def test_compiled_and_python_stages_are_taken_at_the_same_times(integrator, fixed):
    """A pin driven by a sinusoid of time makes every stage's time count: the compiled
    and the Python runs both take stage i at t0 + c_i h, the tableau's c (not the row
    sums of a), and agree to round-off."""
    system, state = model(with_motion_of_time)
    a = run(system, state, integrator, True, fixed=fixed)
    b = run(system, state, integrator, False, fixed=fixed)
    assert a._runs_compiled
    assert a.get_num_steps_taken() == b.get_num_steps_taken() > 40
    np.testing.assert_allclose(a.get_state().get_y(), b.get_state().get_y(), rtol=0,
                               atol=1e-11)


class Push(kt.Force.Custom.Implementation):
    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[0] += 0.1


def with_custom_force(system, matter, forces, bodies):
    kt.Force.Custom(forces, Push())


def with_python_constraint(system, matter, forces, bodies):
    kt.Constraint.PrescribedMotion(matter, kt.Function.Constant(0.4), bodies[1], 0)


@pytest.mark.parametrize("extra", [with_custom_force, with_python_constraint])
def test_no_compiled_evaluations_with_python_in_the_realization(extra):
    system, state = model(extra)
    assert system._compiled_stepper(state.copy()) is None


class PushLikeBuiltIn(kt.Force.Custom.Implementation):
    """MobilityConstantForce's generalized force on the first pin, in Python."""

    def __init__(self, pin):
        self.pin = pin

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        mobility_forces[self.pin.get_first_u_index(state)] += 0.3


@pytest.mark.parametrize("integrator,fixed", [
    (kt.RungeKuttaMersonIntegrator, None), (kt.SemiExplicitEulerIntegrator, 1e-3),
    (kt.VerletIntegrator, None)])
def test_a_model_with_python_takes_the_steps_of_its_compiled_twin(integrator, fixed):
    """One stepper for every model: a Force.Custom and the built-in MobilityConstantForce
    applying the same generalized force give the same steps, attempts, error-test
    failures and realizations, and the same motion to round-off. The custom force's model
    runs the same run of steps, which asks Python for each derivative."""
    twins = []
    for custom in (False, True):
        def push(system, matter, forces, bodies, custom=custom):
            if custom:
                kt.Force.Custom(forces, PushLikeBuiltIn(bodies[1]))
            else:
                kt.Force.MobilityConstantForce(forces, bodies[1], 0, 0.3)
        system, state = model(push)
        twins.append(run(system, state, integrator, not custom and
                         integrator is not kt.VerletIntegrator, fixed=fixed))
    built_in, custom = twins
    assert custom._stepper is None and custom._python_run is not None
    for count in ("steps_taken", "steps_attempted", "error_test_failures", "realizations",
                  "projections"):
        assert getattr(built_in, f"get_num_{count}")() == getattr(custom, f"get_num_{count}")()
    assert built_in.get_num_steps_taken() > 40
    np.testing.assert_allclose(custom.get_state().get_y(), built_in.get_state().get_y(),
                               rtol=0, atol=1e-9)


def contact_buffer_size(system, state):
    """The size of the contact buffer the compiled realization of ``state`` works in."""
    plan = system._plan_of(state)
    return plan._search._buffers(state).contact_i.size


def test_spheres_that_outgrow_the_contact_buffers_mid_run_integrate_the_same():
    """A compiled run grows the contact buffers when a search outgrows them in the middle
    of a step, and goes on: 40 spheres on a shell of radius 1 m, all flying at 10 m/s
    toward its centre, where every pair overlaps at once."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    kt.CompliantContactSubsystem(system, tracker)
    material = kt.ContactMaterial(1e4, 0.5, 0.3, 0.2, 0.0)
    body = kt.Body.Rigid(kt.MassProperties(1.0, [0, 0, 0], kt.Inertia(0.01)))
    body.add_contact_surface(kt.Transform(), kt.ContactSurface(
        kt.ContactGeometry.Sphere(0.2), material))
    balls = [kt.MobilizedBody.Free(matter.Ground(), body) for _ in range(40)]
    state = system.realize_topology()
    golden = np.pi * (3 - np.sqrt(5))
    for i, b in enumerate(balls):
        z = 1 - 2 * (i + 0.5) / len(balls)
        p = np.array([np.sqrt(1 - z * z) * np.cos(golden * i),
                      np.sqrt(1 - z * z) * np.sin(golden * i), z])
        b.set_q_to_fit_transform(state, kt.Transform(p))
        b.set_u(state, [0, 0, 0, *(-10 * p)])
    results = []
    for compiled in (True, False):
        integ = kt.RungeKuttaMersonIntegrator(system)
        integ.set_accuracy(1e-4)
        integ.initialize(state)
        if not compiled:
            integ._stepper = None
        else:
            assert integ._stepper is not None
            buffers = contact_buffer_size(system, integ.get_advanced_state())
        integ.step_to(0.1)
        results.append(integ)
    grown = contact_buffer_size(system, results[0].get_advanced_state())
    assert grown > buffers
    assert results[0].get_num_steps_taken() == results[1].get_num_steps_taken()
    assert results[0].get_num_realizations() == results[1].get_num_realizations()
    np.testing.assert_allclose(results[0].get_state().get_y(), results[1].get_state().get_y(),
                               atol=1e-9)
    assert len(tracker.get_active_contacts(results[0].get_state())) > 100


def test_a_run_that_cannot_meet_the_accuracy_keeps_its_last_step_and_resumes():
    """When the error test keeps failing down to the minimum step in the middle of a run,
    the advanced State is the last accepted step, realized, and integration goes on from
    it once the minimum is lowered."""
    system, state = model()
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.set_accuracy(1e-7)
    integ.set_minimum_step_size(2e-4)
    integ.initialize(state)
    assert integ._stepper is not None
    with pytest.raises(kt.errors.IntegrationError, match="cannot meet accuracy"):
        integ.step_to(0.8)
    advanced = integ.get_advanced_state()
    assert integ.get_num_steps_taken() > 5 and advanced.get_time() > 0
    assert advanced.get_system_stage() == kt.Stage.ACCELERATION
    again = advanced.copy()
    system.realize(again, kt.Stage.ACCELERATION)
    np.testing.assert_array_equal(advanced.get_y_dot(), again.get_y_dot())
    integ.set_minimum_step_size(0.0)
    assert integ.step_to(0.8) == kt.SuccessfulStepStatus.REACHED_REPORT_TIME
    assert integ.get_time() == 0.8


def tied_model(rods=None):
    """The chain's tip tied to a Ground point at its current distance by a Rod (kept in
    ``rods`` when given)."""
    system, state = model()
    tip = system.get_matter_subsystem().get_mobilized_body(4)
    system.realize(state, kt.Stage.POSITION)
    length = float(np.linalg.norm(tip.get_body_origin_location(state) - [0, 1.5, 0]))
    kept = [] if rods is None else rods
    return model(lambda system, matter, forces, bodies: kept.append(
        kt.Constraint.Rod(matter.Ground(), [0, 1.5, 0], bodies[-1], [0, 0, 0], length)))


@pytest.mark.parametrize("integrator,fixed", [
    (kt.RungeKuttaMersonIntegrator, None), (kt.VerletIntegrator, None),
    (kt.RungeKutta3Integrator, 1e-3)])
def test_constrained_compiled_runs_project_as_python_does(integrator, fixed):
    """With a built-in constraint, a compiled run projects q and u after every step as
    System.project does in Python: the same steps, realizations and projections, the same
    y, and the rod's length kept to the projection tolerance."""
    system, state = tied_model()
    a = run(system, state, integrator, True, fixed=fixed)
    b = run(system, state, integrator, False, fixed=fixed)
    for count in ("get_num_steps_taken", "get_num_realizations", "get_num_projections",
                  "get_num_projection_failures"):
        assert getattr(a, count)() == getattr(b, count)(), count
    np.testing.assert_allclose(a.get_state().get_y(), b.get_state().get_y(), rtol=0,
                               atol=1e-9)
    advanced = a.get_advanced_state()
    system.realize(advanced, kt.Stage.POSITION)
    matter = system.get_matter_subsystem()
    assert np.max(np.abs(matter._perr(advanced))) <= a.get_constraint_tolerance_in_use()
    assert a.get_num_projections() >= a.get_num_steps_taken() > 40


def test_a_constraint_enabled_in_the_advanced_state_is_projected_by_the_compiled_runs():
    """A constraint enabled in the advanced State (an Instance-stage change) after the
    integrator chose compiled runs: the runs go on with the new constraint table and
    project onto it, keeping the rod's length."""
    rods = []
    system, state = tied_model(rods)
    rods[0].disable(state)
    integ = kt.RungeKuttaMersonIntegrator(system)
    integ.initialize(state)
    assert integ._stepper is not None
    rods[0].enable(integ.upd_advanced_state())
    integ.step_to(0.02)
    assert integ._stepper is not None
    advanced = integ.get_advanced_state()
    system.realize(advanced, kt.Stage.POSITION)
    assert 0 < np.max(np.abs(advanced.get_q_err())) < 1e-3      # the rod's length is kept


@pytest.mark.parametrize("compiled", [True, False])
def test_report_times_a_rounding_away_from_the_steps_never_stall(compiled):
    """step_to(n h) after n fixed steps of h: t0 + h and n h differ in their last bits.
    The compiled run and step_to must agree on whether such a report time is reached
    (or step_to asks for steps forever), and a step ending within the time tolerance of
    the report time ends on it (or the rounding adds up, and every report is
    interpolated inside a step taken past it)."""
    system, state = model()
    integ = kt.RungeKuttaMersonIntegrator(system, 1e-3)
    integ.initialize(state)
    if not compiled:
        integ._stepper = None
    for n in range(1, 1501):
        assert integ.step_to(n * 1e-3) == kt.SuccessfulStepStatus.REACHED_REPORT_TIME
    assert integ.get_time() == 1.5
    # The steps land on the report times: no drift, no extra step, no interpolation.
    assert not integ.is_state_interpolated()
    assert integ.get_num_steps_taken() == 1500
