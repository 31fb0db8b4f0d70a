"""A port of Simbody's own test Simbody/tests/TestMassMatrix.cpp to kinetree: the operators
that act as if they used the mass matrix M or the Jacobians without forming them.

Simbody's subtests, in its order:
- testPositionKinematics, testVelocityKinematics: the lazily realized position and velocity
  kinematics (realize_position_kinematics, ...) and when a change invalidates them (q, u
  and Instance-stage changes do, a change of time does not);
- testRel2Cart: a 1 m pendulum's station and frame Jacobians at three angles, built four
  ways from the system Jacobian and its transpose (imitations of SD/FAST's sdrel2cart) and
  by calc_station_jacobian / calc_frame_jacobian and their products;
- testJacobianBiasTerms: J̇u of the station, frame and system Jacobians against central
  differences of J (and of J u) along q̇, to sqrt(eps);
- testCompositeBodyInertia: two point-mass pendulum links; Hᵀ R H is the inertia about
  each pin axis, then the composite inertias realized and invalidated on request;
- testArticulatedBodyInertia, testArticulatedBodyVelocity: realization bookkeeping only
  (what realizes and what invalidates the articulated inertias and velocity terms; the
  Weld of makeSystem left out, as in testConstrainedSystem);
- testUnconstrainedSystem: M and M⁻¹ products against each other and against the
  explicit matrices, forward dynamics against M⁻¹ f at zero speed, inverse dynamics
  against forward dynamics, the Coriolis and centrifugal terms against body-by-body
  sums, empty arguments as zeros, wrong lengths refused;
- testConstrainedSystem: inverse dynamics with multipliers is zero at the realized u̇ and
  λ; G u̇ from the operator and the matrix; the acceleration errors are G u̇ + bias;
- testTaskJacobians: system, station and frame Jacobians of every body at random stations,
  by matrices, products, transposes and shifting.

Simbody's random numbers (Test::randReal, uniform in [-1, 1]) come from a seeded numpy
generator; its tolerances are kept (SignificantReal = eps^(7/8), SqrtEps, and Slop = nu ·
SignificantReal where Simbody uses it). Simbody keeps Jacobians both as matrices of spatial
vectors and as scalar matrices and checks one against the other; kinetree has the scalar
layout only, and the port checks its blocks (``blocks``) where Simbody compares layouts. A
test using a Simbody name kinetree does not have yet is skipped while the name is missing,
the names listed in the reason.
"""

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError, StageTooLowError

EPS = np.finfo(float).eps
SIGNIFICANT_REAL = EPS ** 0.875
SQRT_EPS = EPS ** 0.5


def numerically_equal(a, b, n=1, tol=SIGNIFICANT_REAL) -> bool:
    """SimTK::Test::numericallyEqual, elementwise: |aᵢ - bᵢ| < n · max(|aᵢ|, |bᵢ|, 1) · tol
    (relative for large values, absolute below 1); different shapes are never equal."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    return bool(np.all(np.abs(a - b) < n * np.maximum(np.maximum(np.abs(a), np.abs(b)), 1.0)
                       * tol))


def _report(a, b) -> str:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    return f"largest |a - b| {np.max(np.abs(a - b), initial=0.0):.3g}"


def check_eq(a, b, n=1):
    """SimTK_TEST_EQ (and SimTK_TEST_EQ_SIZE with n)."""
    assert numerically_equal(a, b, n), _report(a, b)



def check_eq_tol(a, b, tol):
    """SimTK_TEST_EQ_TOL."""
    assert numerically_equal(a, b, 1, tol), f"{_report(a, b)} (tolerance {tol:g})"



def cross_mat(p) -> np.ndarray:
    """SimTK::crossMat(p): [p]x, with [p]x v = p × v."""
    return np.array([[0.0, -p[2], p[1]], [p[2], 0.0, -p[0]], [-p[1], p[0], 0.0]])


def blocks(J, width):
    """The rows of a scalar Jacobian (width · nt x nu) grouped per task: (nt, width, nu),
    Simbody's matrix of Vec3 (width 3) or SpatialVec (width 6) elements."""
    return J.reshape(-1, width, J.shape[1])


class MyForceImpl(kt.Force.Custom.Implementation):
    """Applies a constant set of mobility and body forces that can be set from outside
    (an empty set applies nothing)."""

    def __init__(self):
        super().__init__()
        self.f = np.zeros(0)
        self.F = np.zeros((0, 6))

    def calc_force(self, state, body_forces, particle_forces, mobility_forces):
        assert self.f.size == 0 or self.f.size == mobility_forces.size
        assert self.F.size == 0 or self.F.shape == body_forces.shape
        if self.f.size:
            mobility_forces += self.f
        if self.F.size:
            body_forces += self.F

    def calc_potential_energy(self, state):
        return 0.0

    def set_mobility_forces(self, mob_frc):
        self.f = np.array(mob_frc, dtype=float)

    def set_body_forces(self, bod_frc):
        self.F = np.array(bod_frc, dtype=float)


