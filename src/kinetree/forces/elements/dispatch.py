"""The one place compiled code meets the force elements: a switch on the force element
type code forwarding to the ``calc`` of that type's module (forces/elements/<type>.py),
which adds the element's forces into the body and mobility force arrays and returns its
potential energy (J). The switch has branches for the kinds of the table only
(``engine/kinds.py``)."""

import numpy as np

from kinetree.engine.kinds import switch
from kinetree.jit import helper
from kinetree.multibody.tree_model import kernel, unpack_cache, unpack_tree

calc = switch("forces", "calc", default=np.nan)
"""calc(kinds, code, fi, ff, tree, cache, q, u, body_forces, mobility_forces): the forces
of one element of type ``code``, row ``fi`` of the table with parameters ``ff``; its
potential energy, or NaN for a code not in ``kinds``."""


@helper
def force_sweep(kinds, rows, force_i, force_f, tree, cache, q, u, body_forces,
                mobility_forces, pe):
    """Add the forces of the table rows ``rows`` (the enabled elements, of the Kinds
    ``kinds``) and store each one's potential energy in ``pe``."""
    for r in rows:
        fi = force_i[r]
        pe[r] = calc(kinds, fi[0], fi, force_f[fi[4]:], tree, cache, q, u, body_forces,
                     mobility_forces)


@kernel
def calc_force_elements(force_kinds, rows, force_i, force_f, tree_i, tree_f, kinds, buf,
                        status, q, u, body_forces, mobility_forces, pe):
    """``force_sweep`` on the flat model and cache buffers."""
    force_sweep(force_kinds, rows, force_i, force_f, unpack_tree(tree_i, tree_f, kinds),
                unpack_cache(buf, status), q, u, body_forces, mobility_forces, pe)
