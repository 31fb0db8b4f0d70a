"""Contact materials and the rules that combine two of them (paper §5, Appendix A.1).

:class:`ContactMaterial` is Simbody's ``SimTK::ContactMaterial``: a stiffness (Pa, pressure
per unit strain), a Hunt-Crossley dissipation coefficient (s/m) and static, dynamic and
viscous friction coefficients (the viscous one in s/m). The thickness of an elastic
foundation layer is not a material property; it belongs to the contact surface.

The combining rules are functions of plain numbers so that contact kernels can use them:

* Hertz (nonlinear, force ∝ x^(3/2)): stiffnesses combine through their 2/3 powers,
  s1 = k2^(2/3) / (k1^(2/3) + k2^(2/3)), s2 = 1 - s1, E* = (s1 k1^(2/3))^(3/2), the form
  Simbody's ``CompliantContactSubsystem`` (``calcHertzContactForce``) and
  ``HuntCrossleyForce`` use (Appendix A.1; it differs from the textbook 1/E* = 1/k1 + 1/k2).
* Elastic foundation (linear springs): s1 = k2 / (k1 + k2), E* = s1 k1 = k1 k2 / (k1 + k2)
  (Appendix A.1, last paragraph).
* Dissipation, for both: c* = c1 s1 + c2 s2 (Appendix A.1).
* Friction, for both: μ = 2 μ1 μ2 / (μ1 + μ2), and 0 when both are 0 (Simbody's
  ``CompliantContactSubsystem`` and ``HuntCrossleyForce``).

s1 is the fraction of the total deformation x taken by surface 1: the softer surface
deforms more, and the contact point P sits closer to the stiffer surface.
"""

from __future__ import annotations

import math
from typing import NamedTuple

from kinetree.errors import InvalidArgumentError, NonPhysicalError

__all__ = [
    "CombinedContactMaterial",
    "ContactMaterial",
    "combine_elastic_foundation",
    "combine_hertz",
    "combined_dissipation",
    "combined_friction",
    "elastic_foundation_composite_stiffness",
    "elastic_foundation_stiffness_weights",
    "hertz_composite_stiffness",
    "hertz_stiffness_weights",
]


def _finite(value, name: str, where: str) -> float:
    try:
        value = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidArgumentError(f"{where}: {name} must be a real number, got {value!r}.") \
            from exc
    if not math.isfinite(value):
        raise NonPhysicalError(f"{where}: {name} = {value} is not finite; give a finite value.")
    return value


