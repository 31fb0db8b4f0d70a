"""Fixed-size 3-vector and 3x3 helpers for the tree kernels, and a vector copy.

Two kinds, both inlined (``forceinline``) into the loops that call them: those that write into
caller-owned slots (rows of per-body cache arrays), and those on 3-tuples (``vec3``,
``cross3``, ...), which stay in registers: a chain of vector algebra written with them
compiles as if spelled out in scalars. Neither allocates.
"""

from kinetree.jit import helper


@helper
def copy_vector(source, target):
    """target[:] = source, for 1-d arrays of one length. numpy's slice assignment checks
    the two for overlap and may allocate a copy, which code compiled without numba's
    reference counting cannot do; its shape check's error message alone would compile
    numba's string formatting."""
    for i in range(target.shape[0]):
        target[i] = source[i]


@helper
def mat_mul(A, B, out):
    """out = A B for 3x3 A, B (out must not alias either)."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]


@helper
def vec3(a):
    """The first three entries of a as a 3-tuple."""
    return (a[0], a[1], a[2])


@helper
def column3(R, i):
    """Column i of the 3x3 array R as a 3-tuple (a frame's axis i)."""
    return (R[0, i], R[1, i], R[2, i])


@helper
def store3(v, out):
    """out[:3] = the 3-tuple v."""
    out[0], out[1], out[2] = v[0], v[1], v[2]


@helper
def add3(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@helper
def sub3(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@helper
def scale3(s, a):
    return (s * a[0], s * a[1], s * a[2])


@helper
def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@helper
def cross3(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@helper
def tangent_basis(n):
    """Two unit 3-tuples t1, t2 with (t1, t2, n) a right-handed orthonormal frame, for
    the unit n: t1 = e × n normalized, e the axis n is least along."""
    ax = 0
    if abs(n[1]) < abs(n[ax]):
        ax = 1
    if abs(n[2]) < abs(n[ax]):
        ax = 2
    e = (1.0 if ax == 0 else 0.0, 1.0 if ax == 1 else 0.0, 1.0 if ax == 2 else 0.0)
    t1 = cross3(e, n)
    t1 = scale3(1.0 / (dot3(t1, t1) ** 0.5), t1)
    return t1, cross3(n, t1)


@helper
def rotate3(R, v):
    """R v for a 3x3 array R and a 3-tuple v."""
    return (R[0, 0] * v[0] + R[0, 1] * v[1] + R[0, 2] * v[2],
            R[1, 0] * v[0] + R[1, 1] * v[1] + R[1, 2] * v[2],
            R[2, 0] * v[0] + R[2, 1] * v[1] + R[2, 2] * v[2])


@helper
def rotate3_transpose(R, v):
    """Rᵀ v for a 3x3 array R and a 3-tuple v: re-expression in the rotated frame."""
    return (R[0, 0] * v[0] + R[1, 0] * v[1] + R[2, 0] * v[2],
            R[0, 1] * v[0] + R[1, 1] * v[1] + R[2, 1] * v[2],
            R[0, 2] * v[0] + R[1, 2] * v[1] + R[2, 2] * v[2])


@helper
def spatial_inertia(m, c, inertia, out):
    """out = [[I, m[c]x], [-m[c]x, m·1]]: the 6x6 spatial inertia about a body's origin of
    mass m with mass center c (from the origin) and ``inertia`` about the origin."""
    for i in range(3):
        for j in range(3):
            out[i, j] = inertia[i, j]
            out[3 + i, 3 + j] = m if i == j else 0.0
    mc0, mc1, mc2 = m * c[0], m * c[1], m * c[2]
    out[0, 3], out[0, 4], out[0, 5] = 0.0, -mc2, mc1
    out[1, 3], out[1, 4], out[1, 5] = mc2, 0.0, -mc0
    out[2, 3], out[2, 4], out[2, 5] = -mc1, mc0, 0.0
    for i in range(3):
        for j in range(3):
            out[3 + i, j] = out[j, 3 + i]


@helper
def shift_force_to_parent_add(F, p, out):
    """out += phi(p) F: a spatial force about the body origin moved to the parent's origin,
    p being the vector from the parent's origin to the body's (moment gains p × f)."""
    out[0] += F[0] + p[1] * F[5] - p[2] * F[4]
    out[1] += F[1] + p[2] * F[3] - p[0] * F[5]
    out[2] += F[2] + p[0] * F[4] - p[1] * F[3]
    out[3] += F[3]
    out[4] += F[4]
    out[5] += F[5]


@helper
def shift_acceleration_from_parent(A, p, out):
    """out = phi(p)ᵀ A: the parent's spatial acceleration (or velocity) carried rigidly to
    the point p away: [α; a + α × p]."""
    out[0], out[1], out[2] = A[0], A[1], A[2]
    out[3] = A[3] + A[1] * p[2] - A[2] * p[1]
    out[4] = A[4] + A[2] * p[0] - A[0] * p[2]
    out[5] = A[5] + A[0] * p[1] - A[1] * p[0]


@helper
def cross_component(a, b, k):
    """(a × b)[k]."""
    k1, k2 = (k + 1) % 3, (k + 2) % 3
    return a[k1] * b[k2] - a[k2] * b[k1]


@helper
def shift_inertia_to_parent_add(Pa, p, T, out):
    """out += phi(p) Pa phi(p)ᵀ for a symmetric 6x6 Pa = [[A, B], [Bᵀ, C]]: an inertia
    about a body's origin moved to its parent's origin, p being the vector between them.
    With [p]x the cross-product matrix, B' = B + [p]x C and A' = A + [p]x Bᵀ - B' [p]x,
    so A'[i, j] = A[i, j] + (p × B[j, :])[i] - (B'[i, :] × p)[j]; C is unchanged. B' is
    kept in T[:3, :3]."""
    for k in range(3):
        for i in range(3):
            T[i, k] = Pa[i, 3 + k] + cross_component(p, Pa[3:, 3 + k], i)
    for i in range(3):
        for j in range(3):
            out[i, 3 + j] += T[i, j]
            out[3 + j, i] += T[i, j]
            out[3 + i, 3 + j] += Pa[3 + i, 3 + j]
    for i in range(3):
        for j in range(i + 1):
            s = (Pa[i, j] + cross_component(p, Pa[j, 3:], i)
                 - cross_component(T[i, :3], p, j))
            out[i, j] += s
            if j != i:
                out[j, i] += s


@helper
def spatial_inertia_times(m, c, inertia, A, out):
    """out = M A for the spatial inertia of (m, c, I) without forming M:
    [I α + m c × a; m (a + α × c)], I being ``inertia``."""
    for i in range(3):
        out[i] = inertia[i, 0] * A[0] + inertia[i, 1] * A[1] + inertia[i, 2] * A[2]
    a0, a1, a2 = A[3], A[4], A[5]
    out[0] += m * (c[1] * a2 - c[2] * a1)
    out[1] += m * (c[2] * a0 - c[0] * a2)
    out[2] += m * (c[0] * a1 - c[1] * a0)
    out[3] = m * (a0 + A[1] * c[2] - A[2] * c[1])
    out[4] = m * (a1 + A[2] * c[0] - A[0] * c[2])
    out[5] = m * (a2 + A[0] * c[1] - A[1] * c[0])


PIVOT_TOLERANCE = 1e-14
"""The smallest pivot, relative to its own diagonal entry, of a matrix taken as positive
definite: below it the matrix is singular."""


@helper
def invert_spd_in_place(A, n):
    """Invert the leading n x n block (n <= 6) of a symmetric positive definite A in
    place (Gauss-Jordan; SPD needs no pivoting). Returns the smallest pivot relative to
    its own diagonal entry (1 for a diagonal A): the pivots of the matrix scaled to a unit
    diagonal, so rotational (kg m²) and translational (kg) entries of very different sizes
    do not hide or fake a singular direction. If one is not above PIVOT_TOLERANCE the
    inversion stops there and returns it: A is singular."""
    last = n - 1
    diagonal = (A[0, 0], A[min(1, last), min(1, last)], A[min(2, last), min(2, last)],
                A[min(3, last), min(3, last)], A[min(4, last), min(4, last)],
                A[min(5, last), min(5, last)])
    return invert_spd_scaled(A, n, diagonal)


@helper
def invert_spd_scaled(A, n, diagonal):
    """``invert_spd_in_place`` with A's diagonal entries given (an array or a tuple,
    at least n), for any n."""
    smallest = 1.0
    for k in range(n):
        piv = A[k, k]
        relative = piv / diagonal[k] if diagonal[k] > 0.0 else 0.0
        if not relative > PIVOT_TOLERANCE:
            return relative if relative == relative else 0.0      # NaN: singular too
        smallest = min(smallest, relative)
        A[k, k] = 1.0
        for j in range(n):
            A[k, j] /= piv
        for i in range(n):
            if i != k:
                f = A[i, k]
                A[i, k] = 0.0
                for j in range(n):
                    A[i, j] -= f * A[k, j]
    return smallest
