"""OpenSim's Function kinds (SimmSpline, GCVSpline, PiecewiseLinear, Multiplier, and
LinearFunction / PolynomialFunction through Function.Linear / Function.Polynomial) against
OpenSim 4 itself: each kinetree function and the OpenSim object read from the same XML
numbers agree in value, first and second derivative (and higher, where OpenSim has them) to
1e-12 of the function's size, at the data points, between them, near and at the ends (inside
and outside OpenSim's 2e-13 end window) and far outside the data. gait2392's knee splines are
also taken from the model file as OpenSim loads it. A FunctionBased knee on these functions
passes check_mobilizer, and bad construction data is refused."""

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import kinetree as kt
from kinetree.errors import InvalidArgumentError

osim = pytest.importorskip("opensim")

MODELS = Path(__file__).resolve().parents[2] / "models" / "opensim"
GAIT2392 = MODELS / "gait2392_thelen2003muscle.osim"

RTOL = 1e-12

# The GCVSpline of OpenSim's own Tug-of-War controller test (smooth data, 11 points).
TUG_X = np.linspace(0.0, 1.0, 11)
TUG_Y = np.array([0.573621, 0.44629, 0.319214, 0.183898, 0.0920755, 0.0407125, -0.0085371,
                  -0.040781, -0.0774591, -0.133466, -0.219896])


def noisy_sine(n=40, seed=7):
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 6.0, n))
    return x, np.sin(x) + 0.1 * rng.standard_normal(n)


def irregular(n=12, seed=1):
    rng = np.random.default_rng(seed)
    return np.sort(rng.uniform(-2.0, 2.0, n)), rng.standard_normal(n)


def knee_splines():
    """{(joint, axis): (x, y)} of the SimmSplines of gait2392's knee_r, read from the file."""
    root = ET.parse(GAIT2392).getroot()
    joint = next(j for j in root.iter("CustomJoint") if j.get("name") == "knee_r")
    found = {}
    for axis in joint.iter("TransformAxis"):
        spline = axis.find("SimmSpline")
        if spline is not None:
            found[axis.get("name")] = (np.array(spline.find("x").text.split(), float),
                                       np.array(spline.find("y").text.split(), float))
    return found


# ------------------------------------------------------------------------ OpenSim side


def numbers(values) -> str:
    return " ".join(repr(float(v)) for v in np.atleast_1d(values))


@pytest.fixture(scope="module")
def opensim_function(tmp_path_factory):
    """body (the XML of one OpenSim Function) -> that Function, as OpenSim reads it."""
    folder = tmp_path_factory.mktemp("osim_functions")
    count = [0]

    def make(body: str):
        count[0] += 1
        path = folder / f"f{count[0]}.xml"
        path.write_text('<?xml version="1.0" encoding="UTF-8" ?>\n'
                        f'<OpenSimDocument Version="40000">{body}</OpenSimDocument>\n')
        made = osim.Function.safeDownCast(osim.OpenSimObject.makeObjectFromFile(str(path)))
        assert made is not None, body
        return made

    return make


def components(order):
    v = osim.StdVectorInt()
    for _ in range(order):
        v.append(0)
    return v


def opensim_eval(function, x, order):
    arg = osim.Vector(1, float(x))
    if order == 0:
        return function.calcValue(arg)
    return function.calcDerivative(components(order), arg)


def probe_points(x):
    """Data points, midpoints, a sweep reaching half the data's span beyond each end, and
    arguments inside and just outside OpenSim's 2e-13 end window."""
    x = np.asarray(x, float)
    span = x[-1] - x[0]
    pts = list(x) + list(0.5 * (x[:-1] + x[1:]))
    pts += list(np.linspace(x[0] - 0.5 * span, x[-1] + 0.5 * span, 97))
    for end, out in ((x[0], -1.0), (x[-1], 1.0)):
        pts += [end + out * d for d in (1e-13, 1e-9, 1e-3)]
        pts += [end - out * d for d in (1e-13, 3e-13, 1e-9, 1e-3)]
    pts += [x[0] - 10.0 * span, x[-1] + 10.0 * span]
    return [float(p) for p in pts]