class Rand:
    """Simbody's Test::rand* from one seeded generator: every number uniform in [-1, 1]."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def real(self):
        return float(self.rng.uniform(-1, 1))

    def vector(self, m):
        return self.rng.uniform(-1, 1, m)

    def vec3(self):
        return self.vector(3)

    def spatial_vec(self):
        return self.vector(6)

    def rotation(self):
        return kt.Rotation.about_axis((np.pi / 2) * self.real(), self.vec3())

    def transform(self):
        return kt.Transform(self.rotation(), self.vec3())


# ----------------------------------------------------------- sdrel2cart
def sbrel2cart(state, matter, body_ix, p_BS):
    """An imitation of SD/FAST's sdrel2cart: JS (nu x 3, row i the station velocity for
    u = e_i) from the body rows of the system Jacobian columns J u, times [-[p]x | 1]."""
    nu = state.get_num_u()
    mobod = matter.get_mobilized_body(body_ix)
    p_BS_G = mobod.express_vector_in_ground_frame(state, p_BS)
    J = np.zeros((nu, 6))
    u = np.zeros(nu)
    for i in range(nu):
        u[i] = 1
        J[i] = matter.multiply_by_system_jacobian(state, u)[body_ix]
        u[i] = 0
    dvdV = np.hstack([-cross_mat(p_BS_G), np.eye(3)])
    return np.array([dvdV @ J[i] for i in range(nu)])


def sbrel2cart2(state, matter, body_ix, p_BS):
    """The same, from Jᵀ: six transposed products with unit spatial forces on the body."""
    nu = state.get_num_u()
    nb = matter.get_num_bodies()
    mobod = matter.get_mobilized_body(body_ix)
    p_BS_G = mobod.express_vector_in_ground_frame(state, p_BS)
    Jt = np.zeros((nu, 6))
    F = np.zeros((nb, 6))
    for k in range(6):                      # moment, then force
        F[body_ix, k] = 1
        Jt[:, k] = matter.multiply_by_system_jacobian_transpose(state, F)
        F[body_ix, k] = 0
    dvdV = np.hstack([-cross_mat(p_BS_G), np.eye(3)])
    return np.array([dvdV @ Jt[i] for i in range(nu)])


def sbrel2cart3(state, matter, body_ix, p_BS):
    """The same with three transposed products only: a unit force at the station is the
    spatial force [p × f; f] at the body origin."""
    nu = state.get_num_u()
    nb = matter.get_num_bodies()
    mobod = matter.get_mobilized_body(body_ix)
    p_BS_G = mobod.express_vector_in_ground_frame(state, p_BS)
    dvdu = np.zeros((nu, 3))
    F = np.zeros((nb, 6))
    for i in range(3):
        F[body_ix, 3 + i] = 1
        F[body_ix, :3] = np.cross(p_BS_G, F[body_ix, 3:])
        dvdu[:, i] = matter.multiply_by_system_jacobian_transpose(state, F)
        F[body_ix, 3 + i] = 0
    return dvdu


def sbrel2cart4(state, matter, body_ix, p_BS):
    """The frame Jacobian (nu x 6) by six transposed products: unit torques for the
    rotational part, unit forces at the station for the translational part."""
    nu = state.get_num_u()
    nb = matter.get_num_bodies()
    mobod = matter.get_mobilized_body(body_ix)
    p_BS_G = mobod.express_vector_in_ground_frame(state, p_BS)
    dVdu = np.zeros((nu, 6))
    F = np.zeros((nb, 6))
    for i in range(3):
        F[body_ix, i] = 1
        dVdu[:, i] = matter.multiply_by_system_jacobian_transpose(state, F)
        F[body_ix, i] = 0
    for i in range(3):
        F[body_ix, 3 + i] = 1
        F[body_ix, :3] = np.cross(p_BS_G, F[body_ix, 3:])
        dVdu[:, 3 + i] = matter.multiply_by_system_jacobian_transpose(state, F)
        F[body_ix, 3 + i] = 0
        F[body_ix, :3] = 0
    return dVdu


def test_rel2cart():
    """testRel2Cart: a pendulum of length 1 along -x at q = 0: the body origin moves along
    -y, at q = π/2 along +x; the station (0, 1, 0) at q = π/4 moves along -y at √2; the
    angular part is always z. Every construction agrees with calc_station_jacobian and
    calc_frame_jacobian and their products."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    pin_body = kt.MobilizedBody.Pin(
        matter.Ground(), kt.Transform(),
        kt.Body.Rigid(kt.MassProperties(1, [0, 0, 0], kt.Inertia(1))), kt.Transform([1, 0, 0]))
    s = system.realize_topology()
    b = pin_body.get_mobilized_body_index()

    for angle, station, v in ((0.0, [0, 0, 0], [0, -1, 0]),
                              (np.pi / 2, [0, 0, 0], [1, 0, 0]),
                              (np.pi / 4, [0, 1, 0], [0, -np.sqrt(2), 0])):
        pin_body.set_one_q(s, 0, angle)
        system.realize(s, kt.Stage.POSITION)
        dvdu = sbrel2cart(s, matter, b, station)
        check_eq(dvdu[0], v)
        dvdu2 = sbrel2cart2(s, matter, b, station)
        check_eq(dvdu2[0], v)
        dvdu3 = sbrel2cart3(s, matter, b, station)
        check_eq(dvdu3[0], v)

        JS = matter.calc_station_jacobian(s, pin_body, station)      # 3 x nu
        check_eq(JS, dvdu3.T)                                          # == dvdu2 == dvdu
        check_eq(blocks(JS, 3)[0], JS)

        if angle == np.pi / 4:
            # JS by multiplication: multiply_by_station_jacobian(_transpose)
            u = np.array([1.0])
            JSn = matter.multiply_by_station_jacobian(s, pin_body, station, u)
            check_eq(JSn, dvdu3[0])
            FS = np.zeros(3)
            JSnt = np.zeros(3)
            for i in range(3):
                FS[i] = 1
                u = matter.multiply_by_station_jacobian_transpose(s, pin_body, station, FS)
                FS[i] = 0
                JSnt[i] = u[0]
            check_eq(JSnt, dvdu3[0])

        dvdu4 = sbrel2cart4(s, matter, b, station)
        check_eq(dvdu4[0, :3], [0, 0, 1])
        check_eq(dvdu4[0, 3:], v)
        JF = matter.calc_frame_jacobian(s, pin_body, station)         # 6 x nu
        check_eq(dvdu4, JF.T)
        check_eq(blocks(JF, 6)[0], JF)

        if angle == np.pi / 4:
            u = np.array([1.0])
            JFn = matter.multiply_by_frame_jacobian(s, pin_body, station, u)
            check_eq(JFn, dvdu4[0])
            FF = np.zeros(6)
            JFnt = np.zeros(6)
            for i in range(6):
                FF[i] = 1
                u = matter.multiply_by_frame_jacobian_transpose(s, pin_body, station, FF)
                FF[i] = 0
                JFnt[i] = u[0]
            check_eq(JFnt, dvdu4[0])

        # The whole system Jacobian in its two layouts.
        J = matter.calc_system_jacobian(s)
        check_eq(blocks(J, 6).reshape(J.shape), J)

    # The whole system Jacobian one body at a time by multiplication, Ground included.
    u = np.array([1.0])
    Jn = np.array([matter.multiply_by_frame_jacobian(s, i, [0, 0, 0], u)
                   for i in range(matter.get_num_bodies())])
    check_eq(Jn.reshape(-1, 1), matter.calc_system_jacobian(s))


