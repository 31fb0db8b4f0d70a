"""The compiled geodesics against analytic results and finite differences.

- an ellipsoid with three equal radii and a torus-free check: the integrated geodesic over
  a sphere-shaped ellipsoid ends where the great circle does, with the same Jacobi
  scalars (cos s/R, R sin s/R);
- for every surface kind, the variations of the end frames with the four natural
  corrections (which the solver's Jacobians are built from, with the curvatures,
  torsions and Jacobi scalars) equal central finite differences of corrected geodesics.
"""

import math

import numpy as np
import pytest

from kinetree.cables import solver, surfaces

ACCURACY = 1e-12


def shoot(kind, prm, point, tangent, length):
    row = np.zeros(surfaces.NG)
    surfaces.shoot_geodesic(kind, np.asarray(prm, float), tuple(point), tuple(tangent),
                            length, ACCURACY, row)
    return row


def test_integrated_geodesic_matches_great_circle():
    r, length = 1.3, 2.0
    analytic = shoot(surfaces.SPHERE, [r, 0, 0], [0.3, r, 0.2], [1, 0, 0.4], length)
    numeric = shoot(surfaces.ELLIPSOID, [r, r, r], [0.3, r, 0.2], [1, 0, 0.4], length)
    # the sphere's shot starts at the point's projection along its radius, the
    # ellipsoid's along the gradient: for a sphere the same point
    assert np.allclose(numeric[:surfaces.JACOBI], analytic[:surfaces.JACOBI], atol=1e-9)
    s = length / r
    expected = [math.cos(s), -math.sin(s) / r, r * math.sin(s), math.cos(s)]
    assert np.allclose(numeric[surfaces.JACOBI:surfaces.JACOBI + 4], expected, atol=1e-9)
    assert np.allclose(analytic[surfaces.JACOBI:surfaces.JACOBI + 4], expected, atol=1e-14)


CASES = [
    (surfaces.SPHERE, [1.0, 0, 0], [0.2, 1.0, 0.1], [1, 0.1, 0.3]),
    (surfaces.CYLINDER, [1.0, 0, 0], [0.0, -1.0, 0.3], [1, 0.0, 0.5]),
    (surfaces.ELLIPSOID, [1.5, 2.6, 1.0], [0.3, 0.2, 1.0], [1, 0.4, 0]),
    (surfaces.TORUS, [2.0, 0.5, 0], [0.0, -1.6, 0.3], [1, 0.0, 0.2]),
]


@pytest.mark.parametrize("kind, prm, point, tangent", CASES)
def test_frame_variations_match_finite_differences(kind, prm, point, tangent):
    prm = np.asarray(prm, float)
    base = shoot(kind, prm, point, tangent, 1.2)
    X = np.hstack((np.eye(3), np.zeros((3, 1))))
    V = np.zeros((4, 3, 4))
    solver._variations(X, base, V[0], V[1], V[2], V[3])
    h = 1e-6
    for c in range(4):
        rows = []
        for sign in (1.0, -1.0):
            geo = base.copy()[None, :]
            dq = np.zeros(4)
            dq[c] = sign * h
            solver._correct(np.array([kind]), prm[None, :], geo, 0, *dq, ACCURACY)
            rows.append(geo[0])
        plus, minus = rows
        for at, v, w in ((surfaces.P_POINT, V[0], V[1]), (surfaces.Q_POINT, V[2], V[3])):
            dx = (plus[at:at + 3] - minus[at:at + 3]) / (2 * h)
            assert np.allclose(dx, v[:, c], atol=2e-6), (kind, c, at, dx, v[:, c])
            for axis in (3, 6, 9):          # tangent, normal, binormal turn with w
                d_axis = (plus[at + axis:at + axis + 3] - minus[at + axis:at + axis + 3]) \
                    / (2 * h)
                expected = np.cross(w[:, c], base[at + axis:at + axis + 3])
                assert np.allclose(d_axis, expected, atol=2e-6), (kind, c, at, axis)