def worst_discrepancy(ours, theirs, points, order) -> float:
    """max |ours - OpenSim| over the points, divided by max |OpenSim| there (1 if 0)."""
    ref = np.array([opensim_eval(theirs, t, order) for t in points])
    mine = np.array([ours.calc_value(t) if order == 0
                     else ours.calc_derivative([0] * order, t) for t in points])
    scale = float(np.max(np.abs(ref))) or 1.0
    return float(np.max(np.abs(mine - ref))) / scale


def assert_matches(ours, theirs, points, orders):
    for order in orders:
        err = worst_discrepancy(ours, theirs, points, order)
        assert err <= RTOL, f"derivative order {order}: {err:.3g} of the function's size"


# ------------------------------------------------------------------------ SimmSpline


def simm_xml(x, y):
    return f"<SimmSpline><x>{numbers(x)}</x><y>{numbers(y)}</y></SimmSpline>"


SIMM_CASES = {
    "12 irregular points": irregular(),
    "2 points (a line)": (np.array([-0.5, 1.5]), np.array([0.2, -0.7])),
    "3 points": (np.array([-1.0, 0.2, 1.0]), np.array([0.3, -0.4, 0.9])),
    "4 points": (np.array([-1.0, -0.2, 0.5, 1.0]), np.array([0.3, -0.4, 0.1, 0.9])),
    "a repeated x": (np.array([0.0, 1.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0, 1.0, 0.0])),
}


@pytest.mark.parametrize("case", list(SIMM_CASES))
def test_simm_spline_matches_opensim(case, opensim_function):
    x, y = SIMM_CASES[case]
    assert_matches(kt.Function.SimmSpline(x, y), opensim_function(simm_xml(x, y)),
                   probe_points(x), (0, 1, 2))


@pytest.mark.parametrize("axis", ["translation1", "translation2"])
def test_gait2392_knee_splines_match_the_model_opensim_loads(axis):
    """The knee_r translations as OpenSim builds them from gait2392's file; a natural cubic
    through the same points is off by more than 0.1 mm."""
    model = osim.Model(str(GAIT2392))
    joint = osim.CustomJoint.safeDownCast(model.getJointSet().get("knee_r"))
    transform = joint.getSpatialTransform()
    index = ["rotation1", "rotation2", "rotation3", "translation1", "translation2",
             "translation3"].index(axis)
    theirs = transform.getTransformAxis(index).get_function()
    assert theirs.getConcreteClassName() == "SimmSpline"
    x, y = knee_splines()[axis]
    ours = kt.Function.SimmSpline(x, y)
    assert_matches(ours, theirs, probe_points(x), (0, 1, 2))
    q = np.linspace(-2.0943951, 0.17453293, 501)          # the knee's range of motion (rad)
    natural = kt.Function.Spline(x, y)
    assert max(abs(ours(t) - natural(t)) for t in q) > 1e-4


def test_simm_spline_ends_and_extrapolation():
    """Beyond the data, the end tangent line with f'' = 0; at an end, the end's f''."""
    x, y = SIMM_CASES["12 irregular points"]
    f = kt.Function.SimmSpline(x, y)
    b, c, _ = f.get_coefficients().T
    for t in (x[0] - 0.7, x[-1] + 0.7):
        end = 0 if t < x[0] else -1
        assert f(t) == pytest.approx(y[end] + (t - x[end]) * b[end], rel=1e-15)
        assert f.calc_derivative([0], t) == b[end]
        assert f.calc_derivative([0, 0], t) == 0.0
    assert f.calc_derivative([0, 0], x[0]) == 2.0 * c[0]
    assert f.calc_value_and_derivatives(x[-1]) == (y[-1], b[-1], 2.0 * c[-1])
    assert f.get_max_derivative_order() == 2
    with pytest.raises(InvalidArgumentError, match="orders up to 2"):
        f.calc_derivative([0, 0, 0], 0.1)


