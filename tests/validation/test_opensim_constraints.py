"""Constrained forward dynamics against Simbody itself, through OpenSim.

Two mechanisms are built in both engines and compared at several states along a motion
(kinetree integrates a few RK4 steps, projecting onto the constraints after each, and
copies its q and u into OpenSim's Simbody State before each comparison):

- A four-bar linkage: three PinJoints in a chain from Ground with parallel hinge axes,
  closed by a point constraint between the third link and a Ground point (OpenSim's
  PointConstraint is Simbody's Constraint::Ball; kinetree's ``Constraint.Ball``). A 3-D
  point constraint on a planar loop has 3 equations of rank 2: the multipliers are not
  unique, but u̇ and the generalized constraint force Gᵀλ are. Both engines happen to pick
  the minimum-norm multipliers (no force along the hinge axis), so λ is compared too.
- A pin chain with a CoordinateCouplerConstraint. OpenSim turns "q_dep = f(q_ind)" into
  Simbody's Constraint::CoordinateCoupler with the function s·f(q_ind) - q_dep of all the
  coupled coordinates, the dependent one last (its ``CompoundFunction``, s the
  scale_factor property); kinetree is given that function of [q_ind..., q_dep].

OpenSim's multi-argument functions (MultivariatePolynomialFunction,
ExpressionBasedFunction) only provide first derivatives and answer a request for a second
derivative d²f/dxᵢdxⱼ with df/dxᵢ, which Simbody's CoordinateCoupler uses for the
acceleration constraint (the Hessian term). A linear coupling of two independent
coordinates is therefore compared with a kinetree Function that carries the same
(symmetrized) Hessian: the value and gradient of the linear function, the Hessian Simbody
is handed. With one independent coordinate OpenSim's Linear and Polynomial functions are
exact, and kinetree's ``Function.Linear`` (or a cubic coupling) is compared directly.
"""

import numpy as np
import pytest

import kinetree as kt

osim = pytest.importorskip("opensim")
if not (hasattr(kt.Constraint, "Ball") and hasattr(kt.Constraint, "CoordinateCoupler")):
    pytest.skip("kinetree has no Constraint.Ball / Constraint.CoordinateCoupler yet",
                allow_module_level=True)

G = 9.80665
RTOL = 1e-8


def vec3(v):
    return osim.Vec3(*map(float, v))


def to_numpy(v):
    return np.array([v.get(i) for i in range(v.size())])


def new_models():
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    return model, system, matter


def add_pin(model, matter, o_parent, k_parent, name, rng, ori_p, ori_c):
    """A random link on a PinJoint in both engines (parent and child frame orientations
    given as body-fixed XYZ angles, locations random); returns (OpenSim body, mobilized
    body, OpenSim coordinate name)."""
    mass, com, moments = rng.uniform(0.5, 2.0), rng.uniform(-0.2, 0.2, 3), \
        rng.uniform(0.02, 0.04, 3)
    loc_p, loc_c = rng.uniform(-0.5, 0.5, 3), rng.uniform(-0.5, 0.5, 3)
    body = osim.Body(name, mass, vec3(com), osim.Inertia(*moments))
    joint = osim.PinJoint(f"{name}_pin", o_parent, vec3(loc_p), vec3(ori_p), body,
                          vec3(loc_c), vec3(ori_c))
    model.addBody(body)
    model.addJoint(joint)
    inertia = kt.Inertia(*moments).shift_from_mass_center(com, mass)
    mobod = kt.MobilizedBody.Pin(
        k_parent, kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_p), loc_p),
        kt.Body.Rigid(kt.MassProperties(mass, com, inertia)),
        kt.Transform(kt.Rotation.from_body_fixed_xyz(ori_c), loc_c))
    return body, mobod, joint.get_coordinates(0).getName()


def rk4_step(system, state, h):
    """One classical RK4 step of (q, u), then projection onto the constraints."""
    q0, u0 = np.array(state.get_q()), np.array(state.get_u())

    def rates(q, u):
        state.set_q(q)
        state.set_u(u)
        system.realize(state, kt.Stage.ACCELERATION)
        return np.array(state.get_q_dot()), np.array(state.get_u_dot())

    k1 = rates(q0, u0)
    k2 = rates(q0 + h / 2 * k1[0], u0 + h / 2 * k1[1])
    k3 = rates(q0 + h / 2 * k2[0], u0 + h / 2 * k2[1])
    k4 = rates(q0 + h * k3[0], u0 + h * k3[1])
    state.set_q(q0 + h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0]))
    state.set_u(u0 + h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1]))
    system.project(state, 1e-13)


