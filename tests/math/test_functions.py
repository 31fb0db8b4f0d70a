"""Function and its built-ins: derivatives against central finite differences and closed
forms, Polynomial against numpy, the Step's shape, the Spline against scipy and against what
a natural / smoothing spline must satisfy (GCV's lam minimizes the GCV score, large lam gives
the least-squares line), a user subclass through the base interface, and every refusal."""

import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.interpolate import CubicSpline, make_smoothing_spline

from kinetree.errors import InvalidArgumentError
from kinetree.math.functions import (
    Constant,
    Function,
    Linear,
    Polynomial,
    Sinusoid,
    Spline,
    Step,
)

hyp = settings(max_examples=60, deadline=None)

# Data for the spline cases: irregular abscissas, smooth-ish ordinates.
SPLINE_X = np.array([-1.0, -0.4, 0.3, 0.8, 1.9, 2.5, 3.6, 4.0])
SPLINE_Y = np.array([0.5, -0.2, 0.9, 1.4, 0.1, -0.7, 0.3, 1.1])
SPLINE_MIDS = list(0.5 * (SPLINE_X[:-1] + SPLINE_X[1:]))


def noisy_sine(n=50, sigma=0.15, seed=12345):
    x = np.linspace(0.0, 2.0 * math.pi, n)
    rng = np.random.default_rng(seed)
    return x, np.sin(x) + sigma * rng.standard_normal(n)


def derivative(f, order, component=0):
    """x -> the order-th derivative of f wrt one argument (order 0: the value)."""
    if order == 0:
        return f.calc_value
    return lambda x: f.calc_derivative([component] * order, x)


def central(g, x, h):
    """Central difference of a scalar function g at the scalar x."""
    return (g(x + h) - g(x - h)) / (2.0 * h)


def close_to_fd(exact, approx, scale, rtol=1e-6):
    return abs(exact - approx) <= rtol * (abs(exact) + scale)


# (id, factory, points) for one-argument built-ins. The points stay more than the step size
# away from places where the checked derivative is not smooth (Step ends, spline knots).
ONE_ARGUMENT_CASES = [
    ("constant", lambda: Function.Constant(2.5), [-3.0, 0.0, 1.7]),
    ("polynomial", lambda: Function.Polynomial([2.0, -1.0, 0.5, 3.0, -4.0]), [-1.3, 0.2, 2.1]),
    ("sinusoid", lambda: Function.Sinusoid(1.7, 2.3, 0.4), [-2.0, 0.0, 0.3, 1.9]),
    ("step", lambda: Function.Step(-1.0, 2.0, 0.5, 1.5), [0.2, 0.7, 1.0, 1.3, 2.0]),
    ("step_reversed", lambda: Function.Step(3.0, -1.0, 2.0, -1.0), [-2.0, -0.6, 0.4, 1.7, 3.0]),
    ("spline", lambda: Function.Spline(SPLINE_X, SPLINE_Y), SPLINE_MIDS + [-1.5, 4.4]),
    ("spline_gcv", lambda: Function.Spline(*noisy_sine(), smoothing="gcv"), [0.5, 2.02, 4.4]),
    ("spline_lam", lambda: Function.Spline(SPLINE_X, SPLINE_Y, smoothing=0.05), SPLINE_MIDS),
]


# ------------------------------------------------------------------ finite differences


@pytest.mark.parametrize(
    "factory, points", [c[1:] for c in ONE_ARGUMENT_CASES], ids=[c[0] for c in ONE_ARGUMENT_CASES]
)
def test_derivatives_match_central_differences(factory, points):
    f = factory()
    top = min(3, f.get_max_derivative_order())
    for x in points:
        scale = 1.0 + abs(f.calc_value(x))
        for order in range(1, top + 1):
            exact = derivative(f, order)(x)
            # d^k f from a central difference of d^(k-1) f
            approx = central(derivative(f, order - 1), x, 1e-5)
            assert close_to_fd(exact, approx, scale), (order, x, exact, approx)
        # the second derivative straight from values: f(x+h) - 2 f(x) + f(x-h)
        h = 1e-4
        d2_values = (f(x + h) - 2.0 * f(x) + f(x - h)) / h**2
        assert close_to_fd(f.calc_derivative([0, 0], x), d2_values, scale, rtol=1e-4)


