"""kinetree's MobilizedBody.FunctionBased against Simbody's, through OpenSim's CustomJoint:
a knee whose SpatialTransform couples the tibia's translations to the flexion angle through
splines, and a two-coordinate joint whose six transform axes are all driven, built the same
way in both with random frames and mass properties mid-chain; at random states u̇ agrees to
1e-8 (about 1e-14 in practice). A third joint, one coordinate driving all three rotations,
exposes an approximation in Simbody's HDot (see ``test_rolling_knee_matches_simbody``); for
it kinetree is checked against finite differences instead.

Splines: kinetree's ``Function.Spline`` is the natural cubic interpolant. OpenSim's
``GCVSpline`` of degree 3 with the default error variance 0 is the same spline (Woltring's
GCVSPL with zero smoothing: the natural cubic interpolant), so it is used here; OpenSim's
``SimmSpline``, which the gait models use, has different end conditions (its values differ
from the natural spline's by up to 1.5e-4 m on the gait2392 knee data) and only first and
second derivatives. The other functions map one to one: LinearFunction(a, b) is
``Function.Linear([a, b])``, PolynomialFunction (highest power first) is
``Function.Polynomial``, and Constant(c) on an axis without coordinates is
``Function.Constant(c, 0)``.

CustomJoint conventions, as kinetree's FunctionBased: rotation1-3 are applied in sequence
as body-fixed rotations about their axes, translation1-3 are along axes fixed in the parent
frame F, and the coordinates are the mobilizer's q with q̇ = u. OpenSim may replace the axis
of a rotation that no coordinate drives (to keep the three rotation axes independent), so
kinetree is given the axes read back from the joint after ``initSystem``. q and u are set,
and u̇ read, through the named coordinates (for these joints u̇ = q̈).
"""

import runpy
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt

osim = pytest.importorskip("opensim")

G = 9.80665

# The gait2392 knee table (Yamaguchi & Zajac 1989), as examples/knee.py holds it: knee
# angle (rad) -> tibia origin along the femur's x and y (m).
_KNEE = runpy.run_path(str(Path(__file__).resolve().parents[2] / "examples" / "knee.py"))
KNEE_ANGLE_X, TIBIA_X = _KNEE["KNEE_ANGLE_X"], _KNEE["TIBIA_X"]
KNEE_ANGLE_Y, TIBIA_Y = _KNEE["KNEE_ANGLE_Y"], _KNEE["TIBIA_Y"]

Q_RANGE = 2.0
"""rad: random coordinates stay within ±Q_RANGE, inside every spline's data (±2.0944), so
no spline is extrapolated (kinetree continues the end cubics; GCVSpline need not)."""


def vec3(v):
    return osim.Vec3(*map(float, v))


def spline(x, y):
    """(OpenSim GCVSpline of degree 3, kinetree Function.Spline) through the points."""
    o = osim.GCVSpline()
    o.setDegree(3)
    for a, b in zip(x, y, strict=True):
        o.addPoint(float(a), float(b))
    return o, kt.Function.Spline(x, y)


def linear(slope, offset=0.0):
    return osim.LinearFunction(float(slope), float(offset)), kt.Function.Linear([slope, offset])


def polynomial(coefficients):
    """Coefficients highest power first, as both libraries take them."""
    v = osim.Vector(len(coefficients), 0.0)
    for i, c in enumerate(coefficients):
        v.set(i, float(c))
    return osim.PolynomialFunction(v), kt.Function.Polynomial(coefficients)


def constant(value):
    return osim.Constant(float(value)), kt.Function.Constant(value, 0)


def knee(rng):
    """One coordinate: flexion about a random axis drives the rotation (identity) and the
    gait2392 splines along two random translation axes; the other rotations and the third
    translation are constants."""
    rot, trans = random_axes(rng), random_axes(rng)
    return 1, [(rot[0], [0], linear(1.0)),
               (rot[1], [], constant(0.0)),
               (rot[2], [], constant(0.0)),
               (trans[0], [0], spline(KNEE_ANGLE_X, TIBIA_X)),
               (trans[1], [0], spline(KNEE_ANGLE_Y, TIBIA_Y)),
               (trans[2], [], constant(rng.uniform(-0.05, 0.05)))]


def coupled(rng):
    """Two coordinates, every axis driven: rotations by a line of q0, a random spline of
    q1 and a cubic of q1; translations by random splines of q1 and q0 and a quadratic of
    q1. Rotation 0 depends on q0 alone and rotation 2 not on q0: the layout that Simbody's
    HDot handles exactly (see ``test_rolling_knee_matches_simbody``)."""
    rot, trans = random_axes(rng), random_axes(rng)
    return 2, [(rot[0], [0], linear(rng.uniform(0.5, 1.5), rng.uniform(-0.3, 0.3))),
               (rot[1], [1], random_spline(rng, 0.8)),
               (rot[2], [1], polynomial(rng.uniform(-0.3, 0.3, 4))),
               (trans[0], [1], random_spline(rng, 0.1)),
               (trans[1], [0], random_spline(rng, 0.1)),
               (trans[2], [1], polynomial(rng.uniform(-0.1, 0.1, 3)))]