def make_system(constrained, rand, weld=True):
    """Simbody's makeSystem: a tree of the same pendulum body on Ball, Weld, Pin, Screw
    (pitch 3), Translation, BendStretch, Slider, Universal, Slider and Planar mobilizers
    with random frames; with ``constrained`` a Rod, a ConstantSpeed, a ConstantAcceleration
    and (unless ``weld`` is False) a Weld between random frames ("probably can't be
    satisfied, but doesn't matter"). Returns the system, its matter subsystem and the
    custom force's implementation."""
    system = kt.MultibodySystem()
    pend = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    frcp = MyForceImpl()
    kt.Force.Custom(forces, frcp)

    random_angle1 = (np.pi / 2) * rand.real()
    random_angle2 = (np.pi / 2) * rand.real()
    random_vecs = [rand.vec3() for _ in range(10)]

    mass = 2.3
    com = random_vecs[5]
    inertia = kt.Inertia(3, 4, 5, .01, -.02, .04).shift_from_mass_center(com, mass)
    pendulum_body = kt.Body.Rigid(kt.MassProperties(mass, com, inertia))

    def X(angle, axis, p):
        return kt.Transform(kt.Rotation.about_axis(angle, random_vecs[axis]), random_vecs[p])

    M = kt.MobilizedBody
    a1, a2 = random_angle1, random_angle2
    pend_body1 = M.Ball(pend.Ground(), X(a1, 0, 1), pendulum_body, X(a2, 2, 3))
    pend_body2 = M.Weld(pend_body1, X(a1, 4, 5), pendulum_body, X(a2, 6, 7))
    pend_body3 = M.Pin(pend_body2, X(a1, 8, 9), pendulum_body, X(a2, 8, 7))
    pend_body4 = M.Screw(pend_body3, X(a2, 6, 5), pendulum_body, X(a1, 4, 3), 3)
    pend_body5 = M.Translation(pend_body4, X(a2, 2, 1), pendulum_body, X(a1, 0, 1))
    # Now add some side branches.
    M.BendStretch(pend_body1, X(a2, 2, 3), pendulum_body, X(a1, 4, 5))
    pend_body2a = M.Slider(pend_body2, X(a1, 6, 7), pendulum_body, X(a2, 8, 9))
    pend_body2b = M.Universal(pend_body2a, X(a1, 8, 7), pendulum_body, X(a2, 6, 5))
    M.Slider(pend_body2b, X(a1, 6, 7), pendulum_body, X(a2, 8, 9))
    pend_body4a = M.Planar(pend_body4, X(a1, 4, 3), pendulum_body, X(a2, 2, 1))

    if constrained:
        kt.Constraint.Rod(pend_body4, pend_body2b, 1.0)                   # holonomic
        kt.Constraint.ConstantSpeed(pend_body2a, 0, -3.0)                 # nonholonomic
        kt.Constraint.ConstantAcceleration(pend_body5, 2, 0.01)           # acceleration only
        frames = rand.transform(), rand.transform()
        if weld:
            kt.Constraint.Weld(pend_body4a, frames[0], pend_body4, frames[1])
    return system, pend, frcp


def test_position_kinematics():
    """testPositionKinematics: the system mass center needs position kinematics, from
    realize(POSITION) or realize_position_kinematics after INSTANCE; a change of q or of
    an Instance-stage variable invalidates them, a change of time does not."""
    rand = Rand(1)
    system, matter, _ = make_system(True, rand)
    state = system.realize_topology()
    nq = state.get_num_q()
    system.realize_model(state)
    state.set_q(rand.vector(nq))
    assert state.get_system_stage() == kt.Stage.MODEL
    with pytest.raises(StageTooLowError):           # stage is too low
        matter.calc_system_mass_center_location_in_ground(state)
    system.realize(state, kt.Stage.INSTANCE)
    with pytest.raises(StageTooLowError):           # Instance alone is not enough
        matter.calc_system_mass_center_location_in_ground(state)
    matter.realize_position_kinematics(state)
    matter.calc_system_mass_center_location_in_ground(state)       # OK
    matter.invalidate_position_kinematics(state)
    with pytest.raises(StageTooLowError):           # no good again
        matter.calc_system_mass_center_location_in_ground(state)
    system.realize(state, kt.Stage.POSITION)
    matter.calc_system_mass_center_location_in_ground(state)       # OK
    state.set_time(1.0)             # should not invalidate position kinematics
    assert state.get_system_stage() == kt.Stage.INSTANCE
    matter.calc_system_mass_center_location_in_ground(state)       # OK
    state.set_q(rand.vector(nq))    # invalidates position kinematics
    assert state.get_system_stage() == kt.Stage.INSTANCE
    with pytest.raises(StageTooLowError):           # not up to date with the q's
        matter.calc_system_mass_center_location_in_ground(state)
    matter.realize_position_kinematics(state)
    matter.calc_system_mass_center_location_in_ground(state)       # OK
    state.invalidate_all(kt.Stage.INSTANCE)
    assert state.get_system_stage() == kt.Stage.MODEL
    with pytest.raises(StageTooLowError):           # stage too low again
        matter.calc_system_mass_center_location_in_ground(state)


def test_velocity_kinematics():
    """testVelocityKinematics: the mass center velocity needs velocity kinematics, which
    need position kinematics; q or u changes invalidate them, time does not."""
    rand = Rand(2)
    system, matter, _ = make_system(True, rand)
    state = system.realize_topology()
    nq, nu = state.get_num_q(), state.get_num_u()
    system.realize_model(state)
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))
    assert state.get_system_stage() == kt.Stage.MODEL
    com_v = matter.calc_system_mass_center_velocity_in_ground
    with pytest.raises(StageTooLowError):           # stage is too low
        com_v(state)
    system.realize(state, kt.Stage.INSTANCE)
    with pytest.raises(StageTooLowError):           # Instance alone is not enough
        com_v(state)
    matter.realize_position_kinematics(state)
    with pytest.raises(StageTooLowError):           # Instance + position kinematics neither
        com_v(state)
    matter.realize_velocity_kinematics(state)
    com_v(state)                                    # OK
    matter.invalidate_velocity_kinematics(state)
    with pytest.raises(StageTooLowError):           # no good again
        com_v(state)
    matter.realize_velocity_kinematics(state)
    com_v(state)                                    # OK
    matter.invalidate_position_kinematics(state)
    with pytest.raises(StageTooLowError):           # no good again
        com_v(state)
    system.realize(state, kt.Stage.VELOCITY)
    com_v(state)                                    # OK
    state.set_time(1.0)             # should not invalidate velocity kinematics
    assert state.get_system_stage() == kt.Stage.INSTANCE
    com_v(state)                                    # OK
    state.set_u(rand.vector(nu))    # invalidates velocity kinematics
    assert state.get_system_stage() == kt.Stage.INSTANCE
    with pytest.raises(StageTooLowError):           # not up to date with the u's
        com_v(state)
    matter.realize_velocity_kinematics(state)
    com_v(state)                                    # OK
    state.set_q(rand.vector(nq))    # invalidates position kinematics
    with pytest.raises(StageTooLowError):           # position kinematics no good
        com_v(state)
    matter.realize_position_kinematics(state)
    with pytest.raises(StageTooLowError):           # velocity kinematics still needed
        com_v(state)
    matter.realize_velocity_kinematics(state)
    com_v(state)                                    # OK
    state.invalidate_all(kt.Stage.INSTANCE)
    assert state.get_system_stage() == kt.Stage.MODEL
    with pytest.raises(StageTooLowError):           # stage too low again
        com_v(state)
    with pytest.raises(StageTooLowError):           # position kinematics needed first
        matter.realize_velocity_kinematics(state)
    system.realize(state, kt.Stage.POSITION)
    matter.realize_velocity_kinematics(state)
    com_v(state)                                    # OK


