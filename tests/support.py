"""What the tests share: models (a System with its matter and force subsystems, the link
body most of them hang from pins), the comparisons against OpenSim, a user-code Function,
and a stand-in for the viewer's scene."""

import numpy as np

import kinetree as kt

INTEGRATORS = [
    (kt.RungeKuttaMersonIntegrator, None), (kt.RungeKuttaFeldbergIntegrator, None),
    (kt.RungeKutta3Integrator, None), (kt.RungeKutta2Integrator, None),
    (kt.ExplicitEulerIntegrator, None), (kt.VerletIntegrator, None),
    (kt.SemiExplicitEuler2Integrator, None), (kt.CPodesIntegrator, None),
    (kt.SemiExplicitEulerIntegrator, 1e-3), (kt.RungeKuttaMersonIntegrator, 2e-3),
]
"""Every integrator, error-controlled (None) or with a fixed step (s)."""

INTEGRATOR_IDS = [f"{i.__name__}-{f or 'adaptive'}" for i, f in INTEGRATORS]


def world(gravity=(0.0, -9.81, 0.0), inertia=0.02):
    """(system, matter, forces, link): a MultibodySystem with its matter and force
    subsystems, gravity (m/s², None for none), and a 1 kg link body whose mass centre is
    0.5 m below its origin, with central inertia ``inertia`` (kg m²) about every axis."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    if gravity is not None:
        kt.Force.UniformGravity(forces, matter, list(gravity))
    com = [0, -0.5, 0]
    link = kt.Body.Rigid(kt.MassProperties(
        1.0, com, kt.Inertia(inertia).shift_from_mass_center(com, 1.0)))
    return system, matter, forces, link


def random_frame(rng):
    """A Transform of a random rotation and a random origin (m), drawn from ``rng``."""
    return kt.Transform(kt.Rotation.from_quaternion(rng.normal(size=4)), rng.normal(size=3))


def mixed_tree(matter, rng):
    """(pin, slider, ball, free, universal): a Pin, a Slider on it and a Ball on that, a Free
    body and a Universal on it, with random frames and mass properties drawn from ``rng``."""

    def body(m):
        return kt.Body.Rigid(kt.MassProperties(m, rng.normal(size=3) * 0.1,
                                               kt.Inertia(0.4, 0.45, 0.5, 0.01, 0.02, 0.03)))

    def frame():
        return random_frame(rng)

    ground = matter.Ground()
    pin = kt.MobilizedBody.Pin(ground, frame(), body(1.0), frame())
    slider = kt.MobilizedBody.Slider(pin, frame(), body(2.0), frame())
    ball = kt.MobilizedBody.Ball(slider, frame(), body(1.5), frame())
    free = kt.MobilizedBody.Free(ground, frame(), body(0.7), frame())
    universal = kt.MobilizedBody.Universal(free, frame(), body(1.2), frame())
    return pin, slider, ball, free, universal


def set_random_coordinates(opensim_model, opensim_state, rng, moving=True):
    """Give every free coordinate of an OpenSim model (neither locked nor dependent) a
    random value within its range and at most 1 in magnitude, and a random speed in
    [-1, 1] (0 unless ``moving``)."""
    coordinates = opensim_model.getCoordinateSet()
    for i in range(coordinates.getSize()):
        c = coordinates.get(i)
        if c.getLocked(opensim_state) or c.isDependent(opensim_state):
            continue
        lo, hi = max(c.getRangeMin(), -1.0), min(c.getRangeMax(), 1.0)
        c.setValue(opensim_state, rng.uniform(lo, hi) if lo < hi else lo, False)
        c.setSpeedValue(opensim_state, rng.uniform(-1.0, 1.0) if moving else 0.0)


def set_kinetree_coordinates(model, state, opensim_model, opensim_state):
    """Give ``state`` (of a ``load_osim`` Model) the coordinate values and speeds of
    ``opensim_state``, by coordinate name, and realize it to ACCELERATION. Returns the
    names, in OpenSim's CoordinateSet order."""
    coordinates = opensim_model.getCoordinateSet()
    names = [coordinates.get(i).getName() for i in range(coordinates.getSize())]
    for name in names:
        c, k = coordinates.get(name), model.coordinates[name]
        k.set_value(state, c.getValue(opensim_state))
        k.set_speed_value(state, c.getSpeedValue(opensim_state))
    model.system.realize(state, kt.Stage.ACCELERATION)
    return names


def set_random_muscle_state(model, state, opensim_model, opensim_state, rng, moving=True):
    """A random pose of a muscle-driven model in both engines: random coordinates
    (``set_random_coordinates``), and each muscle a random activation in [0.02, 1] and
    excitation in [0, 1], equilibrated and realized to ACCELERATION in OpenSim, then the
    same in ``state`` (of the ``load_osim`` Model ``model``). Returns the muscles' names,
    in OpenSim's order."""
    om, ostate = opensim_model, opensim_state
    muscles = om.getMuscles()
    names = [muscles.get(i).getName() for i in range(muscles.getSize())]
    actuators = [om.getActuators().get(i).getName() for i in range(om.getActuators().getSize())]
    set_random_coordinates(om, ostate, rng, moving)
    om.assemble(ostate)
    activations = rng.uniform(0.02, 1.0, len(names))
    excitations = rng.uniform(0.0, 1.0, len(names))
    for name, a in zip(names, activations):
        muscles.get(name).setActivation(ostate, a)
    om.equilibrateMuscles(ostate)
    om.realizeVelocity(ostate)
    controls = om.getControls(ostate)
    for name, e in zip(names, excitations):
        controls.set(actuators.index(name), float(e))
    om.setControls(ostate, controls)
    om.realizeAcceleration(ostate)

    set_kinetree_coordinates(model, state, om, ostate)
    for name, a in zip(names, activations):
        model.muscles[name].set_activation(state, a)
    model.set_controls(state, dict(zip(names, excitations)))
    model.equilibrate_muscles(state)
    model.system.realize(state, kt.Stage.ACCELERATION)
    return names


