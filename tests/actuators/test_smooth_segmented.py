"""OpenSim's smooth segmented curves (Millard's muscle curves) against OpenSim 4.6's curve
objects, and their defining values, slopes, continuity and inverse."""

import numpy as np
import pytest

from kinetree.actuators import _smooth_segmented as ss
from kinetree.errors import InvalidArgumentError

# name: (kinetree's construction, OpenSim's class and arguments, x range sampled)
CURVES = {
    "active_force_length_default": (ss.active_force_length_curve, (), (0.0, 2.2)),
    "active_force_length_rajagopal": (ss.active_force_length_curve,
                                      (0.25, 0.77, 1.9, 0.75, 0.0), (0.0, 2.2)),
    "force_velocity_default": (ss.force_velocity_curve, (), (-1.3, 1.3)),
    "force_velocity_classic": (ss.force_velocity_curve,
                               (0.125, 0.25, 5.0, 0.075, 0.15, 1.4, 0.6, 0.9), (-1.3, 1.3)),
    "force_velocity_inverse": (ss.force_velocity_inverse_curve,
                               (0.125, 0.25, 5.0, 0.075, 0.15, 1.4, 0.6, 0.9), (-0.2, 1.6)),
    "fiber_force_length_fitted": (ss.fiber_force_length_curve, (0.0, 0.7), (0.8, 2.0)),
    "fiber_force_length_given": (ss.fiber_force_length_curve,
                                 (0.1, 0.6, 0.3, 3.0, 0.4), (0.8, 2.0)),
    "tendon_force_length_fitted": (ss.tendon_force_length_curve, (0.049,), (0.95, 1.1)),
    "tendon_force_length_given": (ss.tendon_force_length_curve,
                                  (0.04, 40.0, 0.6, 0.3), (0.95, 1.1)),
}
OPENSIM_CLASS = {ss.active_force_length_curve: "ActiveForceLengthCurve",
                 ss.force_velocity_curve: "ForceVelocityCurve",
                 ss.force_velocity_inverse_curve: "ForceVelocityInverseCurve",
                 ss.fiber_force_length_curve: "FiberForceLengthCurve",
                 ss.tendon_force_length_curve: "TendonForceLengthCurve"}


def joints(c):
    """The x of each section's start and the curve's end."""
    n = int(c[0])
    starts = [c[ss.HEADER + ss.SECTION * s] for s in range(n)]
    return np.array(starts + [c[ss.HEADER + ss.SECTION * (n - 1) + 5]])


def points(c, lo, hi, n, seed):
    return np.concatenate([np.random.default_rng(seed).uniform(lo, hi, n), joints(c)])


def opensim_curve(osim, make, args):
    """OpenSim's curve object of the same properties (the fitted fiber and tendon
    force-length curves from their strains alone)."""
    cls = getattr(osim, OPENSIM_CLASS[make])
    if make is ss.fiber_force_length_curve and len(args) == 2:
        curve = cls()
        curve.set_strain_at_zero_force(args[0])
        curve.set_strain_at_one_norm_force(args[1])
        return curve
    if make is ss.tendon_force_length_curve and len(args) == 1:
        curve = cls()
        curve.set_strain_at_one_norm_force(args[0])
        return curve
    return cls(*args)


@pytest.mark.parametrize("name", CURVES)
def test_curves_agree_with_opensims(name):
    """Values to 1e-12 (relative, at least 1 absolute). OpenSim solves x(u) = x only to
    UTOL in x and evaluates the sections in power form, which leaves its derivatives
    uncertain by more (measured: 3e-11 for dy/dx on the tendon's steep toe, 2e-8 for
    d2y/dx2 at a section's end, where it is 0); those are compared to 1e-10 and 1e-7."""
    osim = pytest.importorskip("opensim")
    make, args, (lo, hi) = CURVES[name]
    c = make(*args)
    theirs = opensim_curve(osim, make, args)
    for x in points(c, lo, hi, 400, seed=len(name)):
        d = [ss.curve_derivative(c, 0, x, k) for k in range(3)]
        ref = [theirs.calcValue(x), theirs.calcDerivative(x, 1), theirs.calcDerivative(x, 2)]
        for k, tol in enumerate((1e-12, 1e-10, 1e-7)):
            assert abs(d[k] - ref[k]) <= tol * max(1.0, abs(ref[k])), (x, k, d[k], ref[k])
        assert ss.curve(c, 0, x) == (d[0], d[1])
        assert ss.curve_value(c, 0, x) == d[0]