def test_jacobian_bias_terms():
    """testJacobianBiasTerms: J̇ estimated by central differences of J along q̇ (J̇ ≈
    (J(q + h q̇) - J(q - h q̇)) / 2h), times u, and J̇u estimated directly from the
    J u products, both match the bias operators to sqrt(eps)."""
    rand = Rand(3)
    system, matter, _ = make_system(False, rand)
    state = system.realize_topology()
    nq, nu = state.get_num_q(), state.get_num_u()
    system.realize_model(state)
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))

    which_bod = 8
    which_pt = np.array([1.0, 2.0, 3.0])
    system.realize(state, kt.Stage.VELOCITY)
    q = np.array(state.get_q())
    u = np.array(state.get_u())
    qdot = np.array(state.get_q_dot())

    # sbias, fbias, sysbias are the J̇u quantities to check.
    sbias = matter.calc_bias_for_station_jacobian(state, which_bod, which_pt)
    fbias = matter.calc_bias_for_frame_jacobian(state, which_bod, which_pt)
    sysbias = matter.calc_bias_for_system_jacobian(state)

    def jacobians(s):
        return (matter.calc_station_jacobian(s, which_bod, which_pt),
                matter.calc_frame_jacobian(s, which_bod, which_pt),
                matter.calc_system_jacobian(s),
                matter.multiply_by_station_jacobian(s, which_bod, which_pt, u),
                matter.multiply_by_frame_jacobian(s, which_bod, which_pt, u),
                matter.multiply_by_system_jacobian(s, u))

    delta = 5e-6        # for a central difference
    perturbq = state.copy()
    perturbq.set_q(q + delta * qdot)
    system.realize(perturbq, kt.Stage.POSITION)
    JS2_P, JF2_P, J2, JS2_Pu, JF2_Pu, J2u = jacobians(perturbq)
    perturbq.set_q(q - delta * qdot)
    system.realize(perturbq, kt.Stage.POSITION)
    JS1_P, JF1_P, J1, JS1_Pu, JF1_Pu, J1u = jacobians(perturbq)

    # Estimate the J̇s:
    JSDot_P = (JS2_P - JS1_P) / delta / 2
    JFDot_P = (JF2_P - JF1_P) / delta / 2
    JDot = (J2 - J1) / delta / 2
    # Estimate the J̇us:
    JSDot_Pu = (JS2_Pu - JS1_Pu) / delta / 2
    JFDot_Pu = (JF2_Pu - JF1_Pu) / delta / 2
    JDotu = (J2u - J1u) / delta / 2

    # Errors in J̇ u:
    check_eq_tol(np.linalg.norm(JSDot_P @ u - sbias), 0, SQRT_EPS)
    check_eq_tol(np.linalg.norm(JFDot_P @ u - fbias), 0, SQRT_EPS)
    check_eq_tol(np.linalg.norm(JDot @ u - sysbias.ravel()), 0, SQRT_EPS)
    # Errors in J̇u:
    check_eq_tol(np.linalg.norm(JSDot_Pu - sbias), 0, SQRT_EPS)
    check_eq_tol(np.linalg.norm(JFDot_Pu - fbias), 0, SQRT_EPS)
    check_eq_tol(np.linalg.norm(JDotu - sysbias), 0, SQRT_EPS)