def realize_both(model, o_state, system, state):
    """Copy kinetree's q and u (Pin joints: the same layout, no padding) into OpenSim's
    State and realize ACCELERATION in both; returns (u̇ kinetree, u̇ OpenSim)."""
    o_state.setQ(osim.Vector(list(state.get_q())))
    o_state.setU(osim.Vector(list(state.get_u())))
    model.realizeAcceleration(o_state)
    system.realize(state, kt.Stage.ACCELERATION)
    return np.array(state.get_u_dot()), to_numpy(o_state.getUDot())


def opensim_g_transpose(model, o_state):
    """Gᵀλ (generalized forces of OpenSim's multipliers), from Simbody's own operator."""
    out = osim.Vector()
    model.getMatterSubsystem().multiplyByGTranspose(o_state, o_state.getMultipliers(), out)
    return to_numpy(out)


def assert_close(actual, desired, scale, what):
    err = np.abs(np.asarray(actual) - np.asarray(desired)).max() / scale
    assert err <= RTOL, f"{what}: max difference {err:.2e} of {scale:.3g}"
    return err


def build_four_bar(seed):
    """Three pin links from Ground with parallel hinge axes and a Ball (PointConstraint)
    between a station of the third link and the Ground point where that station is in a
    random configuration q0 (so the loop is a valid quadrilateral by construction).
    Returns the models, the two constraints, q0 and the hinge axis in Ground."""
    rng = np.random.default_rng(seed)
    model, system, matter = new_models()
    o_body, k_body = model.getGround(), matter.Ground()
    # Each joint's parent frame on a link shares the z axis (the hinge) with the child
    # frame of the previous joint on that link: body-fixed XYZ angles differing in the
    # last angle only. Ground's "child frame" orientation is arbitrary.
    ori_prev = rng.uniform(-1, 1, 3)
    ground_ori = ori_prev.copy()
    links = []
    for i in range(3):
        ori_p = ori_prev + [0, 0, rng.uniform(-np.pi, np.pi)]
        ori_c = rng.uniform(-1, 1, 3)
        o_body, k_body, name = add_pin(model, matter, o_body, k_body, f"link{i}", rng,
                                       ori_p, ori_c)
        links.append((o_body, k_body, name))
        ori_prev = ori_c
    tip = rng.uniform(-0.5, 0.5, 3)
    q0 = rng.uniform(-np.pi, np.pi, 3)
    state = system.realize_topology()
    state.set_q(q0)
    system.realize(state, kt.Stage.POSITION)
    p_ground = links[2][1].find_station_location_in_ground(state, tip)
    ball = kt.Constraint.Ball(matter.Ground(), p_ground, links[2][1], tip)
    point = osim.PointConstraint(model.getGround(), vec3(p_ground), links[2][0], vec3(tip))
    point.setName("loop")
    model.addConstraint(point)
    # Default q on the loop, so that initSystem's assembly has nothing to do.
    model.finalizeFromProperties()
    for (_, _, name), q in zip(links, q0):
        model.updCoordinateSet().get(name).setDefaultValue(float(q))
    axis = kt.Rotation.from_body_fixed_xyz(ground_ori).as_matrix()[:, 2]
    return model, system, matter, ball, point, q0, axis


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_four_bar_point_constraint_matches_simbody(seed):
    model, system, matter, ball, point, q0, axis = build_four_bar(seed)
    o_state = model.initSystem()
    state = system.realize_topology()
    state.set_q(q0)
    state.set_u(np.random.default_rng(100 + seed).uniform(-1, 1, 3))
    system.project(state, 1e-13)
    # One degree of freedom: give it a brisk speed (the velocity constraint is
    # homogeneous, so scaling u keeps it satisfied).
    state.set_u(np.array(state.get_u()) * 3.0 / np.abs(state.get_u()).max())
    system.project(state, 1e-13)
    worst = {"u̇": 0.0, "λ": 0.0, "Gᵀλ": 0.0, "body forces": 0.0}
    for _ in range(4):
        for _ in range(5):
            rk4_step(system, state, 0.01)
        udot_k, udot_o = realize_both(model, o_state, system, state)
        sv = np.linalg.svd(matter.calc_g(state), compute_uv=False)
        assert sv[2] < 1e-12 * sv[0] and sv[1] > 1e-2 * sv[0], \
            f"expected a redundant planar loop away from a toggle, got σ(G) = {sv}"
        scale = np.abs(udot_o).max()
        worst["u̇"] = max(worst["u̇"], assert_close(udot_k, udot_o, scale, "u̇"))
        # Multipliers (N, in Ground): both the minimum-norm choice, nothing along the axis.
        lam_k = ball.get_multipliers_as_vector(state)
        lam_o = to_numpy(o_state.getMultipliers())
        f_scale = np.abs(lam_o).max()
        assert abs(lam_k @ axis) <= 1e-10 * f_scale and abs(lam_o @ axis) <= 1e-10 * f_scale
        worst["λ"] = max(worst["λ"], assert_close(lam_k, lam_o, f_scale, "λ"))
        # The unique part: the generalized constraint force Gᵀλ, each engine its own G.
        gt_k = matter.multiply_by_g_transpose(state, lam_k)
        gt_o = opensim_g_transpose(model, o_state)
        worst["Gᵀλ"] = max(worst["Gᵀλ"], assert_close(gt_k, gt_o, np.abs(gt_o).max(), "Gᵀλ"))
        # Body forces: OpenSim's calcConstraintForces reports Simbody's
        # calcConstraintForcesFromMultipliers (Gᵀλ), as kinetree's getter does. Bodies
        # in the same order (Ground, link 3).
        forces_o, mobility_o = osim.VectorOfSpatialVec(), osim.Vector()
        point.calcConstraintForces(o_state, forces_o, mobility_o)
        forces_o = np.array([[forces_o.get(b).get(k).get(j) for k in range(2)
                              for j in range(3)] for b in range(2)])
        forces_k = ball.get_constrained_body_forces_as_vector(state)
        worst["body forces"] = max(worst["body forces"], assert_close(
            forces_k, forces_o, np.abs(forces_o).max(), "constraint body forces"))
    print(f"four-bar seed {seed}: worst relative differences", worst)


