"""SimTK's test assertions (SimTKcommon/Testing.h) for the ported Simbody tests: what
SimTK_TEST_EQ, SimTK_TEST_EQ_TOL, SimTK_TEST_EQ_SIZE and SimTK_TEST_NOTEQ_TOL accept."""

import numpy as np

import kinetree as kt

# SimTK's SignificantReal, the default tolerance of its tests: eps^(7/8).
SIGNIFICANT_REAL = np.finfo(float).eps ** 0.875


def numerically_equal(a, b, n=1, tol=SIGNIFICANT_REAL):
    """SimTK::Test::numericallyEqual(a, b, n, tol) (SimTKcommon/Testing.h): integers must be
    equal; two Rotations must differ by a turn of at most n·tol radians (the angle of the
    angle-axis form of ~a·b, isSameRotationToWithinAngle), two Transforms so in rotation
    and as arrays in translation; numbers and arrays must agree
    elementwise with |aᵢ - bᵢ| < n·max(|aᵢ|, |bᵢ|, 1)·tol (relative for large values,
    absolute below 1), arrays of different shapes never."""
    if isinstance(a, kt.Rotation):
        return abs((a.invert() @ b).convert_rotation_to_angle_axis()[0]) <= n * tol
    if isinstance(a, kt.Transform):
        return numerically_equal(a.R, b.R, n, tol) and numerically_equal(a.p, b.p, n, tol)
    if isinstance(a, (int, np.integer)) and isinstance(b, (int, np.integer)):
        return a == b
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    scale = n * np.maximum(np.maximum(np.abs(a), np.abs(b)), 1.0)
    return bool(np.all(np.abs(a - b) < scale * tol))


def _difference(a, b):
    if isinstance(a, kt.Transform):
        return f"rotation: {_difference(a.R, b.R)}; translation: {_difference(a.p, b.p)}"
    if isinstance(a, kt.Rotation):
        angle = (a.invert() @ b).convert_rotation_to_angle_axis()[0]
        return f"rotations {angle:.3g} rad apart"
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return f"shapes {a.shape} and {b.shape}"
    return f"max |a - b| = {np.max(np.abs(a - b), initial=0.0):.3g}; a = {a}, b = {b}"


def assert_eq_tol(a, b, tol):
    """SimTK_TEST_EQ_TOL(a, b, tol): numerically_equal with n = 1 and the given tol."""
    assert numerically_equal(a, b, 1, tol), f"not equal to tol {tol:g}: {_difference(a, b)}"


def assert_noteq_tol(a, b, tol):
    """SimTK_TEST_NOTEQ_TOL(a, b, tol): the negation of assert_eq_tol."""
    assert not numerically_equal(a, b, 1, tol), f"equal to tol {tol:g}: {_difference(a, b)}"


def assert_eq_size(a, b, n):
    """SimTK_TEST_EQ_SIZE(a, b, n): numerically_equal at n times SignificantReal."""
    assert numerically_equal(a, b, n), \
        f"not equal to {n} x {SIGNIFICANT_REAL:.3g}: {_difference(a, b)}"


def assert_eq(a, b):
    """SimTK_TEST_EQ(a, b): numerically_equal at SignificantReal."""
    assert_eq_size(a, b, 1)


class Random:
    """SimTK::Test's random test data (SimTKcommon/Testing.h), drawn from a seeded numpy
    generator: every number uniform in [-1, 1)."""

    def __init__(self, seed=0):
        self.rng = np.random.default_rng(seed)

    def rand_real(self) -> float:
        """Test::randReal."""
        return float(self.rng.uniform(-1.0, 1.0))

    def rand_vector(self, m: int) -> np.ndarray:
        """Test::randVector(m), and Test::randVec<m>."""
        return self.rng.uniform(-1.0, 1.0, m)

    rand_vec = rand_vector

    def rand_vec3(self) -> np.ndarray:
        """Test::randVec3."""
        return self.rand_vector(3)

    def rand_spatial_vec(self) -> np.ndarray:
        """Test::randSpatialVec: [randVec3; randVec3]."""
        return self.rand_vector(6)

    def rand_rotation(self) -> kt.Rotation:
        """Test::randRotation: a turn of (π/2)·randReal about the axis randVec3."""
        angle = (np.pi / 2) * self.rand_real()
        return kt.Rotation.about_axis(angle, self.rand_vec3())

    def rand_transform(self) -> kt.Transform:
        """Test::randTransform: Transform(randRotation, randVec3)."""
        return kt.Transform(self.rand_rotation(), self.rand_vec3())