def test_unconstrained_system():
    """testUnconstrainedSystem."""
    rand = Rand(4)
    system, matter, frcp = make_system(False, rand)
    state = system.realize_topology()
    nq, nu, nb = state.get_num_q(), state.get_num_u(), matter.get_num_bodies()
    slop = nu * SIGNIFICANT_REAL          # attainable accuracy drops with problem size
    system.realize_model(state)
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))
    rand_vec = 100 * rand.vector(nu)

    # result1 = M v
    system.realize(state, kt.Stage.POSITION)
    result1 = matter.multiply_by_m(state, rand_vec)
    check_eq(result1.size, nu)
    # result2 = M⁻¹ result1 = M⁻¹ M v = v
    system.realize(state, kt.Stage.DYNAMICS)
    result2 = matter.multiply_by_m_inv(state, result1)
    check_eq(result2.size, nu)
    check_eq_tol(result2, rand_vec, slop)

    M, MInv = np.zeros((nu, nu)), np.zeros((nu, nu))
    v = np.zeros(nu)
    for j in range(nu):
        v[j] = 1
        M[:, j] = matter.multiply_by_m(state, v)
        MInv[:, j] = matter.multiply_by_m_inv(state, v)
        v[j] = 0
    MInvCalc = np.linalg.inv(M)
    check_eq(MInv, MInvCalc, nu)
    identity = np.eye(nu)
    check_eq(M @ MInv, identity, nu)
    check_eq(MInv @ M, identity, nu)
    # Against the explicit calc_m and calc_m_inv.
    check_eq(matter.calc_m(state), M, nu)
    check_eq(matter.calc_m_inv(state), MInv, nu)

    frcp.set_mobility_forces(rand_vec)
    system.realize(state, kt.Stage.ACCELERATION)
    accel = np.array(state.get_u_dot())
    result1 = matter.multiply_by_m_inv(state, rand_vec)
    assert not numerically_equal(accel, result1)          # because of the velocities

    # With no velocities M⁻¹ f should match the calculated acceleration.
    state.set_u(np.zeros(nu))
    system.realize(state, kt.Stage.ACCELERATION)
    accel = np.array(state.get_u_dot())
    check_eq(accel, result1)
    # And then M a should be f.
    result2 = matter.multiply_by_m(state, accel)

    # Forward and inverse dynamics: random forces and a random u̇ give residual forces;
    # applying those must leave no residual and produce that u̇.
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))
    # Inverse dynamics needs realization only to VELOCITY.
    system.realize(state, kt.Stage.VELOCITY)
    body_forces = np.array([rand.spatial_vec() for _ in range(nb)])
    mobility_forces = rand.vector(nu)
    known_udots = rand.vector(nu)

    residual_forces = matter.calc_residual_force_ignoring_constraints(
        state, mobility_forces, body_forces, known_udots)
    should_be_zero = matter.calc_residual_force_ignoring_constraints(
        state, mobility_forces + residual_forces, body_forces, known_udots)
    assert np.linalg.norm(should_be_zero) <= slop

    # These forces in forward dynamics must give the desired accelerations (DYNAMICS).
    system.realize(state, kt.Stage.DYNAMICS)
    udots, body_accels = matter.calc_acceleration_ignoring_constraints(
        state, mobility_forces + residual_forces, body_forces)
    check_eq_tol(udots, known_udots, slop)

    # The same body accelerations from these u̇.
    A_GB = matter.calc_body_acceleration_from_u_dot(state, udots)
    check_eq_tol(A_GB, body_accels, slop)

    AC_GB = np.array([matter.get_total_coriolis_acceleration(state, i) for i in range(nb)])
    # A zero-length or all-zero u̇ gives just the Coriolis accelerations.
    check_eq_tol(matter.calc_body_acceleration_from_u_dot(state, np.zeros(0)), AC_GB, slop)
    check_eq_tol(matter.calc_body_acceleration_from_u_dot(state, np.zeros(nu)), AC_GB, slop)

    # A noncontiguous input (the middle row of a column-major matrix); Simbody's
    # noncontiguous output has no counterpart, kinetree returns a new array.
    mat_udot = np.full((3, nu), np.nan, order="F")
    mat_udot[1] = udots
    check_eq_tol(matter.calc_body_acceleration_from_u_dot(state, mat_udot[1]), body_accels,
                slop)

    # Left-out arguments act as zeros.
    residual_forces1 = matter.calc_residual_force_ignoring_constraints(
        state, 0 * mobility_forces, 0 * body_forces, 0 * known_udots)
    # (not zero: the angular velocities)
    residual_forces2 = matter.calc_residual_force_ignoring_constraints(
        state, np.zeros(0), np.zeros((0, 6)), np.zeros(0))
    check_eq_tol(residual_forces2, residual_forces1, slop)

    # That residual, M u̇ + f_inertial - f_applied with u̇ and f_applied zero, is
    # f_inertial: Jᵀ of the total centrifugal forces.
    F_inertial = np.array([matter.get_total_centrifugal_forces(state, i) for i in range(nb)])
    f_inertial = matter.multiply_by_system_jacobian_transpose(state, F_inertial)
    check_eq_tol(f_inertial, residual_forces1, slop)

    # Which is also each body's mass times its Coriolis acceleration plus its gyroscopic
    # force. (Simbody asks the body for getBodySpatialInertiaInGround; here it is built
    # from the body's mass properties and orientation.)
    F_coriolis = np.zeros((nb, 6))
    for i in range(1, nb):
        F_coriolis[i] = body_spatial_inertia_in_ground(matter.get_mobilized_body(i),
                                                       state) @ AC_GB[i]
    F_gyro = np.array([matter.get_gyroscopic_force(state, i) for i in range(nb)])
    check_eq_tol(F_inertial, F_coriolis + F_gyro, slop)

    # The same with combinations of arguments left out.
    empty_f, empty_F, empty_udot = np.zeros(0), np.zeros((0, 6)), np.zeros(0)
    for full, left_out in (
            ((0 * mobility_forces, body_forces, known_udots),
             (empty_f, body_forces, known_udots)),
            ((mobility_forces, 0 * body_forces, known_udots),
             (mobility_forces, empty_F, known_udots)),
            ((mobility_forces, body_forces, 0 * known_udots),
             (mobility_forces, body_forces, empty_udot)),
            ((0 * mobility_forces, body_forces, 0 * known_udots),
             (empty_f, body_forces, empty_udot)),
            ((mobility_forces, 0 * body_forces, 0 * known_udots),
             (mobility_forces, empty_F, empty_udot))):
        residual_forces1 = matter.calc_residual_force_ignoring_constraints(state, *full)
        residual_forces2 = matter.calc_residual_force_ignoring_constraints(state, *left_out)
        check_eq_tol(residual_forces2, residual_forces1, slop)

    # Wrong-length arguments are refused.
    with pytest.raises(InvalidArgumentError):
        matter.calc_residual_force_ignoring_constraints(state, np.zeros(3), body_forces,
                                                        known_udots)
    with pytest.raises(InvalidArgumentError):
        matter.calc_residual_force_ignoring_constraints(state, mobility_forces,
                                                        np.zeros((5, 6)), known_udots)
    with pytest.raises(InvalidArgumentError):
        matter.calc_residual_force_ignoring_constraints(state, mobility_forces, body_forces,
                                                        np.zeros(2))


def body_spatial_inertia_in_ground(mobod, state) -> np.ndarray:
    """Simbody's MobilizedBody::getBodySpatialInertiaInGround: [[I, m [c]x], [-m [c]x,
    m 1]] about the body origin, I and c (the mass center from the origin) in Ground."""
    props = mobod.get_body_mass_properties(state)
    R = mobod.get_body_rotation(state).as_matrix()
    m = props.get_mass()
    inertia = R @ props.get_inertia().as_mat33() @ R.T
    cx = cross_mat(R @ props.get_mass_center())
    return np.block([[inertia, m * cx], [-m * cx, m * np.eye(3)]])


