"""The global q and u index of one coordinate of a MobilizedBody, shared by the mobility
force elements."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.system.stage import Stage


def mobility_index(mobod, state, which: int, kind: str, where: str) -> int:
    """Index in the matter subsystem's q (kind 'q') or u (kind 'u') of coordinate
    ``which`` of ``mobod``."""
    data = mobod.get_matter_subsystem()._tree_data(state, Stage.MODEL, where)
    b = mobod.get_mobilized_body_index()
    start, n = ((data.tree.q_start[b], data.tree.nq[b]) if kind == "q"
                else (data.tree.u_start[b], data.tree.nu[b]))
    if not 0 <= which < n:
        raise InvalidArgumentError(
            f"{where}: the mobilizer of {mobod!r} has {n} {kind}'s; {which} is out of range.")
    return int(start + which)
