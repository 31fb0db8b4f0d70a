"""The compiled FunctionBased kind (``mobilizers/function_based.py``'s ``encode`` and its
compiled x_fm / h_fm / hdot_u): a FunctionBased mobilizer whose six functions are built-in
functions of one coordinate (or constants) realizes with no Python, and gives the X_FM, H,
(dH/dt) u, u̇ and q̈ of the Python path (its implementation, run each realization) to
round-off, forward and reversed; anything else keeps the Python path."""

import warnings
from pathlib import Path

import numpy as np
import pytest
from support import UserFunction

import kinetree as kt
from kinetree.engine.plan import _CALL, _KERNEL
from kinetree.multibody.mobilizers import custom, function_based

F = kt.Function
TOL = 1e-13
MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"


# ------------------------------------------------------------------- random functions
def _abscissas(rng, n, repeat=False):
    x = np.sort(rng.uniform(-1.5, 1.5, n))
    x[0], x[-1] = -1.0, 1.0        # the data's ends, so that states reach past both
    x = np.sort(x)
    if repeat and n >= 4:
        x[2] = x[1]                # OpenSim accepts repeated abscissas (a 1e-7 step)
    return x


def random_function(rng, kind):
    """A Function of one argument of ``kind``, random data."""
    if kind == "constant":
        return F.Constant(rng.uniform(-0.5, 0.5), 1)
    if kind == "linear":
        return F.Linear(rng.uniform(-1, 1, 2))
    if kind == "polynomial":
        return F.Polynomial(rng.uniform(-0.5, 0.5, rng.integers(1, 6)))
    if kind == "spline":
        n = int(rng.integers(2, 8))
        return F.Spline(np.linspace(-1, 1, n) + rng.uniform(-0.05, 0.05, n) * (n > 2),
                        rng.uniform(-0.3, 0.3, n))
    if kind == "simm":
        n = int(rng.choice([2, 3, 5, 9]))
        return F.SimmSpline(_abscissas(rng, n, repeat=rng.random() < 0.5),
                            rng.uniform(-0.3, 0.3, n))
    if kind == "gcv":
        degree = int(rng.choice([3, 5]))
        n = degree + 1 + int(rng.integers(0, 5))
        return F.GCVSpline(degree, np.linspace(-1, 1, n), rng.uniform(-0.3, 0.3, n))
    if kind == "piecewise":
        n = int(rng.choice([1, 2, 3, 6]))
        return F.PiecewiseLinear(_abscissas(rng, n) if n > 1 else [0.2],
                                 rng.uniform(-0.3, 0.3, n))
    if kind == "step":
        x0, x1 = sorted(rng.uniform(-1, 1, 2))
        return F.Step(*rng.uniform(-0.3, 0.3, 2), *((x0, x1) if rng.random() < 0.5
                                                    else (x1, x0)))
    if kind == "multiplier":
        inner = random_function(rng, str(rng.choice(KINDS[:-1])))
        scaled = F.Multiplier(inner, rng.uniform(-2, 2))
        return F.Multiplier(scaled, rng.uniform(0.5, 1.5)) if rng.random() < 0.4 else scaled
    raise ValueError(kind)


KINDS = ("constant", "linear", "polynomial", "spline", "simm", "gcv", "piecewise", "step",
         "multiplier")


def random_set(rng, kind, nu):
    """Six functions and their coordinate lists: ``kind`` at the rotations 0 and 2 and
    wherever else no coordinate needs a line, a Linear of each coordinate (at 3, 1, 5 for
    coordinates 0, 1, 2, so that H has full rank), a constant of no coordinate at 4."""
    lines = {3: 0, 1: 1, 5: 2}
    functions, coords = [], []
    for i in range(6):
        if i == 4:
            value = rng.uniform(-0.2, 0.2)
            functions.append(F.Multiplier(F.Constant(value, 0), 1.5) if rng.random() < 0.5
                             else F.Constant(value, 0))
            coords.append([])
        elif lines.get(i, nu) < nu:
            functions.append(F.Linear([rng.uniform(0.5, 1.0), rng.uniform(-0.1, 0.1)]))
            coords.append([lines[i]])
        else:
            functions.append(random_function(rng, kind))
            coords.append([int(rng.integers(nu))])
    return functions, coords, rng.normal(size=(6, 3))