@pytest.mark.parametrize("weld", [True, False])
@pytest.mark.filterwarnings("ignore:SimbodyMatterSubsystem. the constraints have no solution")
def test_constrained_system(weld):
    """testConstrainedSystem: inverse dynamics with the realized u̇ and multipliers
    leaves no residual, with mobility forces, body forces or both, and with noncontiguous
    arguments cancels extra mobility forces; G u̇ by the operator (with its bias) and by
    the matrix agree, and the acceleration errors are G u̇ + bias. Simbody's Weld
    between a Planar body and its parent at random frames asks for accelerations no u̇
    gives, so u̇ and λ are the least-squares ones (the residual is zero all the same);
    also run without the Weld."""
    rand = Rand(5)
    mbs, matter, frcp = make_system(True, rand, weld)
    state = mbs.realize_topology()
    mbs.realize(state, kt.Stage.INSTANCE)           # allocate the multipliers
    nq, nu, nb = state.get_num_q(), state.get_num_u(), matter.get_num_bodies()
    m = matter.get_num_u_dot_err(state)
    slop = nu * SIGNIFICANT_REAL
    mbs.realize_model(state)
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))

    rand_mob_frc = 100 * rand.vector(nu)
    rand_body_frc = np.array([rand.spatial_vec() for _ in range(nb)])

    # Random mobility forces.
    frcp.set_mobility_forces(rand_mob_frc)
    mbs.realize(state)                  # accelerations and multipliers
    udot = np.array(state.get_u_dot())
    lam = np.array(state.get_multipliers())
    residual = matter.calc_residual_force(state, rand_mob_frc, np.zeros((0, 6)), udot, lam)
    # Zero, since everything is accounted for.
    check_eq_tol(residual, 0 * rand_mob_frc, slop)

    # The acceleration error bias terms.
    abias = matter.calc_bias_for_acceleration_constraints(state)
    # (Simbody's holonomic rows of this one use the velocity-level errors.)
    mgbias = matter.calc_bias_for_multiply_by_g(state)
    mg_gudot = matter.multiply_by_g(state, udot, mgbias)
    G = matter.calc_g(state)
    gudot = G @ udot
    check_eq_tol(mg_gudot, gudot, slop)
    aerr = np.array(state.get_u_dot_err())      # not zero: the constraints are bad ones
    check_eq_tol(gudot + abias, aerr, slop)

    # Add some body forces.
    state.invalidate_all(kt.Stage.DYNAMICS)
    frcp.set_body_forces(rand_body_frc)
    mbs.realize(state)
    udot = np.array(state.get_u_dot())
    lam = np.array(state.get_multipliers())
    residual = matter.calc_residual_force(state, rand_mob_frc, rand_body_frc, udot, lam)
    check_eq_tol(residual, 0 * rand_mob_frc, slop)

    # Body forces only.
    state.invalidate_all(kt.Stage.DYNAMICS)
    frcp.set_mobility_forces(0 * rand_mob_frc)
    mbs.realize(state)
    udot = np.array(state.get_u_dot())
    lam = np.array(state.get_multipliers())
    residual = matter.calc_residual_force(state, np.zeros(0), rand_body_frc, udot, lam)
    check_eq_tol(residual, 0 * rand_mob_frc, slop)

    # Noncontiguous inputs: rows of column-major matrices.
    udotmat = np.zeros((3, nu), order="F")
    mob_frc_mat = np.zeros((11, nu), order="F")
    lambdamat = np.zeros((5, m), order="F")
    body_frc_mat = np.zeros((3, nb, 6), order="F")
    udotmat[2] = udot
    lambdamat[3] = lam
    mob_frc_mat[8] = rand_mob_frc
    body_frc_mat[2] = rand_body_frc
    # u̇ and λ were last computed without mobility forces; with them thrown in, the
    # residual must cancel them.
    residual = matter.calc_residual_force(state, mob_frc_mat[8], body_frc_mat[2], udotmat[2],
                                          lambdamat[3])
    check_eq_tol(residual, -1 * mob_frc_mat[8], slop)


def test_composite_body_inertia():
    """testCompositeBodyInertia: two links whose bodies are 3 kg point masses 3 m out along
    x from their origins; the first turns about Ground's z axis 1.5 m from its origin, the
    second about the first's origin 2 m from its own. Projected on the pin axes, the
    composite inertias are 3 · 5² for the second link and 3 · 4.5² + 3 · 6.5² for the
    first."""
    mbs = kt.MultibodySystem()
    pend = kt.SimbodyMatterSubsystem(mbs)
    # A point mass, but the body origin is not at the mass center: the rigid-body shifts
    # must work.
    point_mass = kt.Body.Rigid(kt.MassProperties(3, [3, 0, 0], kt.UnitInertia(0, 9, 9)))
    # Point mass at x = 4.5 with the origin at x = 1.5, turning about (0, 0, 0).
    body1 = kt.MobilizedBody.Pin(pend.Ground(), kt.Transform(), point_mass,
                                 kt.Transform([-1.5, 0, 0]))
    body1x = body1.get_mobilized_body_index()
    # A second body 2 units further along x, turning about the first one's origin: its
    # origin is at x = 3.5 and its mass at x = 6.5.
    body2 = kt.MobilizedBody.Pin(body1, kt.Transform(), point_mass, kt.Transform([-2, 0, 0]))
    body2x = body2.get_mobilized_body_index()

    state = mbs.realize_topology()
    mbs.realize(state, kt.Stage.POSITION)
    R = pend.calc_composite_body_inertias(state)

    # The inertias about the joint axes.
    exp_inertia2 = body2.get_body_mass_properties(state).get_mass() * (2 + 3) ** 2
    exp_inertia1 = (body1.get_body_mass_properties(state).get_mass() * (1.5 + 3) ** 2
                    + body2.get_body_mass_properties(state).get_mass() * (3.5 + 3) ** 2)
    # Recovered by projecting the composite inertias on the joint axes with the H
    # matrices. (Simbody asks the body for getHCol; a body's own columns of the system
    # Jacobian are its H.)
    J = pend.calc_system_jacobian(state)
    H1 = J[6 * body1x:6 * body1x + 6, body1.get_first_u_index(state)]
    H2 = J[6 * body2x:6 * body2x + 6, body2.get_first_u_index(state)]
    check_eq(H2 @ (R[body2x] @ H2), exp_inertia2)
    check_eq(H1 @ (R[body1x] @ H1), exp_inertia1)

    pend.get_composite_body_inertia(state, body1)
    body2.set_one_q(state, 0, np.pi / 4)            # Simbody's Pin::setAngle
    with pytest.raises(StageTooLowError):           # not before POSITION
        pend.get_composite_body_inertia(state, body1)
    mbs.realize(state, kt.Stage.POSITION)
    pend.get_composite_body_inertia(state, body1)   # now it is