def rolling_knee(rng):
    """One coordinate driving all six axes, as in knee models whose adduction and internal
    rotation follow flexion: flexion itself, two random splines for the other rotations,
    the gait2392 splines and a random one for the translations."""
    rot, trans = random_axes(rng), random_axes(rng)
    return 1, [(rot[0], [0], linear(1.0)),
               (rot[1], [0], random_spline(rng, 0.1)),
               (rot[2], [0], random_spline(rng, 0.3)),
               (trans[0], [0], spline(KNEE_ANGLE_X, TIBIA_X)),
               (trans[1], [0], spline(KNEE_ANGLE_Y, TIBIA_Y)),
               (trans[2], [0], random_spline(rng, 0.01))]


def random_spline(rng, scale):
    """A spline through 9 random values (within ±scale) at knots spread over ±2.0944."""
    knots = np.linspace(-2.0944, 2.0944, 9)
    return spline(knots, scale * rng.uniform(-1, 1, knots.size))


def random_axes(rng):
    """Three unit axes, well apart from one another."""
    while True:
        a = rng.normal(size=(3, 3))
        a /= np.linalg.norm(a, axis=1, keepdims=True)
        if abs(np.linalg.det(a)) > 0.3:
            return a


def random_link(rng):
    """(mass (kg), mass centre (m), central inertia (xx, yy, zz, xy, xz, yz) in kg m²)."""
    moments = rng.uniform(0.02, 0.04, 3)
    products = rng.uniform(-0.003, 0.003, 3)
    return rng.uniform(0.5, 4.0), rng.uniform(-0.2, 0.2, 3), (*moments, *products)


def random_links(rng):
    """Three links (thigh, shank, foot): each (mass, mass centre, central inertia, the
    joint's location and body-fixed X-Y-Z angles on the parent, then on the child)."""
    return [(*random_link(rng), rng.uniform(-0.4, 0.4, 3), rng.uniform(-1, 1, 3),
             rng.uniform(-0.4, 0.4, 3), rng.uniform(-1, 1, 3)) for _ in range(3)]


KINDS = ("pin", "custom", "pin")
"""Ground -Pin- thigh -CustomJoint (FunctionBased)- shank -Pin- foot: the custom joint sits
mid-chain, so its velocity terms reach a child and its inertia comes from both sides."""


def spatial_transform(spec):
    """OpenSim's SpatialTransform of the six (axis, coordinates, functions) of ``spec``;
    coordinate j is named c{j}."""
    st = osim.SpatialTransform()
    for k, (axis, coords, (o_fn, _)) in enumerate(spec):
        ta = st.updTransformAxis(k)
        names = osim.ArrayStr()
        for j in coords:
            names.append(f"c{j}")
        ta.setCoordinateNames(names)
        ta.setAxis(vec3(axis))
        owned = o_fn.clone()    # setFunction adopts the pointer: Python must not free it
        owned.thisown = False
        ta.setFunction(owned)
    return st


def build_opensim(links, spec):
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    parent = model.getGround()
    for i, (kind, (mass, com, inertia, loc_p, ori_p, loc_c, ori_c)) in enumerate(
            zip(KINDS, links, strict=True)):
        body = osim.Body(f"b{i}", mass, vec3(com), osim.Inertia(*map(float, inertia)))
        frames = (parent, vec3(loc_p), vec3(ori_p), body, vec3(loc_c), vec3(ori_c))
        joint = (osim.PinJoint(f"j{i}", *frames) if kind == "pin"
                 else osim.CustomJoint(f"j{i}", *frames, spatial_transform(spec)))
        model.addBody(body)
        model.addJoint(joint)
        parent = body
    return model


def opensim_axes(model):
    """The six axes of the custom joint as OpenSim settled them (unit, in F)."""
    st = osim.CustomJoint.safeDownCast(model.getJointSet().get("j1")).getSpatialTransform()
    axes = [st.getTransformAxis(k).getAxis() for k in range(6)]
    return np.array([[a.get(0), a.get(1), a.get(2)] for a in axes])


def build_kinetree(links, nq, spec, axes):
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    parent = matter.Ground()
    for kind, (mass, com, inertia, loc_p, ori_p, loc_c, ori_c) in zip(KINDS, links,
                                                                       strict=True):
        body = kt.Body.Rigid(kt.MassProperties(
            mass, com, kt.Inertia(*inertia).shift_from_mass_center(com, mass)))
        X_PF = kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_p), loc_p)
        X_BM = kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_c), loc_c)
        if kind == "pin":
            parent = kt.MobilizedBody.Pin(parent, X_PF, body, X_BM)
        else:
            parent = kt.MobilizedBody.FunctionBased(
                parent, X_PF, body, X_BM, nq, [fn for _, _, (_, fn) in spec],
                [coords for _, coords, _ in spec], axes)
    return system, matter


