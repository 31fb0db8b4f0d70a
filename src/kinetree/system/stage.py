"""The computation stages of a State, as Simbody's.

A State is realized stage by stage; each cached value belongs to one stage and may depend
only on state variables of that stage or earlier. Stages are an ``IntEnum`` so they compare
and step like Simbody's ``Stage``.
"""

from __future__ import annotations

from enum import IntEnum

from kinetree.errors import InvalidArgumentError


class Stage(IntEnum):
    """Simbody's ten stages, in realization order, plus INFINITY for lazy cache entries.

    EMPTY: a new State, not yet tied to a System. TOPOLOGY: sized for a System; depends only
    on the System itself. MODEL: modeling choices (quaternions or Euler angles) fixed, so
    the set of state variables is known. INSTANCE: physical parameters and which elements
    are enabled. TIME, POSITION, VELOCITY, DYNAMICS, ACCELERATION: t, then q, u, forces and
    derivatives. REPORT: values needed only for output.
    """

    EMPTY = 0
    TOPOLOGY = 1
    MODEL = 2
    INSTANCE = 3
    TIME = 4
    POSITION = 5
    VELOCITY = 6
    DYNAMICS = 7
    ACCELERATION = 8
    REPORT = 9
    INFINITY = 10

    def next(self) -> Stage:
        """The stage after this one (INFINITY stays INFINITY)."""
        return Stage(min(self + 1, Stage.INFINITY))

    def prev(self) -> Stage:
        """The stage before this one (EMPTY stays EMPTY)."""
        return Stage(max(self - 1, Stage.EMPTY))

    def get_name(self) -> str:
        """Simbody's spelling of the stage name (``Position``, ``Acceleration``)."""
        return self.name.capitalize()

    @staticmethod
    def coerce(stage, where: str) -> Stage:
        """``stage`` as a Stage, accepting an int or a name; a clear error otherwise."""
        if isinstance(stage, Stage):
            return stage
        if isinstance(stage, str):
            try:
                return Stage[stage.upper()]
            except KeyError:
                pass
        elif isinstance(stage, int) and 0 <= stage <= Stage.INFINITY:
            return Stage(stage)
        names = ", ".join(s.name for s in Stage)
        raise InvalidArgumentError(f"{where}: {stage!r} is not a Stage; use one of {names}.")



STAGES = tuple(Stage)
"""The stages by number: ``STAGES[k]`` is ``Stage(k)`` without the enum's lookup, for the
realization loop."""
