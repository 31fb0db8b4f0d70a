"""Misuse: each case is a mistake a user can make, and each must be refused with a named
kinetree error whose message names the element (or the function) it happened in. The
messages say the fix as well; the cases check the element by name, and the error's class
says which kind of mistake it was (NonPhysicalError: a value no physical object has;
InvalidArgumentError: a wrong argument; StageTooLowError and StateMismatchError: a State
used too early or with another System)."""

import tempfile
import types

import numpy as np
import pytest
from support import world

import kinetree as kt
from kinetree.errors import (
    IntegrationError,
    InvalidArgumentError,
    NonPhysicalError,
    StageTooLowError,
    StateMismatchError,
)

nan, inf = float("nan"), float("inf")
P0, X = [0, 0, 0], kt.Transform()
QUIET = {"progress": False}


def pendulum():
    """A pin pendulum: its System, matter and force subsystems, the pin and its body."""
    system, matter, forces, body = world(gravity=None)
    pin = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform(), body, kt.Transform())
    return types.SimpleNamespace(system=system, matter=matter, forces=forces, pin=pin,
                                 body=body, ground=matter.Ground(),
                                 state=system.realize_topology)


def started(m):
    integ = kt.RungeKuttaMersonIntegrator(m.system)
    integ.initialize(m.state())
    return integ


def spring(m):
    return kt.Force.MobilityLinearSpring(m.forces, m.pin, 0, 1.0, 0.0)


def stop(m):
    return kt.Force.MobilityLinearStop(m.forces, m.pin, 0, 1.0, 0.5, -1.0, 1.0)


def rod(m):
    return kt.Constraint.Rod(m.ground, P0, m.pin, P0, 1.0)


def saved_state(m, spring=False):
    """The path of a State file saved from ``m``'s System (with a spring if asked)."""
    if spring:
        kt.Force.MobilityLinearSpring(m.forces, m.pin, 0, 1.0, 0.0)
    path = tempfile.mkdtemp() + "/state.npz"
    m.state().save(path)
    return path


class Holder(kt.Subsystem):
    def realize_topology(self, state):
        self.slot = self.allocate_discrete_variable(state, kt.Stage.INSTANCE, None)


def holder_state(value):
    """A State of a System whose one discrete variable holds ``value``."""
    system = kt.System()
    holder = Holder(system)
    state = system.realize_topology()
    holder.set_discrete_variable(state, holder.slot, value)
    return state


class NanTime(kt.ScheduledEventHandler):
    def get_next_event_time(self, state, include_current_time):
        return nan

    def handle_event(self, state, accuracy):
        return False


class NanTrigger(kt.TriggeredEventHandler):
    def get_value(self, state):
        return nan

    def handle_event(self, state, accuracy):
        return False


class Stuck(kt.ScheduledEventHandler):
    """Due again a hair after every event: time could never advance."""

    def get_next_event_time(self, state, include_current_time):
        t = state.get_time()
        return max(0.05, t + np.spacing(t))

    def handle_event(self, state, accuracy):
        return False


def simulate_with(m, handler):
    m.system.add_event_handler(handler)
    try:
        kt.simulate(m.system, m.state(), 0.2, **QUIET)
    except kt.errors.SimulationError as error:
        raise error.__cause__ from None


