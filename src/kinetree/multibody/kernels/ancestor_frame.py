"""Motion of bodies relative to an ancestor body A, expressed in A: what a constraint's
error methods see (constraint_solver.py).

For a body B and the ancestor A, with r = p_GB - p_GA and everything in G before the final
re-expression by R_AG = R_GAᵀ:
  V_AB = [w_B - w_A;  v_B - v_A - w_A × r],
  A_AB = [α_B - α_A - w_A × w_AB;  a_B - a_A - α_A × r - w_A × (w_A × r) - 2 w_A × v_AB],
the second being the derivative of the first taken in A.
"""

from kinetree.jit import helper
from kinetree.multibody.kernels.small import (
    cross3,
    rotate3_transpose,
    scale3,
    store3,
    sub3,
    vec3,
)
from kinetree.multibody.tree_model import kernel


@helper
def relative_pose(R_GB, p_GB, a, b, R_AB, p_AB):
    """R_AB (3 x 3) and p_AB (m, in A) of body b relative to body a."""
    R_GA = R_GB[a]
    for i in range(3):
        for j in range(3):
            R_AB[i, j] = (R_GA[0, i] * R_GB[b, 0, j] + R_GA[1, i] * R_GB[b, 1, j]
                          + R_GA[2, i] * R_GB[b, 2, j])
    store3(rotate3_transpose(R_GA, sub3(vec3(p_GB[b]), vec3(p_GB[a]))), p_AB)


@helper
def relative_velocity(R_GB, p_GB, V_GB, a, b, out):
    """out = V_AB (in A) of body b relative to body a, for Ground velocities V_GB."""
    w_A, v_A = vec3(V_GB[a, :3]), vec3(V_GB[a, 3:])
    r = sub3(vec3(p_GB[b]), vec3(p_GB[a]))
    w = sub3(vec3(V_GB[b, :3]), w_A)
    v = sub3(sub3(vec3(V_GB[b, 3:]), v_A), cross3(w_A, r))
    store3(rotate3_transpose(R_GB[a], w), out[:3])
    store3(rotate3_transpose(R_GB[a], v), out[3:])


@helper
def relative_acceleration(R_GB, p_GB, V_GB, A_GB, a, b, out):
    """out = A_AB (in A) of body b relative to body a, for Ground accelerations A_GB,
    the velocities being V_GB."""
    w_A, v_A = vec3(V_GB[a, :3]), vec3(V_GB[a, 3:])
    al_A, a_A = vec3(A_GB[a, :3]), vec3(A_GB[a, 3:])
    r = sub3(vec3(p_GB[b]), vec3(p_GB[a]))
    w_rel = sub3(vec3(V_GB[b, :3]), w_A)
    v_rel = sub3(sub3(vec3(V_GB[b, 3:]), v_A), cross3(w_A, r))
    alpha = sub3(sub3(vec3(A_GB[b, :3]), al_A), cross3(w_A, w_rel))
    acc = sub3(sub3(vec3(A_GB[b, 3:]), a_A), cross3(al_A, r))
    acc = sub3(acc, cross3(w_A, cross3(w_A, r)))
    acc = sub3(acc, scale3(2.0, cross3(w_A, v_rel)))
    store3(rotate3_transpose(R_GB[a], alpha), out[:3])
    store3(rotate3_transpose(R_GB[a], acc), out[3:])


@kernel
def calc_relative_velocities(R_GB, p_GB, V_GB, a, bodies, out):
    """out[k] = V_AB of body bodies[k] (k x 6, in A) for Ground velocities V_GB."""
    for k in range(bodies.shape[0]):
        relative_velocity(R_GB, p_GB, V_GB, a, bodies[k], out[k])


@kernel
def calc_relative_accelerations(R_GB, p_GB, V_GB, A_GB, a, bodies, out):
    """out[k] = A_AB of body bodies[k] (k x 6, in A) for Ground accelerations A_GB, the
    velocities being V_GB."""
    for k in range(bodies.shape[0]):
        relative_acceleration(R_GB, p_GB, V_GB, A_GB, a, bodies[k], out[k])
