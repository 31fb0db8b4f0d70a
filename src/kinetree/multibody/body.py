"""Body: the mass properties a MobilizedBody carries (Simbody's ``Body::Rigid``)."""

from __future__ import annotations

from kinetree.errors import InvalidArgumentError
from kinetree.math.inertia import Inertia, MassProperties


class Body:
    """Namespace for body types, as in Simbody (``Body.Rigid``)."""

    class Rigid:
        """A rigid body with fixed mass properties about its own origin, in its own frame."""

        def __init__(self, mass_properties: MassProperties | None = None):
            if mass_properties is None:
                mass_properties = MassProperties(1.0, [0, 0, 0], Inertia(1.0))
            if not isinstance(mass_properties, MassProperties):
                raise InvalidArgumentError(
                    f"Body.Rigid: expected MassProperties, got {type(mass_properties).__name__};"
                    f" build one with kt.MassProperties(mass, com, inertia).")
            self._mass_properties = mass_properties

        def get_default_rigid_body_mass_properties(self) -> MassProperties:
            return self._mass_properties

        def set_default_rigid_body_mass_properties(self, mass_properties: MassProperties):
            """Bodies are copied into MobilizedBodies when those are built, so this affects
            only MobilizedBodies created afterwards."""
            self._mass_properties = mass_properties
            return self

        def __repr__(self) -> str:
            return f"Body.Rigid({self._mass_properties!r})"