# ----------------------------------------------------------------------------- models
def build(functions, coords, nu, axes=None, reverse=False, python=False):
    """Ground - Pin - FunctionBased - Pin with gravity; ``python`` makes the FunctionBased
    body on the Python path (as if its functions could not be compiled)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(1.5, [0.1, -0.2, 0.05], kt.Inertia(0.4, 0.5, 0.3)))
    first = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 1, 0]), body,
                                 kt.Transform([0, 0.3, 0]))
    extra = [kt.MobilizedBody.Direction.REVERSE] if reverse else []
    encode = function_based.encode
    if python:
        function_based.encode = lambda impl: None
    try:
        fb = kt.MobilizedBody.FunctionBased(
            first, kt.Transform(kt.Rotation.about_x(0.2), [0.1, -0.2, 0]), body,
            kt.Transform(kt.Rotation.about_y(-0.3), [0.05, 0.2, 0]), nu, functions, coords,
            *([axes] if axes is not None else []), *extra)
    finally:
        function_based.encode = encode
    kt.MobilizedBody.Pin(fb, kt.Transform([0, -0.4, 0]), body, kt.Transform())
    state = system.realize_topology()
    return system, matter, fb, state


def realized(system, matter, fb, state, q, u):
    state.upd_q()[:] = q
    state.upd_u()[:] = u
    system.realize(state, kt.Stage.ACCELERATION)
    c = matter.get_tree_data(state).cache
    b = fb.get_mobilized_body_index()
    us = slice(1, 1 + fb.get_num_u(state))
    return {"R_FM": c.R_FM[b].copy(), "p_FM": c.p_FM[b].copy(),
            "H_F": c.H_F_cols[us].copy(), "H": c.H_cols[us].copy(),
            "hdot_u": c.hdot_u[b].copy(), "udot": state.get_u_dot().copy(),
            "qdotdot": state.get_q_dot_dot().copy(), "qdot": state.get_q_dot().copy()}


def states(rng, functions, coords, nq):
    """q and u: random ones, reaching past the data, and ones exactly at data abscissas
    (where OpenSim's interval choice matters)."""
    knots = [float(x) for f in functions for x in _knots(f)]
    for k in range(6):
        q = rng.uniform(-1.6, 1.6, nq)
        if knots and k >= 3:
            q[1:] = rng.choice(knots, nq - 1)
        yield q, rng.uniform(-2, 2, nq)


def _knots(f):
    while isinstance(f, F.Multiplier):
        f = f.get_function()
    return f.get_x() if hasattr(f, "get_x") else []


def assert_same(a, b):
    for name in a:
        assert np.allclose(a[name], b[name], rtol=TOL, atol=TOL), \
            f"{name}: compiled {a[name]}, Python path {b[name]}"


# ------------------------------------------------------------------------------ tests
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
@pytest.mark.parametrize("kind", KINDS)
def test_compiled_kind_matches_the_python_path(kind, reverse):
    """X_FM, H_F, H, (dH/dt) u, q̇, u̇ and q̈ of the whole tree agree with the Python
    path's to 1e-13, for random function sets of each kind (with multipliers and
    constants), one to three coordinates, random axes."""
    rng = np.random.default_rng(2 * KINDS.index(kind) + reverse)
    for nu in (1, 2, 3):
        functions, coords, axes = random_set(rng, kind, nu)
        compiled = build(functions, coords, nu, axes, reverse)
        python = build(functions, coords, nu, axes, reverse, python=True)
        assert compiled[2]._module is function_based and not compiled[2]._python_hinge
        assert python[2]._module is custom and python[2]._python_hinge
        for q, u in states(rng, functions, coords, nu + 2):
            assert_same(realized(*compiled, q, u), realized(*python, q, u))


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_check_mobilizer_passes_on_the_compiled_kind(reverse):
    """Each FunctionBased body of the knee model (splines of OpenSim's kinds, a
    Multiplier, a broken line, a polynomial, constants; one and two coordinates)."""
    system, matter, bodies = knee_model(reverse)
    state = system.realize_topology()
    state.upd_q()[:] = [0.2, -0.4, 0.3, -0.2, -0.5]
    for fb in bodies[1:]:
        assert fb._module is function_based
        for seed in range(2):
            kt.check_mobilizer(fb, state, seed=seed).assert_ok()


class Wave(F.Polynomial):
    """A user Function (a subclass: its calc_value might be anything)."""


@pytest.mark.parametrize("functions, coords", [
    ([Wave([0.3, 0.1, 0.0])] + [F.Constant(0.0, 0)] * 5, [[0]] + [[]] * 5),
    ([F.Linear([0.5, -0.2, 0.1])] + [F.Constant(0.0, 0)] * 2 + [F.Linear([1.0, 0.0])]
     + [F.Constant(0.0, 0)] * 2, [[0, 1], [], [], [1], [], []]),
    ([F.Multiplier(F.Linear([0.5, -0.2, 0.1]), 2.0)] + [F.Constant(0.0, 0)] * 2
     + [F.Linear([1.0, 0.0])] + [F.Constant(0.0, 0)] * 2, [[0, 1], [], [], [1], [], []]),
], ids=["user-function", "two-argument-linear", "multiplied-two-argument"])
def test_other_functions_keep_the_python_path(functions, coords):
    """A user Function or a function of two coordinates cannot be compiled: the body is
    a Custom one, served by the Python pre-pass, and the realization plan has Python."""
    nu = max(j for c in coords for j in c) + 1
    system, matter, fb, state = build(functions, coords, nu)
    assert fb._module is custom and fb._python_hinge
    assert matter._custom == [fb]
    system.realize(state, kt.Stage.INSTANCE)
    plan = system._plan_of(state)
    assert any(a[0] == _CALL for a in plan._plan(int(kt.Stage.POSITION),
                                                 int(kt.Stage.ACCELERATION)))
    state.upd_u()[:] = 0.3
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.all(np.isfinite(state.get_u_dot()))


def knee_model(reverse=False):
    """Three FunctionBased bodies of OpenSim's kinds in a chain with Pins, gravity and a
    damper: only built-in elements."""
    x = np.linspace(-2.0, 0.2, 7)
    knee = [F.Constant(0.0, 0), F.Constant(0.0, 0), F.Linear([1.0, 0.0]),
            F.SimmSpline(x, 0.01 * np.sin(x)), F.Multiplier(F.SimmSpline(x, 0.02 * x * x), 1.1),
            F.Constant(0.0, 0)]
    coupled = [F.PiecewiseLinear([-1, 0, 1], [-0.2, 0.0, 0.3]), F.Polynomial([0.1, 0.2]),
               F.Linear([1.0, 0.0]), F.Constant(0.01, 0),
               F.GCVSpline(5, np.linspace(-1, 1, 8), 0.05 * np.linspace(-1, 1, 8) ** 3),
               F.Spline(np.linspace(-1, 1, 5), [0, 0.01, 0.02, 0.04, 0.05])]
    functions, coords = [knee, coupled], [[[], [], [0], [0], [0], []],
                                          [[1], [0], [0], [], [1], [1]]]
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0, -0.2, 0], kt.Inertia(0.3)))
    parent = kt.MobilizedBody.Pin(matter.Ground(), kt.Transform([0, 1, 0]), body,
                                  kt.Transform([0, 0.2, 0]))
    bodies = [parent]
    extra = [kt.MobilizedBody.Direction.REVERSE] if reverse else []
    for fs, cs, nu in zip(functions, coords, (1, 2)):
        bodies.append(kt.MobilizedBody.FunctionBased(
            bodies[-1], kt.Transform([0, -0.4, 0]), body, kt.Transform([0, 0.2, 0]), nu,
            fs, cs, *extra))
    bodies.append(kt.MobilizedBody.FunctionBased(
        bodies[-1], kt.Transform([0, -0.4, 0]), body, kt.Transform(), 1, knee,
        coords[0]))
    kt.Force.MobilityLinearDamper(forces, bodies[1], 0, 0.5)
    return system, matter, bodies


