"""Compiled kinematics of points fixed on a constraint's bodies, in its ancestor frame A:
what the built-in constraints' functions share.

Body j is the constrained body in slot j of the arrays a constraint's functions get:
R_AB[j] and p_AB[j] its pose in A, V_AB[j] = [w; v] and A_AB[j] = [α; a] its velocity and
acceleration in A (derivatives taken in A). A station s is given in its body's frame (m);
its offset r = R_AB s from the body origin is in A, and so is everything returned.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.small import add3, cross3, rotate3, vec3


@helper
def offset(R_AB, j, s):
    """r = R_AB s (m, in A): station s of body j from the body origin."""
    return rotate3(R_AB[j], s)


@helper
def location(p_AB, j, r):
    """p_AS (m, in A) of the point at offset r from body j's origin."""
    return add3(vec3(p_AB[j]), r)


@helper
def velocity(V_AB, j, r):
    """v_AS (m/s, in A) of body j's material point at offset r: v + w × r."""
    return add3(vec3(V_AB[j, 3:]), cross3(vec3(V_AB[j, :3]), r))


@helper
def acceleration(V_AB, A_AB, j, r):
    """a_AS (m/s², in A) of body j's material point at offset r: a + α × r + w × (w × r)."""
    w = vec3(V_AB[j, :3])
    return add3(add3(vec3(A_AB[j, 3:]), cross3(vec3(A_AB[j, :3]), r)), cross3(w, cross3(w, r)))


@helper
def add_force(F_A, j, r, f):
    """Apply f (N, in A) to body j at offset r from its origin: [r × f; f]."""
    m = cross3(r, f)
    for i in range(3):
        F_A[j, i] += m[i]
        F_A[j, 3 + i] += f[i]


@helper
def add_torque(F_A, j, t):
    """Apply the torque t (N m, in A) to body j."""
    for i in range(3):
        F_A[j, i] += t[i]
