"""TableForce: the Python side of a built-in force element, one row of its subsystem's
force table.

A GeneralForceSubsystem lays its built-in elements out as a table the compiled code reads
(``forces/elements/dispatch.py``): an integer row per element, ``[code, body1, body2,
which, at]`` (``FORCE_I_COLUMNS``), and the element's parameters at ``params[at:]``. The
parameters live in the State (a Dynamics-stage discrete variable of the subsystem), so a
per-State setter such as ``MobilityLinearSpring.set_stiffness(state, k)`` changes one
number and backs the State up to VELOCITY, exactly as in Simbody, with no rebuilt System.
"""

from __future__ import annotations

import numpy as np

from kinetree.forces.force import Force
from kinetree.system.stage import Stage

FORCE_I_COLUMNS = 5
"""code, body1, body2, which (a mobilizer's coordinate), at (first parameter)."""


class TableForce(Force):
    """A built-in force element: its type ``CODE``, the bodies and coordinate it acts on,
    and its default parameters. ``STAGE`` is the stage its force needs (VELOCITY for
    dampers)."""

    CODE = -1
    STAGE = Stage.POSITION
    NONNEGATIVE: tuple[int, ...] = ()
    """The parameters (indices into the element's own) its setters keep >= 0, which a
    State file must keep so too (``check_parameters``)."""
    _body1 = _body2 = _which = 0

    def __init__(self, forces, defaults):
        self._defaults = np.asarray(defaults, dtype=float).ravel()
        super().__init__(forces)

    def check_parameters(self, params: np.ndarray) -> str | None:
        """What makes ``params`` (this element's parameters, as a State file or a direct
        change of the subsystem's variable holds them) a value its setters would refuse;
        None if nothing does. Here: the NONNEGATIVE ones must be >= 0; an element whose
        setters keep other ranges adds them."""
        for i in self.NONNEGATIVE:
            if not params[i] >= 0.0:
                return f"parameter {i} is {params[i]!r}; its setters keep it >= 0"
        return None

    def _row(self) -> tuple[int, int, int, int]:
        """(code, body1, body2, which) of this element's table row."""
        return self.CODE, self._body1, self._body2, self._which

    def _lay_out(self, matter) -> None:
        """Fix ``_defaults`` at TOPOLOGY, for an element whose parameters grow with the
        tree (one per body, one per u) and so can only be laid out once the bodies are
        all there; the others fixed theirs at construction."""

    def _check_model(self, tree) -> None:
        """Raise if the element does not fit the tree laid out at MODEL (a coordinate out
        of range); most elements always fit."""

    def _params(self, state) -> np.ndarray:
        """This element's parameters in ``state`` (read-only)."""
        return self._forces._element_params(state, self)

    def _set_params(self, state, first: int, values, stage: Stage = Stage.DYNAMICS) -> None:
        """Write ``values`` into this element's parameters from ``first`` on, backing the
        State up below ``stage``."""
        self._forces._set_element_params(state, self, first, values, stage)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        """Add this element's forces (body spatial forces about each origin in G, and one
        generalized force per u) into the arrays given."""
        F, f, _ = self._forces._evaluate(state, self, self.STAGE)
        body_forces += F
        mobility_forces += f

    def calc_potential_energy(self, state) -> float:
        """This element's potential energy (J) in ``state``."""
        return self._forces._evaluate(state, self, Stage.POSITION)[2]
