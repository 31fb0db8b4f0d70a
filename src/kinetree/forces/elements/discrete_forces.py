"""Force.DiscreteForces: body spatial forces and generalized forces held in the State and
set by user code (external loads, forces updated in event handlers)."""

from __future__ import annotations

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeError
from kinetree.forces.elements._stations import same_system_matter, vector3
from kinetree.forces.elements._table import TableForce
from kinetree.forces.elements.mobility_discrete_force import check_which_u
from kinetree.jit import helper
from kinetree.registry import FORCES
from kinetree.system.stage import Stage

CODE = FORCES["discrete_forces"]


def _finite_array(values, shape: tuple, where: str, what: str) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    if v.shape != shape:
        raise InvalidArgumentError(f"{where}: {what} must have shape {shape}, got {v.shape}.")
    if not np.all(np.isfinite(v)):
        raise InvalidArgumentError(f"{where}: {what} must be finite numbers, got {values!r}.")
    return v


class DiscreteForces(TableForce):
    """Applies, in each State, the body forces and generalized forces stored in that State:
    per body a spatial force [moment about the body origin; force] (N m; N, in Ground), and
    per speed u a generalized force (N or N m). All start at zero and stay until changed;
    every change backs the State up to VELOCITY. No potential energy.

    Set them whole (``set_all_body_forces``, ``set_all_mobility_forces``), one at a time
    (``set_one_body_force``, ``set_one_mobility_force``), or accumulate a force at a point
    of a body (``add_force_to_body_point``, which needs POSITION). Unlike Simbody, which
    keeps empty vectors until the first setter, the getters always return full arrays
    (zeros if nothing was set)."""

    CODE = CODE
    STAGE = Stage.MODEL

    def __init__(self, forces, matter):
        self._matter = same_system_matter(forces, matter, "Force.DiscreteForces")
        self._nb = self._nu = 0
        super().__init__(forces, [])

    # ------------------------------------------------------------ layout
    def _lay_out(self, matter) -> None:
        """[body forces (6 per body, Ground first), mobility forces (one per u)]."""
        self._nb = matter.get_num_bodies()
        self._nu = sum(matter.get_mobilized_body(b).get_default_u().size
                       for b in range(1, self._nb))
        self._defaults = np.zeros(6 * self._nb + self._nu)

    def _check_model(self, tree) -> None:
        if tree.mass.shape[0] != self._nb or int(tree.nu.sum()) != self._nu:
            raise KinetreeError(
                f"Force.DiscreteForces: laid out for {self._nb} bodies and {self._nu} u at "
                f"TOPOLOGY, but the tree has {tree.mass.shape[0]} and {int(tree.nu.sum())}; "
                f"call system.realize_topology() again.")

    def _mobod(self, mobod, where: str):
        if not hasattr(mobod, "get_mobilized_body_index") or \
                mobod.get_matter_subsystem() is not self._matter:
            raise InvalidArgumentError(
                f"{where}: give a MobilizedBody of this element's matter subsystem, got "
                f"{mobod!r}.")
        return mobod

    def _u_index(self, state, mobod, which_u, where: str) -> int:
        mobod = self._mobod(mobod, where)
        k = check_which_u(which_u, where)
        n = mobod.get_num_u(state)
        if k >= n:
            raise InvalidArgumentError(
                f"{where}: the mobilizer of {mobod!r} has {n} u; which_u {k} is out of range.")
        return mobod.get_first_u_index(state) + k

    # ------------------------------------------------------------ clearing
    def clear_all_forces(self, state) -> None:
        """Zero every stored force in ``state``; backs it up to VELOCITY."""
        self._set_params(state, 0, np.zeros(6 * self._nb + self._nu))

    def clear_all_mobility_forces(self, state) -> None:
        self._set_params(state, 6 * self._nb, np.zeros(self._nu))

    def clear_all_body_forces(self, state) -> None:
        self._set_params(state, 0, np.zeros(6 * self._nb))

    # ------------------------------------------------------ mobility forces
    def set_one_mobility_force(self, state, mobod, which_u, force) -> None:
        """Generalized force ``force`` (N or N m) on speed ``which_u`` of ``mobod``'s
        mobilizer in ``state`` (replacing what was there)."""
        where = "Force.DiscreteForces.set_one_mobility_force"
        i = self._u_index(state, mobod, which_u, where)
        self._set_params(state, 6 * self._nb + i,
                         _finite_array(force, (), where, "force").reshape(1))

    def get_one_mobility_force(self, state, mobod, which_u) -> float:
        i = self._u_index(state, mobod, which_u, "Force.DiscreteForces.get_one_mobility_force")
        return float(self._params(state)[6 * self._nb + i])

    def set_all_mobility_forces(self, state, f) -> None:
        """Every generalized force at once (one per u, N or N m); an empty array clears
        them."""
        if np.size(f) == 0:
            self.clear_all_mobility_forces(state)
            return
        self._set_params(state, 6 * self._nb, _finite_array(
            f, (self._nu,), "Force.DiscreteForces.set_all_mobility_forces",
            "the mobility forces (one per u)"))

    def get_all_mobility_forces(self, state) -> np.ndarray:
        """The stored generalized forces, one per u (read-only)."""
        return self._params(state)[6 * self._nb:]

    # ---------------------------------------------------------- body forces
    def set_one_body_force(self, state, mobod, spatial_force_in_G) -> None:
        """The spatial force [moment about the body origin; force] (N m; N, in Ground)
        on ``mobod`` in ``state`` (replacing what was there)."""
        where = "Force.DiscreteForces.set_one_body_force"
        b = self._mobod(mobod, where).get_mobilized_body_index()
        F = _finite_array(spatial_force_in_G, (6,), where, "spatial_force_in_G ([moment; force])")
        self._set_params(state, 6 * b, F)

    def get_one_body_force(self, state, mobod) -> np.ndarray:
        """[moment about the body origin; force] (N m; N, in Ground) stored for ``mobod``."""
        b = self._mobod(mobod, "Force.DiscreteForces.get_one_body_force") \
            .get_mobilized_body_index()
        return self._params(state)[6 * b:6 * b + 6].copy()

    def add_force_to_body_point(self, state, mobod, point_in_B, force_in_G) -> None:
        """Add force f_G (N, in Ground) applied at station ``point_in_B`` (m, in the body
        frame) to what is stored for ``mobod``: [R_GB s × f; f] about the body origin.
        ``state`` must be realized to POSITION (for R_GB), and stays there."""
        where = "Force.DiscreteForces.add_force_to_body_point"
        mobod = self._mobod(mobod, where)
        s_B = vector3(point_in_B, where, "point_in_B (m, in the body frame)")
        f_G = vector3(force_in_G, where, "force_in_G (N, in Ground)")
        r_G = mobod.get_body_rotation(state).as_matrix() @ s_B
        b = mobod.get_mobilized_body_index()
        F = self._params(state)[6 * b:6 * b + 6] + np.concatenate([np.cross(r_G, f_G), f_G])
        self._set_params(state, 6 * b, F)

    def set_all_body_forces(self, state, body_forces_in_G) -> None:
        """Every body's spatial force at once: (bodies x 6), rows [moment about the body
        origin; force] (N m; N, in Ground), Ground's row first; an empty array clears
        them."""
        if np.size(body_forces_in_G) == 0:
            self.clear_all_body_forces(state)
            return
        F = _finite_array(body_forces_in_G, (self._nb, 6),
                          "Force.DiscreteForces.set_all_body_forces",
                          "body_forces_in_G (one row [moment; force] per body, Ground first)")
        self._set_params(state, 0, F.ravel())

    def get_all_body_forces(self, state) -> np.ndarray:
        """The stored spatial forces, (bodies x 6), Ground's row first (read-only)."""
        return self._params(state)[:6 * self._nb].reshape(self._nb, 6)


@helper(forceinline=False)
def calc(fi, ff, tree, cache, q, u, body_forces, mobility_forces):
    """ff = [body forces (6 per body), mobility forces (one per u)]."""
    nb = body_forces.shape[0]
    for b in range(nb):
        F = body_forces[b]
        for i in range(6):
            F[i] += ff[6 * b + i]
    at = 6 * nb
    for i in range(mobility_forces.shape[0]):
        mobility_forces[i] += ff[at + i]
    return 0.0
