"""ForceSubsystem: a Subsystem that applies forces and has potential energy.

Subclass it, add into ``matter.upd_body_forces(state)`` (spatial forces about each body's
origin, in Ground) or ``matter.upd_mobility_forces(state)`` in ``realize_dynamics``, and
return your potential energy from ``calc_potential_energy``.
"""

from __future__ import annotations

from kinetree.system.subsystem import Subsystem


class ForceSubsystem(Subsystem):
    """Base of every subsystem that produces forces."""

    def calc_potential_energy(self, state) -> float:
        """This subsystem's potential energy (J); 0 unless overridden."""
        return 0.0
