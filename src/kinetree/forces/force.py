"""Force: the base of force elements in a GeneralForceSubsystem (Simbody's ``Force``)."""

from __future__ import annotations

import math

import numpy as np

from kinetree.errors import InvalidArgumentError, NonFiniteError


def potential_energy(value, where: str) -> float:
    """The potential energy (J) user code returned at ``where``, as a float: refused,
    naming ``where``, unless it is one finite real number."""
    if type(value) is float and math.isfinite(value):
        return value
    try:
        if isinstance(value, (str, bytes)) or np.ndim(value) != 0 \
                or np.iscomplexobj(value):
            raise TypeError
        energy = float(value)
    except (TypeError, ValueError):
        raise InvalidArgumentError(
            f"{where} returned {value!r:.60}; it must return the potential energy, one real "
            f"number (J), 0.0 for a force that has none.") from None
    if not math.isfinite(energy):
        raise NonFiniteError(
            f"{where} returned {energy}; the potential energy must be a finite number (J).")
    return energy


class Force:
    """A force element. Subclasses implement ``calc_force(state, body_forces,
    particle_forces, mobility_forces)``, adding into body_forces (nb x 6 spatial forces
    about each body origin, in Ground) and mobility_forces (one per u), and
    ``calc_potential_energy(state)``."""

    _disabled_by_default = False

    def __init__(self, forces):
        if not hasattr(forces, "_adopt_force"):
            raise InvalidArgumentError(
                f"{type(self).__qualname__}: the first argument must be the "
                f"GeneralForceSubsystem, got {type(forces).__name__}.")
        for mobod in getattr(self, "_mobods", ()):
            if mobod.get_matter_subsystem().get_system() is not forces.get_system():
                raise InvalidArgumentError(
                    f"{type(self).__qualname__}: MobilizedBody "
                    f"{mobod.get_mobilized_body_index()} belongs to another System than "
                    f"the GeneralForceSubsystem given; use a body of the force's own System.")
        self._forces = forces
        self._index = forces._adopt_force(self)

    def get_force_index(self) -> int:
        return self._index

    def get_force_subsystem(self):
        """The GeneralForceSubsystem this element belongs to."""
        return self._forces

    def enable(self, state) -> None:
        """Apply this force in ``state`` (an Instance-stage change)."""
        self._forces.set_force_is_disabled(state, self, False)

    def disable(self, state) -> None:
        """Stop applying this force in ``state`` (an Instance-stage change)."""
        self._forces.set_force_is_disabled(state, self, True)

    def is_disabled(self, state) -> bool:
        return self._forces.is_force_disabled(state, self)

    def set_disabled_by_default(self, disabled: bool) -> None:
        self._disabled_by_default = bool(disabled)
        self._forces.invalidate_subsystem_topology_cache()

    def check_discrete_value(self, index: int, value) -> str | None:
        """What makes ``value`` unfit for the subsystem's discrete variable ``index`` if
        this element allocated it (a value of the right kind but out of the range its
        setters keep, read from a file or set directly); None if nothing does, or if the
        variable is not this element's."""
        return None

    def _realize(self, stage, state) -> None:
        """The element's part of its subsystem's realization of ``stage``; most built-in
        elements compute everything in calc_force and need nothing here."""

    def _has_hook(self, stage) -> bool:
        """Whether ``_realize`` does anything at ``stage``."""
        return type(self)._realize is not Force._realize

    def calc_force(self, state, body_forces, particle_forces, mobility_forces) -> None:
        raise NotImplementedError(f"{type(self).__qualname__} must implement calc_force.")

    def calc_potential_energy(self, state) -> float:
        return 0.0
