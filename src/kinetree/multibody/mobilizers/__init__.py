"""Built-in mobilizers, one module each (Simbody's ``RigidBodyNodeSpec_<Type>``).

A mobilizer's whole job is local (DESIGN.md §3): from its own q (and u) it gives

- ``x_fm(q, prm, R_FM, p_FM)``: the transform X_FM of the outboard frame M in the inboard
  frame F, written into ``R_FM`` (3x3) and ``p_FM`` (3,);
- ``h_fm(q, prm, H)``: the hinge matrix, written into the first ``nu`` columns of ``H``
  (6 x 6): V_FM = H u, with V_FM = [w_FM; v_FM] the angular velocity of M in F and the
  velocity of M's origin in F, both expressed in F;
- ``hdot_u(q, u, prm, out)``: (dH/dt) u in F, so that A_FM = H u̇ + (dH/dt) u;
- ``n_mult(q, v, prm, out)``: N(q) v, so that q̇ = N u (N = identity when q̇ = u);
- ``n_inv_mult(q, v, prm, out)``: N⁻¹ v (for quaternions the pseudo-inverse N^T/... of
  the unit-norm constraint's tangent map), so that u = N⁻¹ q̇;
- ``ndot_u(q, u, prm, out)``: (dN/dt) u, so that q̈ = N u̇ + (dN/dt) u.

All are ``kinetree.jit.helper`` functions over float64 arrays (compiled into the
realization's code, and callable from Python too); they allocate nothing and validate
nothing. ``prm`` holds the mobilizer's constant parameters (a screw's pitch,
an ellipsoid's radii), at least ``PARAM_SIZE`` long (a compiled FunctionBased's row holds its
function tables and is longer). The Python classes that users construct
(``MobilizedBody.Pin`` ...) live in the same modules and carry the type code, nq, nu and
default q.
"""