class Coupling(kt.Function):
    """c(x) = s·g(x[:-1]) - x[-1] for a kinetree Function g of the independent coordinates
    (OpenSim's CompoundFunction). ``simbody_hessian`` mimics OpenSim's multi-argument
    functions: d²g/dxᵢdxⱼ answered with dg/dxᵢ, symmetrized (only the quadratic form
    Σᵢⱼ Hᵢⱼ q̇ᵢq̇ⱼ enters the equations)."""

    def __init__(self, g, scale, simbody_hessian=False):
        self.g, self.scale, self.simbody_hessian = g, scale, simbody_hessian
        self.n = g.get_argument_size()

    def calc_value(self, x):
        x = self.check_arguments(x)
        return self.scale * self.g.calc_value(x[:-1]) - x[-1]

    def calc_derivative(self, deriv_components, x):
        x = self.check_arguments(x, deriv_components)
        if any(k == self.n for k in deriv_components):
            return -1.0 if len(deriv_components) == 1 else 0.0
        if len(deriv_components) == 2 and self.simbody_hessian:
            i, j = deriv_components
            return self.scale * (self.g.calc_derivative([i], x[:-1])
                                 + self.g.calc_derivative([j], x[:-1])) / 2
        return self.scale * self.g.calc_derivative(list(deriv_components), x[:-1])

    def get_argument_size(self):
        return self.n + 1

    def get_max_derivative_order(self):
        return 2