@pytest.mark.parametrize("name", CURVES)
def test_slopes_are_the_derivatives_of_the_values(name):
    """Central differences of y, inside the sections and across their joints (the curve
    is C1 and C2 there), and of dy/dx inside the sections (d3y/dx3 jumps at a joint)."""
    make, args, (lo, hi) = CURVES[name]
    c = make(*args)
    h = 1e-6
    ends = joints(c)
    for x in points(c, lo, hi, 100, seed=1):
        y = [ss.curve_derivative(c, 0, x + s * h / 10, 0) for s in (-1, 1)]
        dy = [ss.curve_derivative(c, 0, x + s * h, 1) for s in (-1, 1)]
        d1, d2 = ss.curve_derivative(c, 0, x, 1), ss.curve_derivative(c, 0, x, 2)
        scale = max(1.0, abs(d1))
        assert (y[1] - y[0]) / (h / 5) == pytest.approx(d1, abs=1e-6 * scale)
        if np.all(np.abs(ends - x) > 2 * h):
            assert (dy[1] - dy[0]) / (2 * h) == pytest.approx(d2, abs=1e-5 * max(1, abs(d2)))


def test_defining_values_and_slopes():
    fal = ss.active_force_length_curve(0.25, 0.77, 1.9, 0.75, 0.0)
    assert ss.curve(fal, 0, 1.0) == pytest.approx((1.0, 0.0), abs=1e-15)
    assert ss.curve(fal, 0, 0.25) == pytest.approx((0.0, 0.0), abs=1e-15)
    assert ss.curve(fal, 0, 0.1) == (0.0, 0.0)         # flat at the minimum below
    assert ss.curve(fal, 0, 2.5) == (0.0, 0.0)         # and above
    fv = ss.force_velocity_curve()
    assert ss.curve_value(fv, 0, 0.0) == pytest.approx(1.0, abs=1e-15)
    assert ss.curve_derivative(fv, 0, 0.0, 1) == pytest.approx(5.0, rel=1e-13)
    assert ss.curve(fv, 0, -1.0) == pytest.approx((0.0, 0.0), abs=1e-15)
    assert ss.curve_value(fv, 0, 1.0) == pytest.approx(1.4, abs=1e-15)
    fpe = ss.fiber_force_length_curve(0.0, 0.7)
    assert ss.curve(fpe, 0, 1.0) == pytest.approx((0.0, 0.0), abs=1e-15)
    # linear past the strain at one normalized force, at the fitted stiffness 2 / 0.7
    assert ss.curve(fpe, 0, 1.9) == pytest.approx((1.0 + 0.2 * 2 / 0.7, 2 / 0.7), rel=1e-14)
    fse = ss.tendon_force_length_curve(0.049)
    assert ss.curve(fse, 0, 0.99) == (0.0, 0.0)        # slack
    assert ss.curve_value(fse, 0, 1.049) == pytest.approx(1.0, rel=1e-14)
    assert ss.curve_derivative(fse, 0, 1.06, 1) == pytest.approx(1.375 / 0.049, rel=1e-14)
    assert np.isnan(ss.curve_value(fse, 0, np.nan))
    assert np.isnan(ss.curve_derivative(fse, 0, 1.01, 3))


def test_the_inverse_force_velocity_curve_inverts_the_curve_of_its_slopes():
    """ForceVelocityInverseCurve(v) is the x of ForceVelocityCurve with the same
    properties (end slopes > 0): fv_inverse(fv(v)) = v, slopes reciprocal."""
    args = (0.125, 0.25, 5.0, 0.075, 0.15, 1.4, 0.6, 0.9)
    fv, inverse = ss.force_velocity_curve(*args), ss.force_velocity_inverse_curve(*args)
    for v in np.linspace(-1.2, 1.2, 97):
        y, dy = ss.curve(fv, 0, v)
        x, dx = ss.curve(inverse, 0, y)
        assert x == pytest.approx(v, abs=1e-13)
        assert dx * dy == pytest.approx(1.0, rel=1e-10)


def test_properties_out_of_range_are_refused():
    with pytest.raises(InvalidArgumentError, match="shallow_ascending_slope"):
        ss.active_force_length_curve(0.4, 0.73, 1.8, 5.0, 0.1)
    with pytest.raises(InvalidArgumentError, match="transition_norm_fiber_length"):
        ss.active_force_length_curve(0.8, 0.73, 1.8, 0.8, 0.1)
    with pytest.raises(InvalidArgumentError, match="max_eccentric_velocity"):
        ss.force_velocity_curve(max_eccentric_velocity_force_multiplier=0.9)
    with pytest.raises(InvalidArgumentError, match="concentric_slope_at_vmax"):
        ss.force_velocity_inverse_curve(concentric_slope_at_vmax=0.0)
    with pytest.raises(InvalidArgumentError, match="all be given or all be absent"):
        ss.fiber_force_length_curve(0.0, 0.7, 0.2)
    with pytest.raises(InvalidArgumentError, match="stiffness_at_one_norm_force"):
        ss.tendon_force_length_curve(0.049, 10.0, 0.5, 0.5)
    with pytest.raises(InvalidArgumentError, match="curviness"):
        ss.corner_control_points(0, 0, 0, 1, 1, 2, 1.5)