def test_linear_partials_and_mixed_partials():
    a = [1.5, -2.0, 0.25, 3.0]
    f = Function.Linear(a)
    assert f.get_argument_size() == 3
    assert f.get_max_derivative_order() == sys.maxsize
    x = np.array([0.3, -1.2, 2.0])
    assert f.calc_value(x) == pytest.approx(1.5 * 0.3 + 2.0 * 1.2 + 0.25 * 2.0 + 3.0, rel=1e-15)
    h = 1e-5
    for i in range(3):
        e = np.zeros(3)
        e[i] = h
        fd = (f.calc_value(x + e) - f.calc_value(x - e)) / (2 * h)
        assert f.calc_derivative([i], x) == a[i]
        assert fd == pytest.approx(a[i], rel=1e-8)
        for j in range(3):
            assert f.calc_derivative([i, j], x) == 0.0
            # mixed partial from differencing df/dxj along xi
            fd2 = (f.calc_derivative([j], x + e) - f.calc_derivative([j], x - e)) / (2 * h)
            assert fd2 == 0.0
        assert f.calc_derivative([i, 0, 2], x) == 0.0


def test_constant_of_several_arguments_and_of_none():
    f = Function.Constant(-4.0, 3)
    assert f.get_argument_size() == 3
    assert f.calc_value([1.0, 2.0, 3.0]) == -4.0
    assert f.calc_derivative([2], [1.0, 2.0, 3.0]) == 0.0
    assert f.calc_derivative([0, 1, 2, 0], [1.0, 2.0, 3.0]) == 0.0
    assert f.get_max_derivative_order() == sys.maxsize
    f.set_value(7.0)
    assert f.get_value() == 7.0 and f([0.0, 0.0, 0.0]) == 7.0
    # the seed's FunctionBased mobilizer uses Function::Constant(0, 0): no arguments
    g = Function.Constant(0.0, 0)
    assert g.get_argument_size() == 0
    assert g.calc_value([]) == 0.0


# ------------------------------------------------------------------ Polynomial


@hyp
@given(
    coeffs=st.lists(st.floats(-10.0, 10.0), min_size=1, max_size=8),
    x=st.floats(-3.0, 3.0),
    order=st.integers(0, 9),
)
def test_polynomial_matches_numpy(coeffs, x, order):
    f = Function.Polynomial(coeffs)
    c = np.array(coeffs)
    dc = np.polyder(c, order) if order else c
    expected = float(np.polyval(dc, x)) if dc.size else 0.0
    bound = float(np.polyval(np.abs(dc), abs(x))) if dc.size else 0.0
    got = f.calc_value(x) if order == 0 else f.calc_derivative([0] * order, x)
    assert type(got) is float
    assert abs(got - expected) <= 1e-12 * bound + 1e-300


def test_polynomial_order_is_decreasing_powers():
    f = Function.Polynomial([2.0, 0.0, -1.0])  # 2 x^2 - 1
    assert f(3.0) == 17.0
    assert f.calc_derivative([0], 3.0) == 12.0
    assert f.calc_derivative([0, 0], 3.0) == 4.0
    assert f.calc_derivative([0, 0, 0], 3.0) == 0.0
    assert f.calc_derivative([0] * 50, 3.0) == 0.0
    assert f.get_max_derivative_order() == sys.maxsize
    np.testing.assert_array_equal(f.get_coefficients(), [2.0, 0.0, -1.0])


# ------------------------------------------------------------------ Sinusoid


