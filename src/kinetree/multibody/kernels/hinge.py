"""The one place the tree sweeps meet the mobilizers: a switch on the mobilizer type code
for each function every mobilizer module (mobilizers/<type>.py) defines. The first
argument is the model's mobilizer Kinds (``tree.kinds``), so a model compiles the
branches of the mobilizer types it has (``engine/kinds.py``). For the custom type (Custom,
and FunctionBased with a user Function) the Python pre-pass has already written X_FM, H_F
and (dH/dt) u; see custom_hinges.py. A FunctionBased of built-in Functions is the compiled
function_based type, its functions tables in its parameter row."""

from kinetree.engine.kinds import switch

x_fm = switch("mobilizers", "x_fm")
"""x_fm(kinds, code, q, prm, R_FM, p_FM): the transform X_FM of a mobilizer."""

h_fm = switch("mobilizers", "h_fm")
"""h_fm(kinds, code, q, prm, H): the hinge matrix H_FM (6 x nu, in F) of a mobilizer."""

hdot_u = switch("mobilizers", "hdot_u")
"""hdot_u(kinds, code, q, u, prm, out): (dH_FM/dt) u (in F) of a mobilizer."""

n_mult = switch("mobilizers", "n_mult")
"""n_mult(kinds, code, q, v, prm, out): N(q) v of a mobilizer (q̇ = N u)."""

n_inv_mult = switch("mobilizers", "n_inv_mult")
"""n_inv_mult(kinds, code, q, v, prm, out): N(q)⁻¹ v of a mobilizer."""

ndot_u = switch("mobilizers", "ndot_u")
"""ndot_u(kinds, code, q, u, prm, out): (dN/dt) u of a mobilizer."""