# ------------------------------------------------------------------------ PiecewiseLinear


def piecewise_xml(x, y):
    return (f"<PiecewiseLinearFunction><x>{numbers(x)}</x><y>{numbers(y)}</y>"
            f"</PiecewiseLinearFunction>")


PIECEWISE_CASES = dict(SIMM_CASES, **{
    "1 point (a constant)": (np.array([0.5]), np.array([2.0])),
    "many points": irregular(33, seed=3),
})


@pytest.mark.parametrize("case", list(PIECEWISE_CASES))
def test_piecewise_linear_matches_opensim(case, opensim_function):
    """Including the slope at each data point, where it jumps and OpenSim's bisection picks
    the left or the right segment."""
    x, y = PIECEWISE_CASES[case]
    points = probe_points(x) if len(x) > 1 else [-1.0, 0.5, 0.5 + 1e-13, 2.0]
    assert_matches(kt.Function.PiecewiseLinear(x, y), opensim_function(piecewise_xml(x, y)),
                   points, (0, 1, 2, 3))


def test_piecewise_linear_slope_at_a_data_point_is_one_of_its_segments():
    x, y = irregular(33, seed=3)
    f = kt.Function.PiecewiseLinear(x, y)
    slopes = np.diff(y) / np.diff(x)
    for i in range(1, len(x) - 1):
        assert f.calc_derivative([0], x[i]) in (slopes[i - 1], slopes[i])
        assert f(x[i]) == pytest.approx(y[i], abs=1e-15)


# ------------------------------------------------------------------------ GCVSpline


def gcv_xml(half_order, x, y, error_variance):
    """As OpenSim writes it, with the stored coefficients and weights that OpenSim ignores
    (zeros and ones, as in its own test models)."""
    zeros, ones = numbers(np.zeros(len(x))), numbers(np.ones(len(x)))
    return (f"<GCVSpline><half_order>{half_order}</half_order><error_variance>"
            f"{error_variance!r}</error_variance><x>{numbers(x)}</x><y>{numbers(y)}</y>"
            f"<weights>{ones}</weights><coefficients>{zeros}</coefficients></GCVSpline>")


GCV_DATA = {"tug of war": (TUG_X, TUG_Y), "noisy sine": noisy_sine(),
            "irregular": irregular()}


@pytest.mark.parametrize("error_variance", [0.0, -1.0, 0.01],
                         ids=["variance 0 (default)", "GCV", "variance 0.01"])
@pytest.mark.parametrize("half_order", [1, 2, 3, 4])
@pytest.mark.parametrize("data", list(GCV_DATA))
def test_gcv_spline_matches_opensim(data, half_order, error_variance, opensim_function):
    """OpenSim refits the spline from x and y when it loads it; the same fit (same
    smoothing parameter, same coefficients) and the same evaluation, every derivative that
    is not identically 0 and one beyond."""
    x, y = GCV_DATA[data]
    ours = kt.Function.GCVSpline(2 * half_order - 1, x, y, error_variance)
    theirs = opensim_function(gcv_xml(half_order, x, y, error_variance))
    assert_matches(ours, theirs, probe_points(x), range(2 * half_order + 1))
    stored = osim.GCVSpline.safeDownCast(theirs).getCoefficients()   # refitted by now
    refit = np.array([stored.get(i) for i in range(stored.getSize())])
    np.testing.assert_allclose(ours.get_coefficients(), refit, rtol=0,
                               atol=RTOL * np.max(np.abs(refit)))