def test_sinusoid_high_derivatives_match_closed_form():
    a, w, p = 1.7, 2.3, 0.4
    f = Function.Sinusoid(a, w, p)
    for x in (-1.1, 0.0, 0.35, 2.9):
        t = w * x + p
        assert f(x) == pytest.approx(a * math.sin(t), rel=1e-14, abs=1e-14)
        assert f.calc_derivative([0] * 4, x) == pytest.approx(a * w**4 * math.sin(t), rel=1e-13)
        assert f.calc_derivative([0] * 5, x) == pytest.approx(a * w**5 * math.cos(t), rel=1e-13)
        assert f.calc_derivative([0] * 6, x) == pytest.approx(-a * w**6 * math.sin(t), rel=1e-13)
        assert f.calc_derivative([0] * 7, x) == pytest.approx(-a * w**7 * math.cos(t), rel=1e-13)


def test_sinusoid_getters_and_setters():
    f = Function.Sinusoid(2.0, 3.0)
    assert (f.get_amplitude(), f.get_frequency(), f.get_phase()) == (2.0, 3.0, 0.0)
    f.set_amplitude(0.5)
    f.set_frequency(math.pi)
    f.set_phase(math.pi / 2)
    assert (f.get_amplitude(), f.get_frequency(), f.get_phase()) == (0.5, math.pi, math.pi / 2)
    assert f(1.0) == pytest.approx(0.5 * math.cos(math.pi), abs=1e-15)
    with pytest.raises(InvalidArgumentError, match="set_frequency"):
        f.set_frequency(float("nan"))


# ------------------------------------------------------------------ Step


def quintic(s):
    return s**3 * (10 - 15 * s + 6 * s**2)


def test_step_values_outside_at_the_ends_and_midpoint():
    y0, y1, x0, x1 = -1.0, 2.0, 0.5, 1.5
    f = Function.Step(y0, y1, x0, x1)
    for x in (-100.0, 0.0, x0):
        assert f(x) == y0
    for x in (x1, 1.6, 100.0):
        assert f(x) == y1
    assert f(1.0) == pytest.approx(0.5 * (y0 + y1), abs=1e-15)
    for s in (0.1, 0.25, 0.8):
        assert f(x0 + s) == pytest.approx(y0 + (y1 - y0) * quintic(s), rel=1e-14)
    # odd symmetry about the midpoint
    for t in (0.05, 0.3, 0.45):
        assert f(x0 + t) + f(x1 - t) == pytest.approx(y0 + y1, abs=1e-14)


def test_step_slope_and_curvature_vanish_at_both_ends():
    # dy = 3, dx = 1: near an end f' ~ 90 d^2 and f'' ~ 180 d (d the distance inside)
    f = Function.Step(-1.0, 2.0, 0.5, 1.5)
    for end in (0.5, 1.5):
        assert f.calc_derivative([0], end) == 0.0
        assert f.calc_derivative([0, 0], end) == 0.0
    for d in (1e-3, 1e-5):
        assert f.calc_derivative([0], 0.5 + d) == pytest.approx(90.0 * d**2, rel=1e-2)
        assert f.calc_derivative([0, 0], 0.5 + d) == pytest.approx(180.0 * d, rel=1e-2)
        assert f.calc_derivative([0], 1.5 - d) == pytest.approx(90.0 * d**2, rel=1e-2)
        assert f.calc_derivative([0, 0], 1.5 - d) == pytest.approx(-180.0 * d, rel=1e-2)
    # the third derivative jumps at the ends: 60 dy/dx^3 just inside, 0 outside
    assert f.calc_derivative([0, 0, 0], 0.5 + 1e-9) == pytest.approx(180.0, rel=1e-6)
    assert f.calc_derivative([0, 0, 0], 0.5 - 1e-9) == 0.0


def test_step_is_monotone_inside():
    f = Function.Step(-1.0, 2.0, 0.5, 1.5)
    xs = np.linspace(0.5, 1.5, 201)
    values = np.array([f(x) for x in xs])
    assert np.all(np.diff(values) > 0.0)
    assert all(f.calc_derivative([0], x) > 0.0 for x in xs[1:-1])
    g = Function.Step(5.0, 1.0, 0.0, 2.0)  # descending step
    assert np.all(np.diff([g(x) for x in np.linspace(0.0, 2.0, 101)]) < 0.0)


