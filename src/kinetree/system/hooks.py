"""RealizeHooks: the nine stage hooks of a staged realization, each doing nothing.

Subsystems, custom force implementations, custom constraint implementations and custom
mobilizer implementations all inherit them and override the ones they need; the
realization calls each hook once per stage realized, in stage order. Only
``realize_topology`` and ``realize_model`` may allocate state variables and cache entries
(and ``realize_instance`` constraint-error and event-trigger slots).
"""

from __future__ import annotations


class RealizeHooks:
    """Empty ``realize_<stage>(state)`` hooks, one per stage from TOPOLOGY to REPORT."""

    def realize_topology(self, state) -> None:
        """Allocate what every State of the System needs."""

    def realize_model(self, state) -> None:
        """Allocate what depends on Model-stage variables; keep the indices in the State."""

    def realize_instance(self, state) -> None:
        """Finalize physical parameters; may allocate constraint-error and trigger slots."""

    def realize_time(self, state) -> None:
        """Compute what depends on t."""

    def realize_position(self, state) -> None:
        """Compute what depends on q."""

    def realize_velocity(self, state) -> None:
        """Compute what depends on u (and write q̇)."""

    def realize_dynamics(self, state) -> None:
        """Compute forces and energies."""

    def realize_acceleration(self, state) -> None:
        """Compute the time derivatives of the continuous variables."""

    def realize_report(self, state) -> None:
        """Compute values needed only for output."""
