"""Motion of bodies relative to an ancestor body A, expressed in A: what a constraint's
error methods see (constraint_solver.py).

For a body B and the ancestor A, with r = p_GB - p_GA and everything in G before the final
re-expression by R_AG = R_GAᵀ:
  V_AB = [w_B - w_A;  v_B - v_A - w_A × r],
  A_AB = [α_B - α_A - w_A × w_AB;  a_B - a_A - α_A × r - w_A × (w_A × r) - 2 w_A × v_AB],
the second being the derivative of the first taken in A.
"""

from kinetree.multibody.kernels.small import (
    cross3,
    rotate3_transpose,
    scale3,
    store3,
    sub3,
    vec3,
)
from kinetree.multibody.tree_model import kernel


@kernel
def calc_relative_velocities(R_GB, p_GB, V_GB, a, bodies, out):
    """out[k] = V_AB of body bodies[k] (k x 6, in A) for Ground velocities V_GB."""
    R_GA = R_GB[a]
    w_A, v_A, p_A = vec3(V_GB[a, :3]), vec3(V_GB[a, 3:]), vec3(p_GB[a])
    for k in range(bodies.shape[0]):
        b = bodies[k]
        r = sub3(vec3(p_GB[b]), p_A)
        w = sub3(vec3(V_GB[b, :3]), w_A)
        v = sub3(sub3(vec3(V_GB[b, 3:]), v_A), cross3(w_A, r))
        store3(rotate3_transpose(R_GA, w), out[k, :3])
        store3(rotate3_transpose(R_GA, v), out[k, 3:])


@kernel
def calc_relative_accelerations(R_GB, p_GB, V_GB, A_GB, a, bodies, out):
    """out[k] = A_AB of body bodies[k] (k x 6, in A) for Ground accelerations A_GB, the
    velocities being V_GB."""
    R_GA = R_GB[a]
    w_A, v_A, p_A = vec3(V_GB[a, :3]), vec3(V_GB[a, 3:]), vec3(p_GB[a])
    al_A, a_A = vec3(A_GB[a, :3]), vec3(A_GB[a, 3:])
    for k in range(bodies.shape[0]):
        b = bodies[k]
        r = sub3(vec3(p_GB[b]), p_A)
        w_rel = sub3(vec3(V_GB[b, :3]), w_A)
        v_rel = sub3(sub3(vec3(V_GB[b, 3:]), v_A), cross3(w_A, r))
        alpha = sub3(sub3(vec3(A_GB[b, :3]), al_A), cross3(w_A, w_rel))
        acc = sub3(sub3(vec3(A_GB[b, 3:]), a_A), cross3(al_A, r))
        acc = sub3(acc, cross3(w_A, cross3(w_A, r)))
        acc = sub3(acc, scale3(2.0, cross3(w_A, v_rel)))
        store3(rotate3_transpose(R_GA, alpha), out[k, :3])
        store3(rotate3_transpose(R_GA, acc), out[k, 3:])