def test_step_with_reversed_interval():
    f = Function.Step(0.0, 1.0, 2.0, 1.0)  # x0 > x1: y0 to the right, y1 to the left
    assert f(2.5) == 0.0 and f(2.0) == 0.0
    assert f(0.5) == 1.0 and f(1.0) == 1.0
    assert f(1.5) == pytest.approx(0.5, abs=1e-15)
    assert f(1.75) == pytest.approx(quintic(0.25), rel=1e-14)
    # f' = dy f'(s) / dx with dx = -1
    assert f.calc_derivative([0], 1.5) == pytest.approx(-30.0 / 16.0, rel=1e-14)
    assert f.calc_derivative([0], 1.5) == pytest.approx(central(f, 1.5, 1e-5), rel=1e-8)


def test_step_derivative_order_limit():
    f = Function.Step(0.0, 1.0, 0.0, 1.0)
    assert f.get_max_derivative_order() == 3
    with pytest.raises(InvalidArgumentError, match="order 4"):
        f.calc_derivative([0, 0, 0, 0], 0.5)


# ------------------------------------------------------------------ Spline


def test_spline_interpolates_its_points():
    f = Function.Spline(SPLINE_X, SPLINE_Y)
    for x, y in zip(SPLINE_X, SPLINE_Y):
        assert f(x) == pytest.approx(y, abs=1e-14)
    assert f.get_smoothing_parameter() is None


def test_natural_spline_has_zero_curvature_at_the_ends():
    f = Function.Spline(SPLINE_X, SPLINE_Y)
    interior = max(abs(f.calc_derivative([0, 0], x)) for x in SPLINE_X[1:-1])
    assert interior > 1.0  # the curvature is not zero everywhere
    assert abs(f.calc_derivative([0, 0], SPLINE_X[0])) <= 1e-12 * interior
    assert abs(f.calc_derivative([0, 0], SPLINE_X[-1])) <= 1e-12 * interior


def test_spline_reproduces_a_straight_line():
    x = np.array([0.0, 0.7, 1.1, 2.6, 3.0, 4.9])
    f = Function.Spline(x, 3.0 * x - 2.0)
    for q in np.linspace(-1.0, 6.0, 37):  # inside and beyond the data
        assert f(q) == pytest.approx(3.0 * q - 2.0, abs=1e-12)
        assert f.calc_derivative([0], q) == pytest.approx(3.0, abs=1e-12)
        assert abs(f.calc_derivative([0, 0], q)) <= 1e-12
        assert abs(f.calc_derivative([0, 0, 0], q)) <= 1e-11


def test_two_point_spline_is_the_chord():
    f = Function.Spline([1.0, 3.0], [2.0, 6.0])
    assert f(2.0) == pytest.approx(4.0, abs=1e-15)
    assert f.calc_derivative([0], 5.0) == pytest.approx(2.0, abs=1e-15)


@pytest.mark.parametrize("smoothing", [None, 0.05, "gcv"])
def test_spline_evaluation_matches_scipy_inside_and_beyond_the_data(smoothing):
    x, y = noisy_sine(n=20, seed=7)
    f = Function.Spline(x, y, smoothing=smoothing)
    if smoothing is None:
        ref = CubicSpline(x, y, bc_type="natural")
    else:
        ref = make_smoothing_spline(x, y, lam=None if smoothing == "gcv" else smoothing)
    queries = np.concatenate([np.linspace(-1.0, 7.5, 61), x])
    for q in queries:
        scale = 1.0 + abs(float(ref(q)))
        for order in range(4):
            at_knot = np.any(x == q)
            if order == 3 and at_knot:
                continue  # f''' is discontinuous there
            got = derivative(f, order)(q)
            want = float(ref(q, order))
            assert abs(got - want) <= 1e-10 * scale * 10**order, (q, order, got, want)


def test_spline_derivatives_above_third_are_zero():
    f = Function.Spline(SPLINE_X, SPLINE_Y)
    assert f.get_max_derivative_order() == sys.maxsize
    assert f.calc_derivative([0] * 4, 0.1) == 0.0
    assert f.calc_derivative([0] * 9, 0.1) == 0.0


