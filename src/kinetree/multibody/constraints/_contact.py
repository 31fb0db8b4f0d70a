"""What the four contact constraints share (PointOnPlaneContact, SphereOnPlaneContact,
SphereOnSphereContact, LineOnLineContact; private).

Each has one holonomic equation (no penetration, along the contact normal z) and, when it
enforces rolling, two nonholonomic ones (no slip, along the tangents x and y). Their
compiled functions order the equations as every constraint does, holonomic first: errors
and multipliers come as [z; x; y]. Simbody's accessors return them as Vec3s in x, y, z
order, with zeros for x and y when rolling is not enforced; ``xyz`` does that reordering.

Compiled helpers: ``frame_axis`` reads one axis of a frame stored in a constraint's
parameters, ``tangents`` and ``tangent_rates`` build the contact frame's x and y axes from
its normal as Simbody's ``Rotation::setRotationFromOneAxis`` does, with their exact time
derivative. Python helpers: argument checks and the poses of the constrained bodies in the
ancestor frame for the ``find_*`` accessors, which work whether or not the constraint is
enabled.
"""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.jit import helper
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform
from kinetree.multibody.constraints import _checks
from kinetree.multibody.kernels.small import add3, cross3, dot3, rotate3, scale3, sub3
from kinetree.system.stage import Stage


# ---------------------------------------------------------------- compiled
@helper
def frame_axis(R_AB, j, cf, at, k):
    """Axis k (0 x, 1 y, 2 z), in A, of a frame fixed on body j whose rotation relative to
    the body (R_BP, 3x3) is stored row by row in cf[at:at + 9]: R_AB[j] times column k."""
    return rotate3(R_AB[j], (cf[at + k], cf[at + 3 + k], cf[at + 6 + k]))


@helper
def _least_axis(z):
    """The coordinate axis (0, 1 or 2) along which z has its smallest |component|: the
    one making the largest angle with z (Simbody's ``UnitVec3::perp`` choice)."""
    a0, a1, a2 = abs(z[0]), abs(z[1]), abs(z[2])
    if a0 <= a1:
        return 0 if a0 <= a2 else 2
    return 1 if a1 <= a2 else 2


@helper
def _cross_axis(v, axis):
    """v × e_axis."""
    if axis == 0:
        return (0.0, v[2], -v[1])
    if axis == 1:
        return (-v[2], 0.0, v[0])
    return (v[1], -v[0], 0.0)


@helper
def tangents(z):
    """(x, y): unit x = z × e / |z × e|, e the coordinate axis farthest from unit z, and
    y = z × x, so that [x y z] is right-handed (Simbody's setRotationFromOneAxis(z, ZAxis)
    in the frame z is expressed in)."""
    c = _cross_axis(z, _least_axis(z))
    x = scale3(1.0 / math.sqrt(dot3(c, c)), c)
    return x, cross3(z, x)


@helper
def tangent_rates(z, zd):
    """(ẋ, ẏ): the time derivatives of ``tangents(z)`` when z changes at the rate zd (both
    in the same frame), the coordinate axis e being held: with c = z × e, ẋ = (ċ - (ċ·x) x)
    / |c| and ẏ = ż × x + z × ẋ."""
    axis = _least_axis(z)
    c = _cross_axis(z, axis)
    norm = math.sqrt(dot3(c, c))
    x = scale3(1.0 / norm, c)
    cd = _cross_axis(zd, axis)
    xd = scale3(1.0 / norm, sub3(cd, scale3(dot3(cd, x), x)))
    return xd, add3(cross3(zd, x), cross3(z, xd))


# ---------------------------------------------------------------- Python
def xyz(values: np.ndarray, rolling: bool) -> np.ndarray:
    """A contact constraint's [z; x; y] errors or multipliers as Simbody's Vec3 [x, y, z]
    (x and y zero when rolling is not enforced)."""
    out = np.zeros(3)
    out[2] = values[0]
    if rolling:
        out[0], out[1] = values[1], values[2]
    return out


def enabled_values(constraint, values: np.ndarray, method: str) -> np.ndarray:
    """A contact constraint's errors or multipliers, refused while it is disabled."""
    return xyz(_checks.some(constraint, values, method), constraint.is_enforcing_rolling())


def flag(value, where: str, what: str) -> bool:
    """``value`` as a bool (True, False or a numpy bool)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(
            f"{where}: {what} must be True or False, got {value!r}.")
    return bool(value)


def positive(value, where: str, what: str) -> float:
    """``value`` as a finite float > 0."""
    x = _checks.real(value, where, what)
    if not x > 0.0:
        raise InvalidArgumentError(f"{where}: {what} must be greater than zero, got {x:g}.")
    return x


def poses_in_ancestor(constraint, state) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                  np.ndarray]:
    """(R_AB, p_AB, R_GA, p_GA): the constrained bodies' rotations (k x 3 x 3) and origins
    (k x 3, m) in the ancestor frame A, and A's pose in Ground (POSITION). Computed from
    the bodies' Ground poses, so it serves a disabled constraint too."""
    X_GA = constraint.get_ancestor_mobilized_body().get_body_transform(state)
    R_GA, p_GA = X_GA.R.as_matrix(), np.array(X_GA.p)
    bodies = constraint.get_implementation()._bodies
    R_AB = np.empty((len(bodies), 3, 3))
    p_AB = np.empty((len(bodies), 3))
    for j, body in enumerate(bodies):
        X_GB = body.get_body_transform(state)
        R_AB[j] = R_GA.T @ X_GB.R.as_matrix()
        p_AB[j] = R_GA.T @ (np.asarray(X_GB.p) - p_GA)
    return R_AB, p_AB, R_GA, p_GA


def rotation_row_by_row(X) -> np.ndarray:
    """The 9 entries of a Transform's rotation, row by row (as ``frame_axis`` reads
    them)."""
    return X.R.as_matrix().ravel()


def frame_arrays(X) -> tuple[np.ndarray, np.ndarray]:
    """(R, p): a Transform as new arrays (3 x 3 and 3), the form in which frames are kept
    in a State's discrete variables, so that State files can hold them."""
    return np.array(X.R.as_matrix(), dtype=float), np.array(X.p, dtype=float)


def frame(R, p) -> Transform:
    """The Transform of arrays kept by ``frame_arrays``."""
    return Transform(Rotation(np.asarray(R)), np.asarray(p))


class StateParameters:
    """The per-State geometry of a contact constraint, a NamedTuple kept in one of the
    matter subsystem's discrete variables (POSITION): ``_initial_parameters()`` gives its
    defaults, ``_WHERE`` and ``_PARAMETERS`` name the constraint and what it holds."""

    _WHERE = ""
    _PARAMETERS = ""

    def realize_topology(self, state) -> None:
        self._parameters_index = self.get_matter_subsystem().allocate_discrete_variable(
            state, Stage.POSITION, self._initial_parameters())

    def get_parameters(self, state):
        if self._parameters_index is None:
            raise InvalidArgumentError(
                f"{self._WHERE}: {self._PARAMETERS} live in the State; call "
                f"system.realize_topology() (after creating the constraint) and use the "
                f"State it returns.")
        return self.get_matter_subsystem().get_discrete_variable(state,
                                                                 self._parameters_index)

    def set_parameters(self, state, parameters) -> None:
        self.get_parameters(state)
        self.get_matter_subsystem().set_discrete_variable(state, self._parameters_index,
                                                          parameters)
        self._parameters_changed(state)