@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reversed"])
def test_a_model_of_built_in_elements_realizes_in_one_compiled_call(reverse):
    """No Python pre-pass: the realization plan from TIME to ACCELERATION is one compiled
    call and the stage mark, and the compiled stepper takes the model."""
    system, matter, bodies = knee_model(reverse)
    state = system.realize_topology()
    assert matter._custom == []
    assert all(b._module is function_based for b in bodies[1:])
    system.realize(state, kt.Stage.INSTANCE)
    plan = system._plan_of(state)
    actions = plan._plan(int(kt.Stage.POSITION), int(kt.Stage.ACCELERATION))
    assert len(actions) == 2 and actions[0][0] == _KERNEL
    assert all(a[0] != _CALL for a in plan._plan(int(kt.Stage.TIME), int(kt.Stage.REPORT)))
    assert system._compiled_stepper(state.copy()) is not None
    rng = np.random.default_rng(3)
    state.upd_q()[:] = rng.uniform(-0.5, 0.5, state.get_num_q())
    state.upd_u()[:] = rng.uniform(-1, 1, state.get_num_u())
    system.realize(state, kt.Stage.ACCELERATION)
    assert np.all(np.isfinite(state.get_u_dot()))


def test_parameter_rows_widen_only_for_the_tables():
    """The model's parameter rows are as wide as the longest (a compiled FunctionBased's
    tables); a model without one keeps PARAM_SIZE."""
    from kinetree.multibody.tree_model import PARAM_SIZE, unpack_tree

    system, matter, bodies = knee_model()
    state = system.realize_topology()
    d = matter.get_tree_data(state)
    widest = max(b._params.size for b in bodies[1:])
    assert widest > PARAM_SIZE and d.tree.prm.shape == (len(bodies) + 1, widest)
    tree = unpack_tree.py_func(d.tree_i, d.tree_f, d.kinds)
    assert np.array_equal(tree.prm, d.tree.prm)
    assert np.array_equal(tree.inertia_B, d.tree.inertia_B)