def test_spline_returns_copies_of_its_data():
    f = Function.Spline(SPLINE_X, SPLINE_Y, smoothing=2.5)
    x, y = f.get_x(), f.get_y()
    np.testing.assert_array_equal(x, SPLINE_X)
    np.testing.assert_array_equal(y, SPLINE_Y)
    x[0] = 100.0
    y[0] = 100.0
    assert f.get_x()[0] == SPLINE_X[0] and f.get_y()[0] == SPLINE_Y[0]
    assert f.get_smoothing_parameter() == 2.5


def test_gcv_smoothing_spline_is_closer_to_the_truth_than_the_data():
    x, y = noisy_sine()
    f = Function.Spline(x, y, smoothing="gcv")
    fitted = np.array([f(q) for q in x])
    rms_noise = math.sqrt(np.mean((y - np.sin(x)) ** 2))
    rms_fit = math.sqrt(np.mean((fitted - np.sin(x)) ** 2))
    assert rms_fit < 0.6 * rms_noise
    lam = f.get_smoothing_parameter()
    assert 0.0 < lam < len(x)


def gcv_score(x, y, lam):
    """n |(I - A) y|^2 / (n - trace A)^2, with A the smoother matrix of the fixed-lam
    smoothing spline, built column by column."""
    n = len(x)
    hat = np.column_stack([make_smoothing_spline(x, e, lam=lam)(x) for e in np.eye(n)])
    residual = y - hat @ y
    return n * float(residual @ residual) / (n - np.trace(hat)) ** 2


def test_gcv_smoothing_parameter_minimizes_the_gcv_score():
    x, y = noisy_sine(n=30, seed=3)
    f = Function.Spline(x, y, smoothing="gcv")
    lam = f.get_smoothing_parameter()
    best = gcv_score(x, y, lam)
    for factor in (0.7, 1.4):
        assert best < gcv_score(x, y, lam * factor)
    # the reported lam reproduces the GCV spline
    g = Function.Spline(x, y, smoothing=lam)
    for q in np.linspace(0.0, 2 * math.pi, 25):
        assert g(q) == pytest.approx(f(q), abs=1e-8)


def test_large_smoothing_parameter_approaches_the_least_squares_line():
    rng = np.random.default_rng(0)
    x = np.sort(rng.uniform(0.0, 10.0, 20))
    y = 0.5 * x + np.sin(x) + 0.1 * rng.standard_normal(20)
    line = np.polyfit(x, y, 1)
    grid = np.linspace(0.0, 10.0, 41)

    def gap(lam):
        f = Function.Spline(x, y, smoothing=lam)
        return max(abs(f(q) - np.polyval(line, q)) for q in grid)

    assert gap(1e-3) > 0.1
    assert gap(1e6) < 1e-3
    f = Function.Spline(x, y, smoothing=1e6)
    assert f.calc_derivative([0], 5.0) == pytest.approx(line[0], rel=1e-3)


def test_readme_knee_example():
    angles = np.linspace(-2.0, 0.2, 12)
    offsets = -0.005 * np.sin(angles) + 0.0003 * np.cos(7 * angles)
    knee_tx = Function.Spline(angles, offsets, smoothing="gcv")
    assert math.isfinite(knee_tx.calc_value(0.3))
    assert math.isfinite(knee_tx.calc_derivative([0], 0.3))


# ------------------------------------------------------------------ the base interface


class CoordinateCoupler(Function):
    """The seed's c(q) = q0 - q1."""

    def calc_value(self, x):
        x = self.check_arguments(x)
        return float(x[0] - x[1])

    def calc_derivative(self, deriv_components, x):
        self.check_arguments(x, deriv_components)
        if len(deriv_components) == 1:
            return 1.0 if deriv_components[0] == 0 else -1.0
        return 0.0

    def get_argument_size(self):
        return 2

    def get_max_derivative_order(self):
        return sys.maxsize


