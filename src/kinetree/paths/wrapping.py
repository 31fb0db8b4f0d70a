"""The one place compiled code meets the wrap surfaces: a switch on the wrap type code
(``kinetree.registry.WRAPS``) forwarding to the ``wrap_line`` of that kind's module
(paths/wrap_<kind>.py), each compiled by itself and called through its address
(``engine/kinds.py``)."""

from numba.core import types

from kinetree.engine.kinds import switch

NO_WRAP, INSIDE_RADIUS, WRAPPED, MANDATORY_WRAP = 0, 1, 2, 3
"""OpenSim's WrapAction, what ``wrap_line`` returns: the segment misses the surface, an
end lies inside it, the segment wraps over it, or it passes through it (and must)."""

_ROW = types.Array(types.int64, 1, "C", readonly=True)
_READ = types.Array(types.float64, 1, "C", readonly=True)
_WRITE = types.Array(types.float64, 1, "C")


def _wrap_line_signature():
    return types.int64(_ROW, _READ, _READ, _READ, _WRITE, _WRITE)


wrap_line = switch("wraps", "wrap_line", _wrap_line_signature, default=NO_WRAP)
"""wrap_line(kinds, code, wi, wf, p1, p2, previous, result) -> WrapAction: the shortest
way over the wrap surface of type ``code`` (its int row ``wi`` and float parameters
``wf``) from p1 to p2, the segment's ends in the surface frame W (m). ``previous`` is the
PathWrap's kept state (OpenSim's previous WrapResult), read and updated; ``result[0:3]``
and ``result[3:6]`` receive the tangent points r1 and r2 (in W, m) and ``result[6]`` the
length over the surface (m). NO_WRAP for a code not in ``kinds``."""
