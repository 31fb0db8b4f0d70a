"""What the mobility force elements share: the coordinate they act on, checked against the
tree laid out at MODEL, and its q and u indices in compiled code."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.forces.elements._table import TableForce
from kinetree.jit import helper


class MobilityForce(TableForce):
    """A force element on coordinate ``which`` of one mobilizer; ``USES_Q`` if it reads
    that coordinate's q as well as its u."""

    USES_Q = False

    def _set_mobility(self, mobod, which) -> None:
        self._mobod = mobod
        self._mobods = (mobod,)
        self._body1 = mobod.get_mobilized_body_index()
        self._which = int(which)

    def _check_model(self, tree) -> None:
        b = self._body1
        for kind, n in (("u", tree.nu[b]), ("q", tree.nq[b]))[:2 if self.USES_Q else 1]:
            if not 0 <= self._which < n:
                raise InvalidArgumentError(
                    f"Force.{type(self).__name__}: the mobilizer of {self._mobod!r} has {n} "
                    f"{kind}'s; coordinate {self._which} is out of range. Pick 0..{n - 1}.")


@helper
def q_index(tree, fi):
    """Index in q of the element's coordinate."""
    return tree.q_start[fi[1]] + fi[3]


@helper
def u_index(tree, fi):
    """Index in u of the element's speed."""
    return tree.u_start[fi[1]] + fi[3]
