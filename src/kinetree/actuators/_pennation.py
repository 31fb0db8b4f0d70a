"""OpenSim's MuscleFixedWidthPennationModel: a pennated fiber of constant thickness.

The fiber and the tendon meet at the pennation angle phi of a parallelogram of fixed
height h = l_opt sin(phi_opt) (m), so that a fiber of length l_M (m) has sin(phi) = h /
l_M and spans l_M cos(phi) along the tendon. The angle never exceeds the maximum
pennation angle, which sets the shortest fiber, h / sin(phi_max). Each function takes
and returns plain numbers (lengths in m, angles in rad, velocities in m/s), so that
every muscle with this pennation model shares them.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.jit import helper

EPS = float(np.finfo(float).eps)
SIGNIFICANT_REAL = EPS ** 0.875
"""Simbody's SignificantReal, eps^(7/8): the thresholds OpenSim's muscles test against."""


@helper(error_model="numpy")
def pennation_constants(optimal_fiber_length, pennation_at_optimal, maximum_pennation):
    """(parallelogram height h (m), sin of the maximum pennation, minimum fiber length
    (m), the same projected along the tendon (m)) of a fixed-width pennation model: the
    minimum is h / sin(phi_max), or 1% of the optimal fiber length when phi_max is 0."""
    h = optimal_fiber_length * math.sin(pennation_at_optimal)
    sin_max = math.sin(maximum_pennation)
    if maximum_pennation > SIGNIFICANT_REAL:
        minimum = h / sin_max
    else:
        minimum = optimal_fiber_length * 0.01
    return h, sin_max, minimum, minimum * math.cos(maximum_pennation)


@helper(error_model="numpy")
def pennation_angle(fiber_length, pennation_at_optimal, maximum_pennation, h, sin_max,
                    minimum_length):
    """The pennation angle (rad) of a fiber of ``fiber_length`` (m): asin(h / l_M),
    capped at the maximum (which a fiber at or below its minimum length has); 0 for a
    muscle unpennated at its optimal length."""
    if pennation_at_optimal <= EPS:
        return 0.0
    if fiber_length > minimum_length:
        s = h / fiber_length
        return math.asin(s) if s < sin_max else maximum_pennation
    return maximum_pennation


@helper(error_model="numpy")
def fiber_length_from_along_tendon(along, h, minimum_length, minimum_along):
    """The fiber length (m) spanning ``along`` (m) along the tendon (the muscle's length
    less its tendon's): sqrt(h^2 + along^2), or the minimum fiber length for a span
    shorter than the minimum fiber's."""
    if along >= minimum_along:
        return math.sqrt(h * h + along * along)
    return minimum_length


@helper(error_model="numpy")
def pennation_angular_velocity(pennation_at_optimal, tan_phi, fiber_length,
                               fiber_velocity):
    """d(phi)/dt (rad/s) of a fiber of length l_M (m) lengthening at ``fiber_velocity``
    (m/s): -(v_M / l_M) tan(phi); 0 for an unpennated muscle."""
    if pennation_at_optimal <= EPS:
        return 0.0
    return -(fiber_velocity / fiber_length) * tan_phi


@helper(error_model="numpy")
def tendon_velocity(cos_phi, sin_phi, dphi_dt, fiber_length, fiber_velocity,
                    muscle_velocity):
    """The tendon's lengthening speed (m/s): the muscle's less the fiber's along the
    tendon, d(l_M cos(phi))/dt."""
    return muscle_velocity - fiber_velocity * cos_phi + fiber_length * sin_phi * dphi_dt


@helper(error_model="numpy")
def fiber_velocity_along_tendon(fiber_length, fiber_velocity, sin_phi, cos_phi, dphi_dt):
    """d(l_M cos(phi))/dt (m/s) of a fiber lengthening at ``fiber_velocity`` (m/s)."""
    return fiber_velocity * cos_phi - fiber_length * sin_phi * dphi_dt