class Pair:
    """The OpenSim model and the kinetree System of one joint spec, with a random state
    set in both (``set_random_state``) and realized to ACCELERATION."""

    def __init__(self, make_custom, seed):
        self.rng = np.random.default_rng(seed)
        nq, spec = make_custom(self.rng)
        links = random_links(self.rng)
        self.model = build_opensim(links, spec)
        self.o_state = self.model.initSystem()
        axes = opensim_axes(self.model)
        driven = [k for k, (_, coords, _) in enumerate(spec) if coords]
        np.testing.assert_allclose(axes[driven], np.array([a for a, _, _ in spec])[driven],
                                   atol=1e-15)
        self.system, self.matter = build_kinetree(links, nq, spec, axes)
        self.k_state = self.system.realize_topology()
        names = ["j0_coord_0", *(f"c{j}" for j in range(nq)), "j2_coord_0"]
        self.coordinates = [self.model.getCoordinateSet().get(name) for name in names]
        assert self.o_state.getNU() == self.k_state.get_num_u() == len(names)

    def set_random_state(self):
        n = len(self.coordinates)
        self.q = self.rng.uniform(-Q_RANGE, Q_RANGE, n)
        self.u = self.rng.uniform(-2, 2, n)
        for c, qi, ui in zip(self.coordinates, self.q, self.u, strict=True):
            c.setValue(self.o_state, float(qi), False)
            c.setSpeedValue(self.o_state, float(ui))
        self.model.realizeAcceleration(self.o_state)
        self.k_state.set_q(self.q)
        self.k_state.set_u(self.u)
        self.system.realize(self.k_state, kt.Stage.ACCELERATION)

    def opensim_udot(self):
        return np.array([c.getAccelerationValue(self.o_state) for c in self.coordinates])

    def kinetree_velocities(self, q, u):
        """V_GB (6 per body: angular, then linear, in Ground) at q, u."""
        s = self.k_state.copy()
        s.set_q(q)
        s.set_u(u)
        self.system.realize(s, kt.Stage.VELOCITY)
        return np.array([self.matter.get_mobilized_body(i + 1).get_body_velocity(s)
                         for i in range(len(KINDS))])


def spatial(v):
    """An OpenSim SpatialVec as 6 floats."""
    return [v.get(k).get(j) for k in range(2) for j in range(3)]


@pytest.mark.parametrize("make_custom", [knee, coupled])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_custom_joint_matches_function_based(make_custom, seed):
    pair = Pair(make_custom, seed)
    for _ in range(5):
        pair.set_random_state()
        for i in range(len(KINDS)):
            body = pair.model.getBodySet().get(i)
            mobod = pair.matter.get_mobilized_body(i + 1)
            p = body.getPositionInGround(pair.o_state)
            np.testing.assert_allclose(mobod.get_body_origin_location(pair.k_state),
                                       [p.get(0), p.get(1), p.get(2)], atol=1e-12)
            np.testing.assert_allclose(mobod.get_body_velocity(pair.k_state),
                                       spatial(body.getVelocityInGround(pair.o_state)),
                                       atol=1e-12)
        udot_o = pair.opensim_udot()
        np.testing.assert_allclose(pair.k_state.get_u_dot(), udot_o, rtol=1e-8,
                                   atol=1e-8 * np.abs(udot_o).max())


@pytest.mark.parametrize("make_custom", [knee, coupled, rolling_knee])
def test_function_based_bias_matches_finite_differences(make_custom):
    """The body accelerations with u̇ = 0 (A - J u̇) are the time derivative of the body
    velocities at fixed u along q̇ = u, to central-difference accuracy."""
    pair = Pair(make_custom, 7)
    h = 1e-6
    for _ in range(3):
        pair.set_random_state()
        q, u = pair.q, pair.u
        rate = (pair.kinetree_velocities(q + h * u, u)
                - pair.kinetree_velocities(q - h * u, u)) / (2 * h)
        A = np.array([pair.matter.get_mobilized_body(i + 1).get_body_acceleration(pair.k_state)
                      for i in range(len(KINDS))])
        bias = A - pair.kinetree_velocities(q, pair.k_state.get_u_dot())
        np.testing.assert_allclose(bias, rate, atol=1e-7 * np.abs(rate).max())


@pytest.mark.xfail(strict=True, reason=(
    "Known deviation in Simbody's FunctionBasedImpl::buildHdot (OpenSim 4.6): it turns the "
    "second rotation axis with the angular velocity that coordinate 0 produces, and the "
    "third with that of coordinates 0 and 1, where the rates of the earlier rotations "
    "belong. They agree when rotation 0 depends on q0 alone, rotation 2 not on q0 and, "
    "with three or more coordinates, rotation 1 on q0 and q1 alone. With one coordinate "
    "driving several rotations (adduction and internal rotation as splines of flexion) "
    "Simbody's HDot u misses terms and u̇ differs by up to about 2e-2 of its largest "
    "entry; kinetree's bias matches finite differences "
    "(test_function_based_bias_matches_finite_differences[rolling_knee])."))
def test_rolling_knee_matches_simbody():
    pair = Pair(rolling_knee, 0)
    pair.set_random_state()
    udot_o = pair.opensim_udot()
    np.testing.assert_allclose(pair.k_state.get_u_dot(), udot_o, rtol=1e-8,
                               atol=1e-8 * np.abs(udot_o).max())