def build_coupled_chain(seed, kind):
    """A chain of 3-5 random pin links and a CoordinateCouplerConstraint q_dep = s·f(q_ind)
    with f linear in one (``linear``) or two (``linear2``) independent coordinates, or a
    cubic polynomial of one (``cubic``)."""
    rng = np.random.default_rng(seed)
    model, system, matter = new_models()
    o_body, k_body = model.getGround(), matter.Ground()
    mobods, names = [], []
    for i in range(int(rng.integers(3, 6))):
        o_body, k_body, name = add_pin(model, matter, o_body, k_body, f"b{i}", rng,
                                       rng.uniform(-1, 1, 3), rng.uniform(-1, 1, 3))
        mobods.append(k_body)
        names.append(name)
    n_ind = 2 if kind == "linear2" else 1
    coords = [int(c) for c in rng.permutation(len(names))[:n_ind + 1]]  # ind..., dep
    scale = rng.uniform(0.5, 1.5)
    if kind == "cubic":
        coefficients = rng.uniform(-1, 1, 4)
        o_function = osim.PolynomialFunction(osim.Vector(list(coefficients)))
        k_function = Coupling(kt.Function.Polynomial(coefficients), scale)
    elif kind == "linear":
        slope, intercept = rng.uniform(-1.5, 1.5), rng.uniform(-0.3, 0.3)
        o_function = osim.LinearFunction(slope, intercept)
        k_function = kt.Function.Linear([scale * slope, -1.0, scale * intercept])
    else:
        # Order-1 polynomial in two variables; its coefficients' order is OpenSim's
        # business, so read the slopes back from the function itself.
        o_function = osim.MultivariatePolynomialFunction(
            osim.Vector(list(rng.uniform(-1, 1, 3))), 2, 1)
        at = [o_function.calcValue(osim.Vector(x)) for x in ([0.0, 0.0], [1.0, 0.0],
                                                             [0.0, 1.0])]
        linear = kt.Function.Linear([at[1] - at[0], at[2] - at[0], at[0]])
        k_function = Coupling(linear, scale, simbody_hessian=True)
    coupler = osim.CoordinateCouplerConstraint()
    coupler.setName("coupler")
    independent = osim.ArrayStr()
    for c in coords[:-1]:
        independent.append(names[c])
    coupler.setIndependentCoordinateNames(independent)
    coupler.setDependentCoordinateName(names[coords[-1]])
    coupler.setFunction(o_function)
    osim.PropertyHelper.setValueDouble(scale, coupler.updPropertyByName("scale_factor"))
    model.addConstraint(coupler)
    k_coupler = kt.Constraint.CoordinateCoupler(matter, k_function,
                                                [mobods[c] for c in coords],
                                                [0] * len(coords))
    return model, system, matter, coupler, k_coupler, k_function, coords, rng


@pytest.mark.parametrize("seed, kind", [(0, "linear"), (1, "linear"), (2, "linear"),
                                        (3, "cubic"), (4, "cubic"), (5, "linear2"),
                                        (6, "linear2")])
def test_coordinate_coupler_matches_simbody(seed, kind):
    model, system, matter, coupler, k_coupler, k_function, coords, rng = \
        build_coupled_chain(seed, kind)
    o_state = model.initSystem()
    state = system.realize_topology()
    n = state.get_num_q()
    assert o_state.getNQ() == n and o_state.getNU() == n
    q, u = rng.uniform(-1, 1, n), rng.uniform(-2, 2, n)
    # Start on the constraint: the dependent q and u from the independent ones (Pin:
    # q̇ = u); c(x) is linear in the dependent coordinate with slope -1.
    x = q[coords].copy()
    x[-1] = 0.0
    q[coords[-1]] = k_function.calc_value(x)
    grad = np.array([k_function.calc_derivative([i], q[coords]) for i in range(len(coords))])
    u[coords[-1]] = grad[:-1] @ u[coords[:-1]]
    state.set_q(q)
    state.set_u(u)
    system.project(state, 1e-13)
    worst = {"u̇": 0.0, "λ": 0.0, "mobility forces": 0.0}
    for step in range(4):
        if step:
            for _ in range(5):
                rk4_step(system, state, 0.01)
        udot_k, udot_o = realize_both(model, o_state, system, state)
        assert abs(o_state.getQErr().get(0)) < 1e-12 and abs(o_state.getUErr().get(0)) < 1e-12
        worst["u̇"] = max(worst["u̇"], assert_close(udot_k, udot_o, np.abs(udot_o).max(), "u̇"))
        # One non-redundant equation: λ is unique, and the same function gives it the
        # same sign in both engines.
        lam_k = k_coupler.get_multipliers_as_vector(state)
        lam_o = to_numpy(o_state.getMultipliers())
        worst["λ"] = max(worst["λ"], assert_close(lam_k, lam_o, abs(lam_o[0]), "λ"))
        # The mobility forces on the coupled coordinates (constrained mobilizers in the
        # order the coordinates are listed in both); both report Gᵀλ.
        forces_o, mobility_o = osim.VectorOfSpatialVec(), osim.Vector()
        coupler.calcConstraintForces(o_state, forces_o, mobility_o)
        mobility_o = to_numpy(mobility_o)
        mobility_k = k_coupler.get_constrained_mobility_forces_as_vector(state)
        worst["mobility forces"] = max(worst["mobility forces"], assert_close(
            mobility_k, mobility_o, np.abs(mobility_o).max(), "mobility forces"))
    print(f"coupler seed {seed} ({kind}): worst relative differences", worst)
