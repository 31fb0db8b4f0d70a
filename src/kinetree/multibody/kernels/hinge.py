"""The one place the tree sweeps meet the mobilizers: a switch on the mobilizer type code
for each function every mobilizer module (mobilizers/<type>.py) defines. The first
argument is the model's mobilizer Kinds (``tree.kinds``): the inline kinds have branches of
their own, any other is called through the address of its function compiled alone
(``engine/kinds.py``), for the signature declared here. For the custom type (Custom, and
FunctionBased with a user Function) the Python pre-pass has already written X_FM, H_F and
(dH/dt) u; see custom_hinges.py. A FunctionBased of built-in Functions is the compiled
function_based type, its functions tables in its parameter row."""

from numba.core import types

from kinetree.engine.kinds import switch

_IN = types.Array(types.float64, 1, "C", readonly=True)
_OUT = types.Array(types.float64, 1, "C")


def _vector_function():
    """(q, v, prm, out): every argument a vector, the inputs read only."""
    return types.none(_IN, _IN, _IN, _OUT)


x_fm = switch("mobilizers", "x_fm", lambda: types.none(
    _IN, _IN, types.Array(types.float64, 2, "C"), _OUT))
"""x_fm(kinds, code, q, prm, R_FM, p_FM): the transform X_FM of a mobilizer."""

h_fm = switch("mobilizers", "h_fm", lambda: types.none(
    _IN, _IN, types.Array(types.float64, 2, "F")))
"""h_fm(kinds, code, q, prm, H): the hinge matrix H_FM (6 x nu, in F) of a mobilizer."""

hdot_u = switch("mobilizers", "hdot_u", _vector_function)
"""hdot_u(kinds, code, q, u, prm, out): (dH_FM/dt) u (in F) of a mobilizer."""

n_mult = switch("mobilizers", "n_mult", _vector_function)
"""n_mult(kinds, code, q, v, prm, out): N(q) v of a mobilizer (q̇ = N u)."""

n_inv_mult = switch("mobilizers", "n_inv_mult", _vector_function)
"""n_inv_mult(kinds, code, q, v, prm, out): N(q)⁻¹ v of a mobilizer."""

ndot_u = switch("mobilizers", "ndot_u", _vector_function)
"""ndot_u(kinds, code, q, u, prm, out): (dN/dt) u of a mobilizer."""