class ContactMaterial:
    """The physical properties of the material a contact surface is made of.

    Parameters, as Simbody's ``ContactMaterial(stiffness, dissipation, staticFriction,
    dynamicFriction, viscousFriction=0)``:

    stiffness
        k > 0 in Pa (pressure per unit strain). For a solid free to bulge use
        :meth:`calc_plane_strain_stiffness` (E/(1-ν²)); for a confined layer
        :meth:`calc_confined_compression_stiffness`.
    dissipation
        Hunt-Crossley c ≥ 0 in s/m: the dissipative normal force is the elastic one times
        (3/2) c ẋ (eq 24); c is the negated slope of restitution against impact speed at
        low speeds, e = 1 - c v.
    static_friction, dynamic_friction
        μs ≥ μd ≥ 0, unitless.
    viscous_friction
        μv ≥ 0 in s/m: adds μv v to the friction coefficient at slip speed v (eq 27).
    """

    __slots__ = ("_stiffness", "_stiffness23", "_dissipation", "_static", "_dynamic",
                 "_viscous")

    def __init__(self, stiffness, dissipation, static_friction, dynamic_friction,
                 viscous_friction=0.0):
        self.set_stiffness(stiffness)
        self.set_dissipation(dissipation)
        self.set_friction(static_friction, dynamic_friction, viscous_friction)

    @classmethod
    def from_youngs_modulus(cls, youngs_modulus, poissons_ratio, dissipation,
                            static_friction, dynamic_friction, viscous_friction=0.0):
        """A material whose stiffness is the plane-strain modulus E/(1-ν²) of Young's modulus
        E (Pa) and Poisson's ratio ν (Appendix A.1). A kinetree convenience for Simbody's
        ``ContactMaterial(ContactMaterial::calcPlaneStrainStiffness(E, nu), ...)``."""
        return cls(cls.calc_plane_strain_stiffness(youngs_modulus, poissons_ratio),
                   dissipation, static_friction, dynamic_friction, viscous_friction)

    # ---- setters (Simbody's, each returning the material) -------------------------------

    def set_stiffness(self, stiffness) -> ContactMaterial:
        """Set k (Pa); also keeps k^(2/3), which the Hertz combining rule uses."""
        k = _finite(stiffness, "stiffness", "ContactMaterial.set_stiffness()")
        if k <= 0:
            raise NonPhysicalError(
                f"ContactMaterial.set_stiffness(): stiffness {k} Pa is illegal; it must be "
                "> 0 (use calc_plane_strain_stiffness(E, nu) to get it from Young's modulus).")
        self._stiffness = k
        self._stiffness23 = k ** (2.0 / 3.0)
        return self

    def set_dissipation(self, dissipation) -> ContactMaterial:
        """Set the Hunt-Crossley dissipation coefficient c (s/m)."""
        c = _finite(dissipation, "dissipation", "ContactMaterial.set_dissipation()")
        if c < 0:
            raise NonPhysicalError(
                f"ContactMaterial.set_dissipation(): dissipation {c} s/m is illegal; it must "
                "be >= 0 (0 for a lossless material).")
        self._dissipation = c
        return self

    def set_friction(self, static_friction, dynamic_friction,
                     viscous_friction=0.0) -> ContactMaterial:
        """Set μs, μd (unitless) and μv (s/m); requires μs ≥ μd ≥ 0 and μv ≥ 0."""
        where = "ContactMaterial.set_friction()"
        us = _finite(static_friction, "static_friction", where)
        ud = _finite(dynamic_friction, "dynamic_friction", where)
        uv = _finite(viscous_friction, "viscous_friction", where)
        if us < 0:
            raise NonPhysicalError(
                f"{where}: static friction coefficient {us} is illegal; it must be >= 0.")
        if not 0 <= ud <= us:
            raise NonPhysicalError(
                f"{where}: dynamic friction coefficient {ud} is illegal; it must be between "
                f"0 and the static coefficient {us} (swap them if they were given in the "
                "wrong order).")
        if uv < 0:
            raise NonPhysicalError(
                f"{where}: viscous friction coefficient {uv} s/m is illegal; it must be >= 0.")
        self._static, self._dynamic, self._viscous = us, ud, uv
        return self

    # ---- getters ----------------------------------------------------------------------

    def is_valid(self) -> bool:
        """Always true here: a kinetree material cannot be built without a stiffness."""
        return self._stiffness > 0

    def get_stiffness(self) -> float:
        """k, Pa."""
        return self._stiffness

    def get_stiffness23(self) -> float:
        """k^(2/3), Pa^(2/3), precomputed for the Hertz combining rule."""
        return self._stiffness23

    def get_dissipation(self) -> float:
        """c, s/m."""
        return self._dissipation

    def get_static_friction(self) -> float:
        """μs, unitless."""
        return self._static

    def get_dynamic_friction(self) -> float:
        """μd, unitless."""
        return self._dynamic

    def get_viscous_friction(self) -> float:
        """μv, s/m."""
        return self._viscous

    # ---- Simbody's static helpers -----------------------------------------------------

    @staticmethod
    def calc_plane_strain_stiffness(youngs_modulus, poissons_ratio) -> float:
        """k = E/(1-ν²) (Pa) for a solid free to bulge; requires E ≥ 0, -1 < ν ≤ 0.5.
        Never exceeds (4/3) E, reached by an incompressible material (ν = 0.5)."""
        where = "ContactMaterial.calc_plane_strain_stiffness()"
        E = _finite(youngs_modulus, "youngs_modulus", where)
        nu = _finite(poissons_ratio, "poissons_ratio", where)
        if E < 0 or not -1 < nu <= 0.5:
            raise NonPhysicalError(
                f"{where}: illegal material properties E={E} Pa, nu={nu}; need E >= 0 and "
                "-1 < nu <= 0.5.")
        return E / (1.0 - nu * nu)

    @staticmethod
    def calc_confined_compression_stiffness(youngs_modulus, poissons_ratio) -> float:
        """k = E(1-ν)/((1+ν)(1-2ν)) (Pa) for a layer that cannot bulge; requires E ≥ 0,
        -1 < ν < 0.5 (it is infinite for an incompressible material)."""
        where = "ContactMaterial.calc_confined_compression_stiffness()"
        E = _finite(youngs_modulus, "youngs_modulus", where)
        nu = _finite(poissons_ratio, "poissons_ratio", where)
        if E < 0 or not -1 < nu < 0.5:
            raise NonPhysicalError(
                f"{where}: illegal material properties E={E} Pa, nu={nu}; need E >= 0 and "
                "-1 < nu < 0.5 (use calc_plane_strain_stiffness for rubber-like nu = 0.5).")
        return E * (1.0 - nu) / ((1.0 + nu) * (1.0 - 2.0 * nu))

    @staticmethod
    def calc_dissipation_from_observed_restitution(restitution, speed) -> float:
        """c = (1-e)/v (s/m) from a restitution e observed at a small impact speed v (m/s);
        0 when e = 1."""
        where = "ContactMaterial.calc_dissipation_from_observed_restitution()"
        e = _finite(restitution, "restitution", where)
        v = _finite(speed, "speed", where)
        if e == 1.0:
            return 0.0
        if not (0 <= e <= 1 and v > 0):
            raise NonPhysicalError(
                f"{where}: illegal restitution or speed ({e}, {v} m/s); need 0 <= e <= 1 and "
                "a speed > 0.")
        return (1.0 - e) / v

    def __repr__(self) -> str:
        return (f"ContactMaterial(stiffness={self._stiffness!r}, "
                f"dissipation={self._dissipation!r}, static_friction={self._static!r}, "
                f"dynamic_friction={self._dynamic!r}, viscous_friction={self._viscous!r})")

    def __eq__(self, other) -> bool:
        if not isinstance(other, ContactMaterial):
            return NotImplemented
        return (self._stiffness, self._dissipation, self._static, self._dynamic,
                self._viscous) == (other._stiffness, other._dissipation, other._static,
                                   other._dynamic, other._viscous)

    __hash__ = None


