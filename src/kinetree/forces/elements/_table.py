"""TableForce: the Python side of a built-in force element, one row of its subsystem's
force table.

A GeneralForceSubsystem lays its built-in elements out as a table the compiled code reads
(``forces/elements/dispatch.py``): an integer row per element, ``[code, body1, body2,
which, at, state, out]`` (``FORCE_I_COLUMNS``), and the element's parameters at
``params[at:]``. The parameters live in the State (a Dynamics-stage discrete variable of
the subsystem), so a per-State setter such as ``MobilityLinearSpring.set_stiffness(state,
k)`` changes one number and backs the State up to VELOCITY, exactly as in Simbody, with no
rebuilt System.

An element with state of its own (``STATE_SIZE`` > 0: Simbody's discrete and auto-update
discrete variables of the element, such as ExponentialSpringForce's anchor point) has its
values from column ``state`` on in one auto-update discrete variable of the subsystem,
shared by all such elements, so that the compiled realization reads them all at once and
writes the values they take at the next auto-update; an element reporting what it
computed (``OUT_SIZE`` > 0) writes that from column ``out`` on in a DYNAMICS cache array
(``GeneralForceSubsystem``); an element with continuous variables of its own (``Z_SIZE``
> 0, such as LinearBushing's dissipated energy) writes their derivatives from column
``z`` on in the subsystem's first z, so that compiled runs of steps integrate them. These
columns are -1 for an element without.
"""

from __future__ import annotations

import numpy as np

from kinetree.forces.force import Force
from kinetree.system.stage import Stage

FORCE_I_COLUMNS = 8
"""code, body1, body2, which (a mobilizer's coordinate), at (first parameter), state
(first value in the elements' state, -1 if none), out (first report value, -1 if none),
z (first continuous variable, -1 if none)."""
STATE, OUT, Z = 5, 6, 7
"""The columns ``state``, ``out`` and ``z``."""


class TableForce(Force):
    """A built-in force element: its type ``CODE``, the bodies and coordinate it acts on,
    and its default parameters. ``STAGE`` is the stage its force needs (VELOCITY for
    dampers)."""

    CODE = -1
    STAGE = Stage.POSITION
    NONNEGATIVE: tuple[int, ...] = ()
    """The parameters (indices into the element's own) its setters keep >= 0, which a
    State file must keep so too (``check_parameters``)."""
    STATE_SIZE = 0
    """How many values of state of its own the element has (module docstring)."""
    OUT_SIZE = 0
    """How many report values the element writes at DYNAMICS."""
    Z_SIZE = 0
    """How many continuous variables z the element has (their derivatives written at
    DYNAMICS, zero while it is disabled)."""
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

    def _default_state(self) -> np.ndarray:
        """The initial values of the element's state (STATE_SIZE of them), taken at
        TOPOLOGY."""
        return np.zeros(self.STATE_SIZE)

    def check_state(self, values: np.ndarray) -> str | None:
        """What makes ``values`` (the element's state, as a State file or a direct change
        of the subsystem's variable holds them) a value its setters would refuse; None if
        nothing does."""
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

    def _state(self, state) -> np.ndarray:
        """This element's own state in ``state`` (read-only; STATE_SIZE values)."""
        return self._forces._element_state(state, self)

    def _set_state(self, state, first: int, values) -> None:
        """Write ``values`` into this element's state from ``first`` on (a Dynamics-stage
        change)."""
        self._forces._set_element_state(state, self, first, values)

    def _results(self, state, where: str) -> tuple[np.ndarray, np.ndarray]:
        """(next state, reports) this element computed when ``state`` was realized through
        DYNAMICS (read-only)."""
        return self._forces._element_results(state, self, where)

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        """Add this element's forces (body spatial forces about each origin in G, and one
        generalized force per u) into the arrays given."""
        F, f, _ = self._forces._evaluate(state, self, self.STAGE)
        body_forces += F
        mobility_forces += f

    def calc_potential_energy(self, state) -> float:
        """This element's potential energy (J) in ``state``."""
        return self._forces._evaluate(state, self, Stage.POSITION)[2]