def test_user_subclass_through_the_base_interface():
    user, builtin = CoordinateCoupler(), Function.Linear([1.0, -1.0, 0.0])
    for f in (user, builtin):
        f: Function
        assert isinstance(f, Function)
        assert f.get_argument_size() == 2
        assert f.get_max_derivative_order() == sys.maxsize
        x = np.array([3.0, 1.25])
        assert f.calc_value(x) == 1.75 and f(x) == 1.75 and f([3.0, 1.25]) == 1.75
        assert f.calc_derivative([0], x) == 1.0
        assert f.calc_derivative([1], x) == -1.0
        assert f.calc_derivative([0, 1], x) == 0.0
        assert f.calc_derivative([1, 1, 0], x) == 0.0
        h = np.array([0.0, 1e-6])
        assert (f(x + h) - f(x - h)) / 2e-6 == pytest.approx(-1.0, rel=1e-8)
    with pytest.raises(InvalidArgumentError, match="CoordinateCoupler.calc_value"):
        user.calc_value([1.0, 2.0, 3.0])
    with pytest.raises(InvalidArgumentError, match="argument index"):
        user.calc_derivative([2], [1.0, 2.0])


def test_subclass_missing_a_method_says_which():
    class Forgetful(Function):
        def calc_value(self, x):
            return float(self.check_arguments(x)[0])

        def get_argument_size(self):
            return 1

        def get_max_derivative_order(self):
            return 2

    f = Forgetful()
    assert f(2.0) == 2.0
    with pytest.raises(NotImplementedError, match=r"Forgetful must implement calc_derivative"):
        f.calc_derivative([0], 2.0)
    base = Function()
    for call, name in [
        (lambda: base.calc_value([1.0]), "calc_value"),
        (lambda: base.calc_derivative([0], [1.0]), "calc_derivative"),
        (base.get_argument_size, "get_argument_size"),
        (base.get_max_derivative_order, "get_max_derivative_order"),
    ]:
        with pytest.raises(NotImplementedError, match=f"must implement {name}"):
            call()


def test_builtins_are_nested_subclasses_returning_python_floats():
    pairs = [
        (Function.Constant, Constant),
        (Function.Linear, Linear),
        (Function.Polynomial, Polynomial),
        (Function.Sinusoid, Sinusoid),
        (Function.Step, Step),
        (Function.Spline, Spline),
    ]
    for nested, module_level in pairs:
        assert nested is module_level and issubclass(nested, Function)
    for _, factory, points in ONE_ARGUMENT_CASES:
        f = factory()
        assert repr(f).startswith("Function.")
        for x in (points[0], np.float64(points[0]), np.array([points[0]])):
            assert type(f.calc_value(x)) is float
            assert type(f.calc_derivative([0], x)) is float
            assert type(f.calc_derivative([0, 0], x)) is float
    lin = Function.Linear([1.0, 2.0, 3.0])
    assert type(lin.calc_value(np.array([1.0, 1.0]))) is float
    assert type(lin.calc_derivative([1], [1.0, 1.0])) is float


def test_one_argument_functions_accept_scalars_and_length_one_vectors():
    f = Function.Polynomial([1.0, 0.0, 0.0])
    for x in (2, 2.0, [2.0], (2.0,), np.array([2.0]), np.array(2.0), np.float32(2.0)):
        assert f(x) == 4.0
        assert f.calc_derivative([0], x) == 4.0
    assert f.check_scalar_argument(np.array([1.5])) == 1.5
    np.testing.assert_array_equal(Function.Constant(1.0).check_arguments(1.5), [1.5])


# ------------------------------------------------------------------ refusals