# ---- combining rules ------------------------------------------------------------------


def hertz_stiffness_weights(k1: float, k2: float) -> tuple[float, float]:
    """(s1, s2): the fractions of the deformation x taken by surfaces 1 and 2 in Hertz
    contact, s1 = k2^(2/3)/(k1^(2/3) + k2^(2/3)), s2 = 1 - s1 (Appendix A.1); k in Pa."""
    a, b = k1 ** (2.0 / 3.0), k2 ** (2.0 / 3.0)
    s1 = b / (a + b)
    return s1, 1.0 - s1


def hertz_composite_stiffness(k1: float, k2: float) -> float:
    """E* (Pa) for Hertz contact: E*^(2/3) = k1^(2/3) k2^(2/3)/(k1^(2/3) + k2^(2/3))
    (Appendix A.1), which makes the force on both bodies the same when each is viewed as
    meeting a rigid half space with its own share x_i = s_i x of the deformation."""
    a, b = k1 ** (2.0 / 3.0), k2 ** (2.0 / 3.0)
    return (a * b / (a + b)) ** 1.5


def elastic_foundation_stiffness_weights(k1: float, k2: float) -> tuple[float, float]:
    """(s1, s2) for the linear elastic foundation: s1 = k2/(k1 + k2), s2 = 1 - s1
    (Appendix A.1, last paragraph); k in Pa."""
    s1 = k2 / (k1 + k2)
    return s1, 1.0 - s1


def elastic_foundation_composite_stiffness(k1: float, k2: float) -> float:
    """E* = k1 k2/(k1 + k2) (Pa): two linear springs in series (Appendix A.1)."""
    return k1 * k2 / (k1 + k2)


def combined_dissipation(c1: float, c2: float, s1: float) -> float:
    """c* = c1 s1 + c2 (1 - s1) (s/m): ẋ splits between the surfaces as x does
    (Appendix A.1)."""
    return c1 * s1 + c2 * (1.0 - s1)


def combined_friction(mu1: float, mu2: float) -> float:
    """μ = 2 μ1 μ2/(μ1 + μ2), the harmonic mean, 0 when either is 0 (Simbody's rule for each
    of the static, dynamic and viscous coefficients). Monotone in each argument, so μs ≥ μd
    holds for the pair when it holds for each material."""
    product = 2.0 * mu1 * mu2
    return product / (mu1 + mu2) if product != 0.0 else 0.0


class CombinedContactMaterial(NamedTuple):
    """The effective properties of a pair of materials in contact.

    stiffness: E* (Pa); s1, s2: fractions of the deformation taken by surfaces 1 and 2;
    dissipation: c* (s/m); static_friction, dynamic_friction: μs, μd; viscous_friction:
    μv (s/m).
    """

    stiffness: float
    s1: float
    s2: float
    dissipation: float
    static_friction: float
    dynamic_friction: float
    viscous_friction: float


def _combine(m1: ContactMaterial, m2: ContactMaterial, s1: float, stiffness: float):
    return CombinedContactMaterial(
        stiffness, s1, 1.0 - s1,
        combined_dissipation(m1.get_dissipation(), m2.get_dissipation(), s1),
        combined_friction(m1.get_static_friction(), m2.get_static_friction()),
        combined_friction(m1.get_dynamic_friction(), m2.get_dynamic_friction()),
        combined_friction(m1.get_viscous_friction(), m2.get_viscous_friction()))


def combine_hertz(m1: ContactMaterial, m2: ContactMaterial) -> CombinedContactMaterial:
    """The Hertz combining rules of Appendix A.1 applied to two materials."""
    k1, k2 = m1.get_stiffness(), m2.get_stiffness()
    s1, _ = hertz_stiffness_weights(k1, k2)
    return _combine(m1, m2, s1, hertz_composite_stiffness(k1, k2))


def combine_elastic_foundation(m1: ContactMaterial,
                               m2: ContactMaterial) -> CombinedContactMaterial:
    """The linear (elastic foundation) combining rules of Appendix A.1 applied to two
    materials."""
    k1, k2 = m1.get_stiffness(), m2.get_stiffness()
    s1, _ = elastic_foundation_stiffness_weights(k1, k2)
    return _combine(m1, m2, s1, elastic_foundation_composite_stiffness(k1, k2))
