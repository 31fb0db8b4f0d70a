"""The exceptions kinetree raises.

Each names the element that complained, what was wrong, and the fix, as Simbody's
``SimTK::Exception`` family does. All derive from :class:`KinetreeError`, and each also
derives from the built-in exception a Python user would try first (``ValueError`` for bad
input, ``RuntimeError`` for a State used out of order), so generic handlers keep working.
"""

from __future__ import annotations


class KinetreeError(Exception):
    """Base class of every kinetree exception."""


class KinetreeWarning(UserWarning):
    """Something a run is doing that deserves a look (a model that looks stiff)."""


class NonPhysicalError(KinetreeError, ValueError):
    """An input that no physical object can have: negative or NaN mass, an inertia that is
    not symmetric positive semidefinite or breaks the triangle inequality, a reflection given
    as a rotation."""


class InvalidArgumentError(KinetreeError, ValueError):
    """An argument of the wrong size, type or range for the element it was given to."""


class StageTooLowError(KinetreeError, RuntimeError):
    """A value was asked of a State that has not been realized far enough to hold it.

    ``needed`` is the stage the value belongs to, ``held`` the stage the State (or the
    subsystem's part of it) has reached, ``where`` names the element and method that asked.
    """

    def __init__(self, needed, held, where: str):
        self.needed = needed
        self.held = held
        self.where = where
        super().__init__(
            f"{where} needs the State realized to {needed.name}, but it is only at "
            f"{held.name}; call system.realize(state, Stage.{needed.name}) first."
        )


class StageOutOfRangeError(KinetreeError, RuntimeError):
    """An operation allowed only while the State is within a range of stages was attempted
    outside it (for instance allocating a state variable after MODEL)."""

    def __init__(self, lower, held, upper, where: str, hint: str = ""):
        self.lower = lower
        self.held = held
        self.upper = upper
        self.where = where
        msg = (
            f"{where} is allowed only while the State is between {lower.name} and "
            f"{upper.name}, but it is at {held.name}"
        )
        super().__init__(msg + (f"; {hint}" if hint else "."))


class CacheEntryOutOfDateError(KinetreeError, RuntimeError):
    """A cache entry was read after the state variables it depends on changed and before it
    was recomputed."""


class TopologyChangedError(KinetreeError, RuntimeError):
    """A State made before a topological change of its System was used afterwards:
    its layout and values may no longer match the System."""


class RealizeTopologyMustBeCalledFirstError(KinetreeError, RuntimeError):
    """The System was asked for something that needs ``realize_topology()`` first."""


class StateMismatchError(KinetreeError, ValueError):
    """A State (or a saved State file) that belongs to a different System."""


class IntegrationError(KinetreeError, RuntimeError):
    """An integrator could not advance: the step size fell below its minimum, or the
    State could not be projected onto the constraints at any step size tried."""


class SimulationDivergedError(IntegrationError):
    """The motion diverged: a coordinate or speed is no longer a finite number."""


class NonFiniteError(KinetreeError, ArithmeticError):
    """A realization produced a value that is not a finite number (q̇, an applied force,
    u̇): the message names the quantity and where it first appeared."""


class ConcurrentUseError(KinetreeError, RuntimeError):
    """A State, an integrator or a TimeStepper was used by a second thread while a first
    was still using it: each belongs to one thread at a time."""


class SimulationError(KinetreeError, RuntimeError):
    """``simulate`` stopped on an exception (its ``__cause__``). Nothing is lost:
    ``trajectory`` holds the reports made until then, ``state`` the last accepted State
    (from which a new run can go on) and ``time`` its time (s)."""

    def __init__(self, message: str, trajectory=None, state=None, time: float = float("nan")):
        super().__init__(message)
        self.trajectory, self.state, self.time = trajectory, state, time