def assert_udot_matches_opensim(model, state, opensim_model, opensim_state, label=""):
    """``set_kinetree_coordinates``, then u̇ of every coordinate against OpenSim's (in
    ``opensim_state``, realized to Acceleration) to 1e-8 relative. Returns the names."""
    names = set_kinetree_coordinates(model, state, opensim_model, opensim_state)
    coordinates = opensim_model.getCoordinateSet()
    for name in names:
        expected = coordinates.get(name).getAccelerationValue(opensim_state)
        got = model.coordinates[name].get_acceleration_value(state)
        assert abs(got - expected) <= 1e-8 * max(1.0, abs(expected)), \
            f"{label} {name}: kinetree {got!r}, OpenSim {expected!r}"
    return names


class UserFunction(kt.Function):
    """``f`` behind a user's Function: the same values, so that an element built on it
    takes the Python path a user's own Function takes."""

    def __init__(self, f):
        self._f = f

    def calc_value(self, x):
        return self._f.calc_value(x)

    def calc_derivative(self, deriv_components, x):
        return self._f.calc_derivative(deriv_components, x)

    def get_argument_size(self):
        return self._f.get_argument_size()

    def get_max_derivative_order(self):
        return 2


class Recorder:
    """A stand-in for viser's scene API: records each node added (name -> (kind,
    positional arguments, keyword arguments)) and hands back handles whose pose can be
    set, each with the keyword arguments it was drawn with (``kwargs``)."""

    class Handle:
        def __init__(self, nodes, name):
            self.nodes, self.name = nodes, name
            self.position, self.wxyz = np.zeros(3), np.array([1.0, 0, 0, 0])

        @property
        def kwargs(self):
            return self.nodes[self.name][2]

        def remove(self):
            del self.nodes[self.name]

    def __init__(self):
        self.nodes, self.handles, self.up = {}, {}, None
        self.scene = self

    def set_up_direction(self, up):
        self.up = up

    def __getattr__(self, method):
        if not method.startswith("add_"):
            raise AttributeError(method)

        def add(name, *args, **kwargs):
            self.nodes[name] = (method, args, kwargs)
            self.handles[name] = Recorder.Handle(self.nodes, name)
            return self.handles[name]
        return add


def ball_pendulum_on_a_rod():
    """A body on a Ball mobilizer (quaternion q) under gravity whose tip is tied by a Rod
    to a Ground point, satisfied at the start: a loop, 2 degrees of freedom."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    com = [0.0, -0.5, 0.05]
    central = kt.Inertia(0.02, 0.01, 0.025)
    body = kt.Body.Rigid(kt.MassProperties(1.0, com, central.shift_from_mass_center(com, 1.0)))
    ball = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform(), body, kt.Transform())
    kt.Constraint.Rod(matter.Ground(), [1.0, -1.0, 0.0], ball, [0, -1, 0], 1.0)
    state = system.realize_topology()
    ball.set_u(state, [1.0, 2.0, 0.5])
    return system, state, ball


def _ground(v) -> np.ndarray:
    return np.array([v[k] for k in range(3)])


def opensim_path_is_consistent(muscle, ostate) -> bool:
    """Whether each of OpenSim's wrap lengths over a cylinder in ``muscle``'s current
    path is the length of the helix between the two tangent points OpenSim reports
    (sqrt((R Δθ)² + Δz²) in the cylinder's frame, to 1e-9 m): plain geometry on
    OpenSim's own numbers."""
    import opensim

    points = muscle.getGeometryPath().getCurrentPath(ostate)
    for i in range(1, points.getSize()):
        wa = opensim.PathWrapPoint.safeDownCast(points.get(i - 1))
        wb = opensim.PathWrapPoint.safeDownCast(points.get(i))
        if wa is None or wb is None or \
                wa.getWrapObject().getName() != wb.getWrapObject().getName():
            continue
        cylinder = opensim.WrapCylinder.safeDownCast(wb.getWrapObject())
        if cylinder is None:
            continue
        X_GB = cylinder.getFrame().getTransformInGround(ostate)
        R_GB = np.array([[X_GB.R().get(r, c) for c in range(3)] for r in range(3)])
        R_BW = kt.Rotation.from_body_fixed_xyz(
            _ground(cylinder.get_xyz_body_rotation())).as_matrix()
        R_GW = R_GB @ R_BW
        p_GW = _ground(X_GB.p()) + R_GB @ _ground(cylinder.get_translation())
        a, b = (R_GW.T @ (_ground(w.getLocationInGround(ostate)) - p_GW) for w in (wa, wb))
        turn = abs(np.angle(complex(*b[:2]) / complex(*a[:2])))
        helix = np.hypot(cylinder.get_radius() * turn, b[2] - a[2])
        if abs(helix - wb.getWrapLength(ostate)) > 1e-9:
            return False
    return True