@pytest.mark.skipif(not MODELS.is_dir(), reason="no models/opensim")
@pytest.mark.parametrize("name", ["arm26", "gait2392_thelen2003muscle", "Rajagopal2016"])
def test_opensim_custom_joints_load_compiled(name):
    """Every CustomJoint of these OpenSim models becomes the compiled kind."""
    from kinetree.io import OsimSkippedWarning, load_osim

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)
        model = load_osim(MODELS / f"{name}.osim")
    matter = model.system.get_matter_subsystem()
    fb = [matter.get_mobilized_body(i) for i in range(matter.get_num_bodies())
          if isinstance(matter.get_mobilized_body(i), kt.MobilizedBody.FunctionBased)]
    assert fb and all(b._module is function_based for b in fb)
    model.get_default_state()
    assert matter._custom == []


def test_a_function_changed_before_the_model_is_realized_is_the_one_compiled():
    """A Constant's set_value after the body is made reaches the compiled tables when the
    model is realized, as it reaches the Python path."""
    def translation_x(python):
        system = kt.MultibodySystem()
        matter = kt.SimbodyMatterSubsystem(system)
        offset = F.Constant(0.3, 0)
        angle = F.Linear([1.0, 0.0])
        functions = [UserFunction(angle) if python else angle, F.Constant(0.0, 0),
                     F.Constant(0.0, 0), offset, F.Constant(0.0, 0), F.Constant(0.0, 0)]
        link = kt.Body.Rigid(kt.MassProperties(1.0, [0, -0.2, 0],
                                               kt.Inertia(0.05, 0.01, 0.05)))
        body = kt.MobilizedBody.FunctionBased(matter.Ground(), link, 1, functions,
                                              [[0], [], [], [], [], []])
        assert body._python_hinge == python
        offset.set_value(0.5)
        state = system.realize_topology()
        body.set_one_q(state, 0, 0.4)
        system.realize(state, kt.Stage.POSITION)
        return body.get_mobilizer_transform(state).p
    compiled, python = translation_x(False), translation_x(True)
    assert compiled[0] == pytest.approx(0.5, abs=1e-15)
    np.testing.assert_allclose(compiled, python, rtol=0, atol=1e-15)