def test_gcv_spline_shape_outside_and_at_the_data():
    """Degree 5: a parabola beyond the data (f''' = 0 there); with the default variance 0
    it passes through the points; GCV smooths noisy data."""
    x, y = TUG_X, TUG_Y
    f = kt.Function.GCVSpline(5, x, y)
    assert f.get_degree() == 5 and f.get_half_order() == 3
    for t in (x[0] - 0.3, x[-1] + 0.3):
        assert f.calc_derivative([0, 0, 0], t) == 0.0
    np.testing.assert_allclose([f(t) for t in x], y, rtol=0, atol=1e-12)
    xn, yn = noisy_sine(100)                                # noise sigma 0.1
    smooth = kt.Function.GCVSpline(5, xn, yn, -1.0)
    assert smooth.get_smoothing_parameter() > 0.0
    fitted = np.array([smooth(t) for t in xn])
    assert 0.07 < np.sqrt(np.mean((fitted - yn) ** 2)) < 0.13   # it leaves the noise out
    assert np.sqrt(np.mean((fitted - np.sin(xn)) ** 2)) < 0.04  # and follows the curve


# ------------------------------------------------------------------------ Multiplier


@pytest.mark.parametrize("inner", ["SimmSpline", "PiecewiseLinear", "Constant", "nested"])
def test_multiplier_matches_opensim(inner, opensim_function):
    x, y = gait = knee_splines()["translation1"]
    if inner == "SimmSpline":
        ours_inner, xml = kt.Function.SimmSpline(*gait), simm_xml(*gait)
    elif inner == "PiecewiseLinear":
        ours_inner, xml = kt.Function.PiecewiseLinear(*gait), piecewise_xml(*gait)
    elif inner == "Constant":
        ours_inner, xml = kt.Function.Constant(0.37), "<Constant><value>0.37</value></Constant>"
    else:
        ours_inner = kt.Function.Multiplier(kt.Function.SimmSpline(*gait), -0.5)
        xml = (f"<MultiplierFunction><function>{simm_xml(*gait)}</function><scale>-0.5"
               f"</scale></MultiplierFunction>")
    ours = kt.Function.Multiplier(ours_inner, 1.0712)
    theirs = opensim_function(f"<MultiplierFunction><function>{xml}</function>"
                              f"<scale>1.0712</scale></MultiplierFunction>")
    assert_matches(ours, theirs, probe_points(x), (0, 1, 2))
    assert ours.get_function() is ours_inner and ours.get_scale() == 1.0712
    assert ours.get_max_derivative_order() == ours_inner.get_max_derivative_order()
    for t in (-3.0, -0.3, 0.2, 2.5):
        assert ours.calc_value_and_derivatives(t) == pytest.approx(
            [ours(t), ours.calc_derivative([0], t), ours.calc_derivative([0, 0], t)],
            rel=1e-15, abs=1e-300)


# ------------------------------------------------------------ LinearFunction, Polynomial


def test_opensim_linear_function_is_function_linear(opensim_function):
    """<coefficients>slope intercept</coefficients> is Function.Linear's order."""
    theirs = opensim_function("<LinearFunction><coefficients>-1.25 0.4</coefficients>"
                              "</LinearFunction>")
    assert_matches(kt.Function.Linear([-1.25, 0.4]), theirs, probe_points([-3.0, 3.0]),
                   (0, 1, 2))


def test_opensim_polynomial_function_is_function_polynomial(opensim_function):
    """<coefficients> highest power first, as Function.Polynomial."""
    c = [0.3, -1.5, 0.25, 2.0, -0.7]
    theirs = opensim_function(f"<PolynomialFunction><coefficients>{numbers(c)}"
                              f"</coefficients></PolynomialFunction>")
    assert_matches(kt.Function.Polynomial(c), theirs, probe_points([-2.0, 2.0]),
                   (0, 1, 2, 3, 4, 5))


# ------------------------------------------------------------ in a FunctionBased knee


