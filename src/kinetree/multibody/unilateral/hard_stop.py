"""HardStopUpper and HardStopLower: a joint coordinate q kept at or below an upper limit (at
or above a lower one) by impacts with restitution (Simbody's HardStopUpper and
HardStopLower). The coordinate's speed must be its q̇ (a Pin's angle, a Slider's
translation)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError
from kinetree.multibody.unilateral.unilateral_contact import UnilateralContact


class _HardStop(UnilateralContact):
    SIGN = 1.0

    def __init__(self, mobod, which_q: int, limit: float, min_cor: float):
        super().__init__(min_cor)
        self.mobod = mobod
        self.which_q = int(which_q)
        self.limit = float(limit)
        if not np.isfinite(self.limit):
            raise InvalidArgumentError(f"{type(self).__name__}: the limit must be finite, "
                                       f"got {limit!r}.")

    def _index(self, state) -> int:
        nq, nu = self.mobod.get_num_q(state), self.mobod.get_num_u(state)
        if nq != nu or not 0 <= self.which_q < nq:
            raise InvalidArgumentError(
                f"{type(self).__name__}: coordinate {self.which_q} of "
                f"{type(self.mobod).__name__} {self.mobod.get_mobilized_body_index()} has no "
                f"speed that is its rate (it has {nq} q and {nu} u); stop a Pin's or a "
                f"Slider's coordinate.")
        return self.mobod.get_first_u_index(state) + self.which_q

    def _separation(self, state, poses) -> float:
        q = self.mobod.get_one_q(state, self.which_q)
        return self.SIGN * (q - self.limit)

    def _terms(self, state, poses) -> list:
        return []                          # a row of the mobilities themselves (_rows)

    def _rows(self, state, matter, poses) -> np.ndarray:
        rows = np.zeros((1, matter.get_u(state).size))
        rows[0, self._index(state)] = self.SIGN
        return rows


class HardStopUpper(_HardStop):
    """q ≤ ``upper``: ``HardStopUpper(mobod, which_q, upper, min_cor)``."""

    SIGN = -1.0


class HardStopLower(_HardStop):
    """q ≥ ``lower``: ``HardStopLower(mobod, which_q, lower, min_cor)``."""

    SIGN = 1.0


__all__ = ["HardStopLower", "HardStopUpper"]