BAD_CALLS = [
    # wrong argument size / shape / type
    ("linear_scalar", lambda: Function.Linear([1.0, 2.0, 3.0]).calc_value(1.0), "2 arguments"),
    ("linear_3", lambda: Function.Linear([1.0, 2.0, 3.0]).calc_value([1, 2, 3]), "vector of 2"),
    ("poly_2", lambda: Function.Polynomial([1.0]).calc_value([1.0, 2.0]), "1 argument"),
    ("step_2d", lambda: Function.Step(0, 1, 0, 1).calc_value([[0.5]]), "1 argument"),
    ("const_3", lambda: Function.Constant(1.0, 3).calc_value([1.0, 2.0]), "vector of 3"),
    ("text", lambda: Function.Constant(1.0, 2).calc_value(["a", "b"]), "numeric"),
    ("deriv_size", lambda: Function.Sinusoid(1, 1).calc_derivative([0], [1.0, 2.0]), "1 arg"),
    # derivative orders and components
    ("step_order_4", lambda: Function.Step(0, 1, 0, 1).calc_derivative([0] * 4, 0.5), "up to 3"),
    ("empty", lambda: Function.Polynomial([1.0, 2.0]).calc_derivative([], 1.0), "empty"),
    ("index", lambda: Function.Linear([1.0, 2.0, 3.0]).calc_derivative([0, 2], [1, 2]), "0 to 1"),
    ("negative", lambda: Function.Sinusoid(1, 1).calc_derivative([-1], 0.0), "argument index"),
    ("float_index", lambda: Function.Sinusoid(1, 1).calc_derivative([0.0], 0.0), "integers"),
    ("no_args", lambda: Function.Constant(0.0, 0).calc_derivative([0], []), "no arguments"),
    ("bare_int", lambda: Function.Sinusoid(1, 1).calc_derivative(0, 0.0), "sequence"),
    # construction
    ("linear_1", lambda: Function.Linear([1.0]), "at least 2"),
    ("poly_empty", lambda: Function.Polynomial([]), "at least one"),
    ("poly_nan", lambda: Function.Polynomial([1.0, float("nan")]), "finite"),
    ("step_width", lambda: Function.Step(0.0, 1.0, 2.0, 2.0), "x0 != x1"),
    ("sin_inf", lambda: Function.Sinusoid(float("inf"), 1.0), "finite"),
    ("const_nan", lambda: Function.Constant(float("nan")), "finite"),
    ("const_size", lambda: Function.Constant(1.0, -1), ">= 0"),
    ("const_size_type", lambda: Function.Constant(1.0, 1.5), "integer"),
    # bad spline data
    ("length", lambda: Function.Spline([0, 1, 2], [0, 1]), "same length"),
    ("unsorted", lambda: Function.Spline([0, 2, 1], [0, 1, 2]), "sort the points"),
    ("duplicate", lambda: Function.Spline([0, 1, 1, 2], [0, 1, 2, 3]), "duplicate"),
    ("x_nan", lambda: Function.Spline([0, float("nan"), 2], [0, 1, 2]), "x\\[1\\] is nan"),
    ("y_inf", lambda: Function.Spline([0, 1, 2], [0, float("inf"), 2]), "finite"),
    ("one_point", lambda: Function.Spline([0.0], [1.0]), "at least 2"),
    ("gcv_4", lambda: Function.Spline([0, 1, 2, 3], [0, 1, 0, 1], smoothing="gcv"), "at least 5"),
    ("lam_4", lambda: Function.Spline([0, 1, 2, 3], [0, 1, 0, 1], smoothing=1.0), "at least 5"),
    ("lam_neg", lambda: Function.Spline(SPLINE_X, SPLINE_Y, smoothing=-1.0), ">= 0"),
    ("lam_nan", lambda: Function.Spline(SPLINE_X, SPLINE_Y, smoothing=float("nan")), "finite"),
    ("lam_text", lambda: Function.Spline(SPLINE_X, SPLINE_Y, smoothing="cv"), "'gcv'"),
    ("y_2d", lambda: Function.Spline([0, 1, 2], [[0, 1], [1, 2], [2, 3]]), "1-D"),
]


@pytest.mark.parametrize("call, message", [c[1:] for c in BAD_CALLS], ids=[c[0] for c in BAD_CALLS])
def test_bad_arguments_raise_invalid_argument_error(call, message):
    with pytest.raises(InvalidArgumentError, match=message) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert "Function." in str(info.value)