def test_composite_body_inertia_realization():
    """The end of testCompositeBodyInertia: composite inertias realized on request after
    position kinematics alone, and invalidated on request."""
    mbs = kt.MultibodySystem()
    pend = kt.SimbodyMatterSubsystem(mbs)
    point_mass = kt.Body.Rigid(kt.MassProperties(3, [3, 0, 0], kt.UnitInertia(0, 9, 9)))
    body1 = kt.MobilizedBody.Pin(pend.Ground(), kt.Transform(), point_mass,
                                 kt.Transform([-1.5, 0, 0]))
    body2 = kt.MobilizedBody.Pin(body1, kt.Transform(), point_mass, kt.Transform([-2, 0, 0]))
    state = mbs.realize_topology()
    mbs.realize(state, kt.Stage.POSITION)
    body2.set_one_q(state, 0, np.pi / 5)
    pend.realize_position_kinematics(state)
    assert state.get_system_stage() == kt.Stage.TIME
    assert not pend.is_composite_body_inertias_realized(state)
    pend.realize_composite_body_inertias(state)
    assert pend.is_composite_body_inertias_realized(state)
    pend.invalidate_composite_body_inertias(state)
    assert not pend.is_composite_body_inertias_realized(state)


def test_articulated_body_inertia():
    """testArticulatedBodyInertia: validity and invalidation of the articulated
    inertias (not their values)."""
    # Without the Weld, which cannot be satisfied (kinetree refuses to realize it at
    # ACCELERATION, see test_constrained_system); the bookkeeping does not depend on it.
    mbs, matter, _ = make_system(True, Rand(6), weld=False)
    body1, body2 = 1, 2
    state = mbs.realize_topology()
    mbs.realize(state, kt.Stage.POSITION)
    # This forces realization of the articulated body inertias.
    matter.get_articulated_body_inertia(state, body1)
    assert matter.is_articulated_body_inertias_realized(state)
    matter.invalidate_articulated_body_inertias(state)
    assert not matter.is_articulated_body_inertias_realized(state)
    matter.realize_articulated_body_inertias(state)
    assert matter.is_articulated_body_inertias_realized(state)

    state.set_q(np.full(state.get_num_q(), 0.1))
    assert state.get_system_stage() == kt.Stage.TIME
    assert not matter.is_articulated_body_inertias_realized(state)
    with pytest.raises(StageTooLowError):           # not before position kinematics
        matter.get_articulated_body_inertia(state, body2)
    mbs.realize(state, kt.Stage.POSITION)
    matter.get_articulated_body_inertia(state, body1)

    matter.invalidate_position_kinematics(state)    # a prerequisite
    assert not matter.is_articulated_body_inertias_realized(state)
    matter.realize_position_kinematics(state)
    matter.get_articulated_body_inertia(state, body2)   # implicit realization
    assert matter.is_articulated_body_inertias_realized(state)
    assert state.get_system_stage() == kt.Stage.TIME
    state.set_q(np.full(state.get_num_q(), 0.2))
    assert not matter.is_articulated_body_inertias_realized(state)
    mbs.realize(state, kt.Stage.DYNAMICS)           # not high enough
    assert not matter.is_articulated_body_inertias_realized(state)
    mbs.realize(state, kt.Stage.ACCELERATION)       # realizes them implicitly
    assert matter.is_articulated_body_inertias_realized(state)
    state.set_time(1.0)             # no effect on what does not depend on time
    assert state.get_system_stage() == kt.Stage.INSTANCE
    assert matter.is_position_kinematics_realized(state)
    assert matter.is_articulated_body_inertias_realized(state)


def test_articulated_body_velocity():
    """testArticulatedBodyVelocity: validity and invalidation of the velocity-dependent
    articulated-body quantities (not their values)."""
    mbs, matter, _ = make_system(True, Rand(7), weld=False)     # as above
    state = mbs.realize_topology()
    mbs.realize(state, kt.Stage.POSITION)
    # Neither the articulated inertias nor the velocity kinematics are valid.
    with pytest.raises(StageTooLowError):
        matter.realize_articulated_body_velocity(state)
    mbs.realize(state, kt.Stage.VELOCITY)
    with pytest.raises(StageTooLowError):           # articulated inertias still not valid
        matter.realize_articulated_body_velocity(state)
    matter.realize_articulated_body_inertias(state)
    matter.realize_articulated_body_velocity(state)     # OK now

    state.set_u(np.full(state.get_num_u(), 0.1))    # invalidates the velocity kinematics
    assert state.get_system_stage() == kt.Stage.POSITION
    assert not matter.is_articulated_body_velocity_realized(state)
    mbs.realize(state, kt.Stage.DYNAMICS)           # not enough
    assert not matter.is_articulated_body_velocity_realized(state)
    mbs.realize(state, kt.Stage.ACCELERATION)       # that does it
    assert matter.is_articulated_body_velocity_realized(state)
    matter.invalidate_articulated_body_inertias(state)  # a prerequisite
    assert not matter.is_articulated_body_velocity_realized(state)
    mbs.realize(state, kt.Stage.ACCELERATION)
    assert matter.is_articulated_body_velocity_realized(state)
    matter.invalidate_velocity_kinematics(state)    # another prerequisite
    assert not matter.is_articulated_body_velocity_realized(state)
    mbs.realize(state, kt.Stage.ACCELERATION)
    assert matter.is_articulated_body_velocity_realized(state)
    state.set_time(1.0)             # no effect on what does not depend on time
    assert state.get_system_stage() == kt.Stage.INSTANCE
    assert matter.is_position_kinematics_realized(state)
    assert matter.is_velocity_kinematics_realized(state)
    assert matter.is_articulated_body_inertias_realized(state)
    assert matter.is_articulated_body_velocity_realized(state)