@pytest.mark.parametrize("euler", [False, True], ids=["quaternion", "euler"])
def test_function_based_knee_on_opensim_functions_passes_check_mobilizer(euler):
    """gait2392's knee (rotation = q about z, SimmSpline translations), with a scaled copy
    of one spline and a GCVSpline on a second coordinate: the mobilizer's X_FM holds the
    functions' values, and its H, HDot, N and fits agree with finite differences."""
    splines = knee_splines()
    tx = kt.Function.SimmSpline(*splines["translation1"])
    ty = kt.Function.Multiplier(kt.Function.SimmSpline(*splines["translation2"]), 1.07)
    tz = kt.Function.GCVSpline(5, np.linspace(-1.0, 1.0, 9),
                               0.01 * np.cos(np.linspace(-1.0, 1.0, 9)), -1.0)
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    body = kt.Body.Rigid(kt.MassProperties(2.0, [0.0, -0.2, 0.0], kt.Inertia(0.2)))
    knee = kt.MobilizedBody.FunctionBased(
        matter.Ground(), kt.Transform([0.0, 1.0, 0.0]), body, kt.Transform(), 2,
        [kt.Function.Linear([1.0, 0.0]), kt.Function.Constant(0.0, 0),
         kt.Function.Constant(0.0, 0), tx, ty, tz],
        [[0], [], [], [0], [0], [1]],
        [[0, 0, 1], [0, 1, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]])
    state = system.realize_topology()
    matter.set_use_euler_angles(state, euler)
    system.realize_model(state)
    for q in ([-1.2, 0.3], [-0.05, -0.6], [0.1, 0.45]):
        knee.set_q(state, q)
        state.set_u([0.8, -1.3])
        system.realize(state, kt.Stage.POSITION)
        p = knee.get_mobilizer_transform(state).p
        np.testing.assert_allclose(p, [tx(q[0]), ty(q[0]), tz(q[1])], rtol=0, atol=1e-15)
        kt.check_mobilizer(knee, state).assert_ok()


# ------------------------------------------------------------ names, refusals


def test_names_are_nested_in_function():
    for name in ("SimmSpline", "GCVSpline", "PiecewiseLinear", "Multiplier"):
        cls = getattr(kt.Function, name)
        assert cls.__qualname__ == f"Function.{name}"
        assert issubclass(cls, kt.Function)
    f = kt.Function.SimmSpline([0.0, 1.0], [0.0, 2.0])
    assert f.get_argument_size() == 1 and f(0.25) == 0.5
    assert "SimmSpline" in repr(f)


@pytest.mark.parametrize("make, match", [
    (lambda: kt.Function.SimmSpline([0.0], [1.0]), "at least 2"),
    (lambda: kt.Function.SimmSpline([0.0, 1.0, 0.5], [1.0, 2.0, 3.0]), "non-decreasing"),
    (lambda: kt.Function.SimmSpline([0.0, 1.0], [1.0]), "same length"),
    (lambda: kt.Function.SimmSpline([0.0, math.nan], [1.0, 2.0]), "finite"),
    (lambda: kt.Function.PiecewiseLinear([], []), "at least 1"),
    (lambda: kt.Function.PiecewiseLinear([1.0, 0.0], [1.0, 2.0]), "non-decreasing"),
    (lambda: kt.Function.GCVSpline(4, TUG_X, TUG_Y), "odd"),
    (lambda: kt.Function.GCVSpline(0, TUG_X, TUG_Y), "odd"),
    (lambda: kt.Function.GCVSpline(5, TUG_X[:5], TUG_Y[:5]), "at least 6"),
    (lambda: kt.Function.GCVSpline(3, [0.0, 1.0, 1.0, 2.0], [0.0] * 4), "strictly"),
    (lambda: kt.Function.GCVSpline(3, TUG_X, TUG_Y, math.inf), "finite"),
    (lambda: kt.Function.Multiplier(lambda x: x, 2.0), "must be a Function"),
    (lambda: kt.Function.Multiplier(kt.Function.Constant(1.0), math.nan), "finite"),
])
def test_bad_data_is_refused(make, match):
    with pytest.raises(InvalidArgumentError, match=match):
        make()