CASES = [
    ('mass negative', NonPhysicalError, 'MassProperties',
     lambda m: kt.MassProperties(-1.0, P0, kt.Inertia(1.0))),
    ('mass nan', NonPhysicalError, 'MassProperties',
     lambda m: kt.MassProperties(nan, P0, kt.Inertia(1.0))),
    ('com inf', NonPhysicalError, 'MassProperties',
     lambda m: kt.MassProperties(1.0, [inf,0,0], kt.Inertia(1.0))),
    ('inertia negative', NonPhysicalError, 'Inertia',
     lambda m: kt.Inertia(-1.0)),
    ('inertia triangle', NonPhysicalError, 'Inertia',
     lambda m: kt.Inertia(1.0, 1.0, 5.0)),
    ('inertia nan', NonPhysicalError, 'Inertia',
     lambda m: kt.Inertia(nan)),
    ('unit inertia brick neg', NonPhysicalError, 'UnitInertia\\.brick',
     lambda m: kt.UnitInertia.brick(-1, 1, 1)),
    ('rotation nonorth', NonPhysicalError, 'Rotation',
     lambda m: kt.Rotation(np.ones((3,3)))),
    ('rotation nan angle', NonPhysicalError, 'Rotation\\.about_x',
     lambda m: kt.Rotation.about_x(nan)),
    ('transform nan p', NonPhysicalError, 'Transform',
     lambda m: kt.Transform([nan,0,0])),
    ('transform bad shape', InvalidArgumentError, 'Transform',
     lambda m: kt.Transform([1,2])),
    ('pin bad parent', InvalidArgumentError, 'MobilizedBody\\.Pin',
     lambda m: kt.MobilizedBody.Pin(None, X, m.body, X)),
    ('pin bad body', InvalidArgumentError, 'MobilizedBody\\.Pin',
     lambda m: kt.MobilizedBody.Pin(m.ground, X, "body", X)),
    ('pin bad X', InvalidArgumentError, 'MobilizedBody\\.Pin',
     lambda m: kt.MobilizedBody.Pin(m.ground, [1,2,3], m.body, X)),
    ('slider set_one_q index', InvalidArgumentError, 'MobilizedBody\\ 1\\ \\(Pin\\)',
     lambda m: m.pin.set_one_q(m.state(), 1, 0.0)),
    ('set_one_q nan', InvalidArgumentError, 'MobilizedBody\\ 1\\ \\(Pin\\)\\.set_one_q',
     lambda m: m.pin.set_one_q(m.state(), 0, nan)),
    ('set_one_u inf', InvalidArgumentError, 'MobilizedBody\\ 1\\ \\(Pin\\)\\.set_one_u',
     lambda m: m.pin.set_one_u(m.state(), 0, inf)),
    ('set_q wrong size', InvalidArgumentError, 'State\\.set_q',
     lambda m: m.state().set_q([1.0, 2.0])),
    ('set_time nan', InvalidArgumentError, 'State\\.set_time',
     lambda m: m.state().set_time(nan)),
    ('set_time inf', InvalidArgumentError, 'State\\.set_time',
     lambda m: m.state().set_time(inf)),
    ('get_u before topology', StageTooLowError, r'State\.get_u needs .* MODEL',
     lambda m: kt.State().get_u()),
    ('realize other system state', StateMismatchError, 'System\\.realize',
     lambda m: m.system.realize(m.other.system.realize_topology(), kt.Stage.POSITION)),
    ('realize bad stage', InvalidArgumentError, 'System\\.realize',
     lambda m: m.system.realize(m.state(), 42)),
    ('get_u_dot too early', StageTooLowError, r'State\.get_u_dot needs .* ACCELERATION',
     lambda m: m.state().get_u_dot()),
    ('mobility spring bad which', InvalidArgumentError, 'Force\\.MobilityLinearSpring',
     lambda m: kt.Force.MobilityLinearSpring(m.forces, m.pin, 3, 1.0, 0.0) and m.state()),
    ('mobility spring nan q0', InvalidArgumentError, 'Force\\.MobilityLinearSpring',
     lambda m: kt.Force.MobilityLinearSpring(m.forces, m.pin, 0, 1.0, nan)),
    ('mobility damper which -1', InvalidArgumentError, 'Force\\.MobilityLinearDamper',
     lambda m: kt.Force.MobilityLinearDamper(m.forces, m.pin, -1, 1.0) and m.state()),
    ('mobility const force nan', InvalidArgumentError, 'Force\\.MobilityConstantForce',
     lambda m: kt.Force.MobilityConstantForce(m.forces, m.pin, 0, nan)),
    ('linear stop bounds', InvalidArgumentError, 'Force\\.MobilityLinearStop',
     lambda m: kt.Force.MobilityLinearStop(m.forces, m.pin, 0, 1.0, 0.5, 1.0, -1.0)),
    ('linear stop stiffness neg', InvalidArgumentError, 'Force\\.MobilityLinearStop',
     lambda m: kt.Force.MobilityLinearStop(m.forces, m.pin, 0, -1.0, 0.5, -1.0, 1.0)),
    ('const torque nan', InvalidArgumentError, 'Force\\.ConstantTorque',
     lambda m: kt.Force.ConstantTorque(m.forces, m.pin, [nan,0,0])),
    ('const force station nan', InvalidArgumentError, 'Force\\.ConstantForce',
     lambda m: kt.Force.ConstantForce(m.forces, m.pin, [nan,0,0], P0)),
    ('tp const force inf', InvalidArgumentError, 'Force\\.TwoPointConstantForce',
     lambda m: kt.Force.TwoPointConstantForce(m.forces, m.ground, P0, m.pin, P0, inf)),
    ('bushing neg stiffness', InvalidArgumentError, 'Force\\.LinearBushing',
     lambda m: kt.Force.LinearBushing(m.forces, m.ground, X, m.pin, X, [-1]*6, [0]*6)),
    ('bushing nan damping', InvalidArgumentError, 'Force\\.LinearBushing',
     lambda m: kt.Force.LinearBushing(m.forces, m.ground, X, m.pin, X, [1]*6, [nan]*6)),
    ('global damper neg', InvalidArgumentError, 'Force\\.GlobalDamper',
     lambda m: kt.Force.GlobalDamper(m.forces, m.matter, -1.0)),
    ('gravity wrong matter', InvalidArgumentError, 'Force\\.UniformGravity',
     lambda m: kt.Force.UniformGravity(m.forces, m.other.matter, [0,-9.8,0])),
    ('forces not subsystem', InvalidArgumentError, 'UniformGravity',
     lambda m: kt.Force.UniformGravity(m.matter, m.matter, [0,-9.8,0])),
    ('force get -1', InvalidArgumentError, 'GeneralForceSubsystem\\.get_force',
     lambda m: m.forces.get_force(-1)),
    ('rod neg length', InvalidArgumentError, 'Constraint\\.Rod',
     lambda m: kt.Constraint.Rod(m.ground, P0, m.pin, P0, -1.0)),
    ('rod nan station', InvalidArgumentError, 'Constraint\\.Rod',
     lambda m: kt.Constraint.Rod(m.ground, [nan,0,0], m.pin, P0, 1.0)),
    ('ball same body', InvalidArgumentError, 'Constraint\\.Ball',
     lambda m: kt.Constraint.Ball(m.pin, P0, m.pin, P0) and m.state()),
    ('ball other system', InvalidArgumentError, 'Constraint\\.Ball',
     lambda m: kt.Constraint.Ball(m.pin, P0, m.other.pin, P0)),
    ('weld nan frame', NonPhysicalError, 'Transform',
     lambda m: kt.Constraint.Weld(m.ground, kt.Transform([nan,0,0]), m.pin, X)),
    ('coupler bad function', InvalidArgumentError, 'Constraint\\.CoordinateCoupler',
     lambda m: kt.Constraint.CoordinateCoupler(m.matter, "f", [m.pin], [0])),
    ('constant speed nan', InvalidArgumentError, 'Constraint\\.ConstantSpeed',
     lambda m: kt.Constraint.ConstantSpeed(m.pin, nan)),
    ('constraint get -1', InvalidArgumentError, 'SimbodyMatterSubsystem\\.get_constraint',
     lambda m: m.matter.get_constraint(-1)),
    ('integrator not system', InvalidArgumentError, 'RungeKuttaMersonIntegrator',
     lambda m: kt.RungeKuttaMersonIntegrator("sys")),
    ('integrator fixed neg', InvalidArgumentError, 'set_fixed_step_size',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system, -1e-3)),
    ('semi explicit no step', InvalidArgumentError, 'SemiExplicitEulerIntegrator has no',
     lambda m: kt.SemiExplicitEulerIntegrator(m.system)),
    ('step_to before init', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.step_to',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).step_to(1.0)),
    ('step_to nan', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.step_to',
     lambda m: started(m).step_to(nan)),
    ('step_to backwards', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.step_to',
     lambda m: started(m).step_to(-1.0)),
    ('max step nan', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.set_maximum_step_size',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_maximum_step_size(nan)),
    ('initial step 0', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.set_initial_step_size',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_initial_step_size(0.0)),
    ('final time nan', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.set_final_time',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_final_time(nan)),
    ('constraint tol neg', InvalidArgumentError, 'set_constraint_tolerance',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_constraint_tolerance(-1.0)),
    ('step limit neg', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.set_internal_step_limit',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_internal_step_limit(-3)),
    ('simulate t_final nan', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), nan, **QUIET)),
    ('simulate bad integrator', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), 1.0, integrator="Nope", **QUIET)),
    ('simulate bad option', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), 1.0, wobble=3, **QUIET)),
    ('simulate report neg', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), 1.0, report_interval=-1, **QUIET)),
    ('simulate accuracy 0', InvalidArgumentError, 'RungeKuttaMersonIntegrator\\.set_accuracy',
     lambda m: kt.simulate(m.system, m.state(), 1.0, accuracy=0, **QUIET)),
    ('simulate output not callable', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), 1.0, outputs={"x": 3}, **QUIET)),
    ('timestepper other integ', InvalidArgumentError, 'TimeStepper',
     lambda m: kt.TimeStepper(m.system, kt.RungeKuttaMersonIntegrator(m.other.system))),
    ('timestepper step before init', InvalidArgumentError, 'TimeStepper\\.step_to',
     lambda m: kt.TimeStepper(m.system,
                              kt.RungeKuttaMersonIntegrator(m.system)).step_to(1.0)),
    ('periodic interval 0', InvalidArgumentError, 'PeriodicEventHandler',
     lambda m: kt.PeriodicEventHandler(0.0)),
    ('periodic interval nan', InvalidArgumentError, 'PeriodicEventReporter',
     lambda m: kt.PeriodicEventReporter(nan)),
    ('trigger window neg', InvalidArgumentError, 'set_required_localization_time_window',
     lambda m: kt.EventTriggerInfo().set_required_localization_time_window(-1.0)),
    ('material neg stiffness', NonPhysicalError, 'ContactMaterial\\.set_stiffness\\(\\)',
     lambda m: kt.ContactMaterial(-1.0, 0.5, 0.5, 0.4, 0.1)),
    ('material nan dissipation', NonPhysicalError, 'ContactMaterial\\.set_dissipation\\(\\)',
     lambda m: kt.ContactMaterial(1e6, nan, 0.5, 0.4, 0.1)),
    ('material mu_d > mu_s', NonPhysicalError, 'ContactMaterial\\.set_friction\\(\\)',
     lambda m: kt.ContactMaterial(1e6, 0.5, 0.3, 0.6, 0.1)),
    ('sphere radius neg', NonPhysicalError, 'ContactGeometry\\.Sphere',
     lambda m: kt.ContactGeometry.Sphere(-1.0)),
    ('sphere radius nan', NonPhysicalError, 'ContactGeometry\\.Sphere',
     lambda m: kt.ContactGeometry.Sphere(nan)),
    ('ellipsoid neg', NonPhysicalError, 'ContactGeometry\\.Ellipsoid',
     lambda m: kt.ContactGeometry.Ellipsoid([1, -1, 1])),
    ('brick neg', NonPhysicalError, 'ContactGeometry\\.Brick',
     lambda m: kt.ContactGeometry.Brick([1, 1, 0])),
    ('mesh bad', InvalidArgumentError, 'ContactGeometry\\.TriangleMesh',
     lambda m: kt.ContactGeometry.TriangleMesh(np.zeros((3,3)), [[0,1,5]])),
    ('function constant nan', InvalidArgumentError, 'Function\\.Constant',
     lambda m: kt.Function.Constant(nan)),
    ('function linear bad', InvalidArgumentError, 'Function\\.Linear',
     lambda m: kt.Function.Linear([nan, 1])),
    ('function spline unsorted', InvalidArgumentError, 'Function\\.Spline',
     lambda m: kt.Function.Spline([0, 2, 1], [0, 1, 2])),
    ('function sinusoid nan', InvalidArgumentError, 'Function\\.Sinusoid',
     lambda m: kt.Function.Sinusoid(nan, 1.0, 0.0)),
    ('assembler bad tol', InvalidArgumentError, 'Assembler\\.set_accuracy',
     lambda m: kt.Assembler(m.system).set_accuracy(-1)),
    ('mobod index str', InvalidArgumentError, 'SimbodyMatterSubsystem\\.get_mobilized_body',
     lambda m: m.matter.get_mobilized_body("a")),
    ('mobod index too big', InvalidArgumentError, 'SimbodyMatterSubsystem\\.get_mobilized_body',
     lambda m: m.matter.get_mobilized_body(99)),
    ('state load missing', StateMismatchError, 'State\\.load',
     lambda m: kt.State.load("/nonexistent/file.npz", m.system)),
    ('discrete var bad index', InvalidArgumentError,
     r"'GeneralForceSubsystem'\.get_discrete_variable",
     lambda m: m.forces.get_discrete_variable(m.state(), 99)),
    ('set stiffness nan state', InvalidArgumentError, 'MobilityLinearSpring\\.set_stiffness',
     lambda m: spring(m).set_stiffness(m.state(), nan)),
    ('set qzero inf state', InvalidArgumentError, 'Force\\.MobilityLinearSpring\\.set_q_zero',
     lambda m: spring(m).set_q_zero(m.state(), inf)),
    ('set bounds inverted', InvalidArgumentError, 'Force\\.MobilityLinearStop\\.set_bounds',
     lambda m: stop(m).set_bounds(m.state(), 1.0, -1.0)),
    ('rod set length neg', InvalidArgumentError, 'Constraint\\.Rod\\ \\#0\\.set_rod_length',
     lambda m: rod(m).set_rod_length(m.state(), -2.0)),
    ('slider nan X', NonPhysicalError, 'Transform',
     lambda m: kt.MobilizedBody.Slider(m.ground, kt.Transform([nan, 0, 0]), m.body, X)),
    ('free bad body', InvalidArgumentError, 'MobilizedBody.Free',
     lambda m: kt.MobilizedBody.Free(m.ground, X, None, X)),
    ('ball set_q wrong size', InvalidArgumentError, 'set_q',
     lambda m: kt.MobilizedBody.Ball(m.pin, X, m.body, X).set_q(m.state(), [1.0, 0.0])),
    ('pin set_u nan', InvalidArgumentError, 'set_u',
     lambda m: m.pin.set_u(m.state(), [nan])),
    ('pin set_q inf', InvalidArgumentError, 'set_q',
     lambda m: m.pin.set_q(m.state(), [inf])),
    ('screw pitch nan', InvalidArgumentError, 'Screw',
     lambda m: kt.MobilizedBody.Screw(m.ground, X, m.body, X, nan)),
    ('set_one_u index', InvalidArgumentError, 'u index 2',
     lambda m: m.pin.set_one_u(m.state(), 2, 0.0)),
    ('set_one_q string', InvalidArgumentError, 'set_one_q',
     lambda m: m.pin.set_one_q(m.state(), 0, "a")),
    ('state set_z wrong size', InvalidArgumentError, 'State.set_z',
     lambda m: m.state().set_z([1.0])),
    ('state set_y nan', InvalidArgumentError, 'State.set_y',
     lambda m: m.state().set_y([nan, 0.0])),
    ('state set_u wrong size', InvalidArgumentError, 'State.set_u',
     lambda m: m.state().set_u([0.0, 0.0, 0.0])),
    ('get_q_dot too early', StageTooLowError, 'get_q_dot',
     lambda m: m.state().get_q_dot()),
    ('get_multipliers too early', StageTooLowError, 'get_multipliers',
     lambda m: m.state().get_multipliers()),
    ('state of another system', StateMismatchError, 'another System',
     lambda m: m.system.realize(m.other.state(), kt.Stage.ACCELERATION)),
    ('integrator initialize other state', StateMismatchError, 'another System',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).initialize(m.other.state())),
    ('simulate other state', StateMismatchError, 'another System',
     lambda m: kt.simulate(m.system, m.other.state(), 1.0, **QUIET)),
    ('simulate not a state', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, "state", 1.0, **QUIET)),
    ('simulate t_final before', InvalidArgumentError, 't_final',
     lambda m: kt.simulate(m.system, m.state(), -1.0, **QUIET)),
    ('simulate integrator instance other system', InvalidArgumentError, 'simulate',
     lambda m: kt.simulate(m.system, m.state(), 1.0,
                           integrator=kt.RungeKuttaMersonIntegrator(m.other.system), **QUIET)),
    ('simulate resume missing', StateMismatchError, 'no file',
     lambda m: kt.simulate(m.system, None, 1.0, resume="/nonexistent/run.npz", **QUIET)),
    ('step limit float', InvalidArgumentError, 'set_internal_step_limit',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_internal_step_limit(2.5)),
    ('min step inf', InvalidArgumentError, 'set_minimum_step_size',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).set_minimum_step_size(inf)),
    ('max step below min', InvalidArgumentError, 'set_maximum_step_size',
     lambda m: (lambda i: (i.set_minimum_step_size(1e-3), i.set_maximum_step_size(1e-4)))(
         kt.RungeKuttaMersonIntegrator(m.system))),
    ('accuracy negative', InvalidArgumentError, 'set_accuracy',
     lambda m: kt.CPodesIntegrator(m.system).set_accuracy(-1e-3)),
    ('verlet fixed step nan', InvalidArgumentError, 'set_fixed_step_size',
     lambda m: kt.VerletIntegrator(m.system, nan)),
    ('get_state before initialize', InvalidArgumentError, 'initialize',
     lambda m: kt.RungeKuttaMersonIntegrator(m.system).get_state()),
    ('checkpoint before initialize', InvalidArgumentError, 'save_checkpoint',
     lambda m: kt.TimeStepper(m.system, kt.RungeKuttaMersonIntegrator(m.system))
     .save_checkpoint("/tmp/never.npz")),
    ('checkpoint load of a state file', StateMismatchError, 'not a kinetree Checkpoint',
     lambda m: kt.TimeStepper(m.system, kt.RungeKuttaMersonIntegrator(m.system))
     .load_checkpoint(saved_state(m))),
    ('state load of another system', StateMismatchError, 'different topology',
     lambda m: kt.State.load(saved_state(m.other, spring=True), m.system)),
    ('state save of an object', InvalidArgumentError, 'discrete variable',
     lambda m: holder_state(object()).save("/tmp/never.npz")),
    ('state save of a function', InvalidArgumentError, 'discrete variable',
     lambda m: holder_state(print).save("/tmp/never.npz")),
    ('stepper integrator not integrator', InvalidArgumentError, 'TimeStepper',
     lambda m: kt.TimeStepper(m.system, "rk")),
    ('event time nan', InvalidArgumentError, 'get_next_event_time returned nan',
     lambda m: simulate_with(m, NanTime())),
    ('trigger nan', InvalidArgumentError, 'get_value returned nan',
     lambda m: simulate_with(m, NanTrigger())),
    ('event stuck', IntegrationError, 'time has not advanced',
     lambda m: simulate_with(m, Stuck())),
    ('periodic reporter interval neg', InvalidArgumentError, 'PeriodicEventReporter',
     lambda m: kt.PeriodicEventReporter(-0.1)),
    ('add handler not handler', InvalidArgumentError, 'add_event_handler',
     lambda m: m.system.add_event_handler(3)),
    ('rod zero length', InvalidArgumentError, 'Constraint.Rod',
     lambda m: kt.Constraint.Rod(m.ground, P0, m.pin, P0, 0.0)),
    ('point in plane nan normal', InvalidArgumentError, 'PointInPlane',
     lambda m: kt.Constraint.PointInPlane(m.ground, [nan, 1, 0], 0.0, m.pin, P0)),
    ('point on line zero direction', InvalidArgumentError, 'PointOnLine',
     lambda m: kt.Constraint.PointOnLine(m.ground, [0, 0, 0], P0, m.pin, P0)),
    ('constant angle nan', InvalidArgumentError, 'ConstantAngle',
     lambda m: kt.Constraint.ConstantAngle(m.ground, [1, 0, 0], m.pin, [0, 1, 0], nan)),
    ('constant acceleration nan', InvalidArgumentError, 'ConstantAcceleration',
     lambda m: kt.Constraint.ConstantAcceleration(m.pin, 0, nan)),
    ('constant speed bad u', InvalidArgumentError, 'ConstantSpeed',
     lambda m: kt.Constraint.ConstantSpeed(m.pin, 3, 1.0)),
    ('weld same body', InvalidArgumentError, 'Weld',
     lambda m: kt.Constraint.Weld(m.pin, X, m.pin, X)),
    ('weld other system', InvalidArgumentError, 'Weld',
     lambda m: kt.Constraint.Weld(m.pin, X, m.other.pin, X)),
    ('rod other system', InvalidArgumentError, 'Rod',
     lambda m: kt.Constraint.Rod(m.pin, P0, m.other.pin, P0, 1.0)),
    ('prescribed motion bad function', InvalidArgumentError, 'PrescribedMotion',
     lambda m: kt.Constraint.PrescribedMotion(m.matter, 3.0, m.pin, 0)),
    ('coupler mismatched lists', InvalidArgumentError, 'CoordinateCoupler',
     lambda m: kt.Constraint.CoordinateCoupler(
         m.matter, kt.Function.Linear([1.0, 0.0]), [m.pin, m.pin], [0])),
    ('no slip zero direction', InvalidArgumentError, 'NoSlip1D',
     lambda m: kt.Constraint.NoSlip1D(m.ground, P0, [0, 0, 0], m.ground, m.pin)),
    ('ball station nan', InvalidArgumentError, 'Constraint.Ball',
     lambda m: kt.Constraint.Ball(m.ground, [nan, 0, 0], m.pin, P0)),
    ('gravity zero height nan', InvalidArgumentError, 'zero_height',
     lambda m: kt.Force.UniformGravity(m.forces, m.matter, [0, -9.8, 0], nan)),
    ('global damper other matter', InvalidArgumentError, 'GlobalDamper',
     lambda m: kt.Force.GlobalDamper(m.forces, m.other.matter, 1.0)),
    ('constant torque other system', InvalidArgumentError, 'another System',
     lambda m: kt.Force.ConstantTorque(m.forces, m.other.pin, [0, 0, 1])),
    ('bushing other system', InvalidArgumentError, 'another System',
     lambda m: kt.Force.LinearBushing(m.forces, m.ground, X, m.other.pin, X, [1] * 6,
                                      [0] * 6)),
    ('mobility spring other system', InvalidArgumentError, 'another System',
     lambda m: kt.Force.MobilityLinearSpring(m.forces, m.other.pin, 0, 1.0, 0.0)),
    ('damper set nan', InvalidArgumentError, 'set_damping',
     lambda m: kt.Force.MobilityLinearDamper(m.forces, m.pin, 0, 1.0).set_damping(
         m.state(), -2.0)),
    ('spring natural length nan', InvalidArgumentError, 'natural_length',
     lambda m: kt.Force.TwoPointLinearSpring(m.forces, m.ground, P0, m.pin, P0, 1.0, nan)),
    ('custom force not implementation', InvalidArgumentError, 'Force.Custom',
     lambda m: kt.Force.Custom(m.forces, 3)),
    ('material friction negative', NonPhysicalError, 'set_friction',
     lambda m: kt.ContactMaterial(1e6, 0.5, -0.5, -0.6, 0.1)),
    ('material transition negative', NonPhysicalError, 'ContactMaterial',
     lambda m: kt.ContactMaterial(1e6, 0.5, 0.5, 0.4, -0.1)),
    ('half space not a geometry', InvalidArgumentError, 'ContactSurface',
     lambda m: kt.ContactSurface("half space", kt.ContactMaterial(1e6, 0.5, 0.5, 0.4, 0.1))),
    ('cylinder radius zero', NonPhysicalError, 'Cylinder',
     lambda m: kt.ContactGeometry.Cylinder(0.0, 1.0)),
    ('mesh face index', InvalidArgumentError, 'TriangleMesh',
     lambda m: kt.ContactGeometry.TriangleMesh(np.eye(4, 3), [[0, 1, 2], [0, 1, 7],
                                                              [0, 2, 3], [1, 2, 3]])),
    ('mesh nan vertex', InvalidArgumentError, 'TriangleMesh',
     lambda m: kt.ContactGeometry.TriangleMesh(np.full((4, 3), nan), [[0, 1, 2], [0, 1, 3],
                                                                     [0, 2, 3], [1, 2, 3]])),
    ('function step nan', InvalidArgumentError, 'Function.Step',
     lambda m: kt.Function.Step(0.0, 1.0, nan, 1.0)),
    ('function spline too short', InvalidArgumentError, 'Function.Spline',
     lambda m: kt.Function.Spline([0.0], [1.0])),
    ('function linear empty', InvalidArgumentError, 'Function.Linear',
     lambda m: kt.Function.Linear([])),
    ('assembler not system', InvalidArgumentError, 'Assembler',
     lambda m: kt.Assembler("system")),
    ('assembler lock bad body', InvalidArgumentError, 'Assembler',
     lambda m: kt.Assembler(m.system).lock_mobilizer(m.other.pin)),
]


@pytest.mark.parametrize("error,where,misuse", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_a_misuse_is_refused_with_a_named_error(error, where, misuse):
    m = pendulum()
    m.other = pendulum()
    with pytest.raises(error, match=where):
        misuse(m)