def test_task_jacobians():
    """testTaskJacobians."""
    rand = Rand(8)
    system, matter, _ = make_system(False, rand)
    state = system.realize_topology()
    nq, nu, nb = state.get_num_q(), state.get_num_u(), matter.get_num_bodies()
    slop = nu * SIGNIFICANT_REAL            # attainable accuracy drops with problem size
    system.realize_model(state)
    state.set_q(rand.vector(nq))
    state.set_u(rand.vector(nu))
    system.realize(state, kt.Stage.POSITION)

    Jmat = matter.calc_system_jacobian(state)
    J = blocks(Jmat, 6)                     # nb x 6 x nu: Simbody's matrix of SpatialVecs
    check_eq(J.shape[0], nb)
    check_eq(J.shape[2], nu)
    check_eq(Jmat.shape[0], 6 * nb)
    check_eq(Jmat.shape[1], nu)
    # Unpack J into Jmat2: exactly Jmat.
    Jmat2 = np.zeros((6 * nb, nu))
    for row in range(nb):
        for col in range(nu):
            Jmat2[6 * row:6 * row + 6, col] = J[row, :, col]
    check_eq_tol(Jmat2, Jmat, SIGNIFICANT_REAL)

    rand_u = 100.0 * rand.vector(nu)
    rand_F = np.array([100.0 * rand.spatial_vec() for _ in range(nb)])
    result_F1 = matter.multiply_by_system_jacobian(state, rand_u)
    result_F2 = (Jmat @ rand_u).reshape(nb, 6)
    check_eq_tol(result_F1, result_F2, slop)
    result_U1 = matter.multiply_by_system_jacobian_transpose(state, rand_F)
    result_U2 = Jmat.T @ rand_F.ravel()
    check_eq_tol(result_U1, result_U2, slop)

    # The station Jacobian duplicates the translational rows of the system Jacobian and
    # the frame Jacobian the whole of it.
    all_bodies = list(range(nb))
    all_origins = np.zeros((nb, 3))
    JS = blocks(matter.calc_station_jacobian(state, all_bodies, all_origins), 3)
    JF = blocks(matter.calc_frame_jacobian(state, all_bodies, all_origins), 6)
    for i in range(nb):
        for j in range(nu):
            check_eq(JS[i, :, j], J[i, 3:, j])
            check_eq(JF[i, :, j], J[i, :, j])

    # Random stations.
    rand_S = np.array([10.0 * rand.vec3() for _ in range(nb)])
    JS = blocks(matter.calc_station_jacobian(state, all_bodies, rand_S), 3)
    JF = blocks(matter.calc_frame_jacobian(state, all_bodies, rand_S), 6)
    # One task at a time, backwards to show off.
    JS_byrow, JF_byrow = np.zeros_like(JS), np.zeros_like(JF)
    for i in range(nb - 1, -1, -1):
        JS_byrow[i] = matter.calc_station_jacobian(state, all_bodies[i], rand_S[i])
        JF_byrow[i] = matter.calc_frame_jacobian(state, all_bodies[i], rand_S[i])
    check_eq(JS, JS_byrow)
    check_eq(JF, JF_byrow)

    # JS2 = JS and JF2 = JF again from products with unit speeds.
    JS2, JF2 = np.zeros_like(JS), np.zeros_like(JF)
    zero_u = np.zeros(nu)
    for i in range(nu):
        zero_u[i] = 1
        JS2[:, :, i] = matter.multiply_by_station_jacobian(state, all_bodies, rand_S, zero_u)
        JF2[:, :, i] = matter.multiply_by_frame_jacobian(state, all_bodies, rand_S, zero_u)
        zero_u[i] = 0
    check_eq_tol(JS2, JS, slop)
    check_eq_tol(JF2, JF, slop)

    # JS2t = JSᵀ from products with unit forces; JS3mat holds the same by rows.
    JS2t = np.zeros((nu, nb, 3))
    JS3mat = np.zeros((3 * nb, nu))
    zero_F = np.zeros((nb, 3))
    for b in range(nb):
        for k in range(3):
            zero_F[b, k] = 1
            JS3mat[3 * b + k] = matter.multiply_by_station_jacobian_transpose(
                state, all_bodies, rand_S, zero_F)
            zero_F[b, k] = 0
            JS2t[:, b, k] = JS3mat[3 * b + k]
    check_eq_tol(JS2, JS2t.transpose(1, 2, 0), slop)

    # JF2t = JFᵀ likewise.
    JF2t = np.zeros((nu, nb, 6))
    JF3mat = np.zeros((6 * nb, nu))
    zero_SF = np.zeros((nb, 6))
    for b in range(nb):
        for k in range(6):
            zero_SF[b, k] = 1
            JF3mat[6 * b + k] = matter.multiply_by_frame_jacobian_transpose(
                state, all_bodies, rand_S, zero_SF)
            zero_SF[b, k] = 0
            JF2t[:, b, k] = JF3mat[6 * b + k]
    check_eq_tol(JF2, JF2t.transpose(1, 2, 0), slop)

    # All three ways agree; now check them by shifting the system Jacobian to the
    # stations.
    for i in range(nb):
        mobod = matter.get_mobilized_body(all_bodies[i])
        R_GB = mobod.get_body_rotation(state).as_matrix()
        S_G = R_GB @ rand_S[i]
        for j in range(nu):
            w, v = J[i, :3, j], J[i, 3:, j]
            vJ = v + np.cross(w, S_G)               # shift
            check_eq(JS2[i, :, j], vJ)
            check_eq(JF2[i, :, j], np.concatenate([w, vJ]))

    # The scalar layouts against the element ones.
    JSmat = matter.calc_station_jacobian(state, all_bodies, rand_S)
    JFmat = matter.calc_frame_jacobian(state, all_bodies, rand_S)
    check_eq(JSmat.shape[0], 3 * nb)
    check_eq(JSmat.shape[1], nu)
    check_eq(JFmat.shape[0], 6 * nb)
    check_eq(JFmat.shape[1], nu)
    check_eq_tol(JSmat, JS3mat, slop)        # same as above?
    check_eq_tol(JFmat, JF3mat, slop)
    JSmat2 = np.zeros((3 * nb, nu))
    JFmat2 = np.zeros((6 * nb, nu))
    for row in range(nb):
        for col in range(nu):
            JSmat2[3 * row:3 * row + 3, col] = JS[row, :, col]
            JFmat2[6 * row:6 * row + 6, col] = JF[row, :, col]
    # These should be exactly the same.
    check_eq_tol(JSmat2, JSmat, SIGNIFICANT_REAL)
    check_eq_tol(JFmat2, JFmat, SIGNIFICANT_REAL)
