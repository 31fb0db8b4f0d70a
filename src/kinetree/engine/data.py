"""The named data of the compiled realization: a constant model part and a per-State data
part (MuJoCo's mjModel and mjData), and the protocol by which the engine gets them.

``EngineModel`` holds what stays fixed while a State's Instance-stage variables do;
``EngineData`` the State's arrays the realization reads and fills. Both are named tuples
of numpy arrays, views of the State's own buffers, so compiled code reads them by name
(``data.q``, ``model.tree_i``) and Python sees the same memory. Vectors of bodies are about
each body's origin and expressed in Ground unless the name says otherwise (the tree
model's and cache's own fields are listed in ``multibody/tree_model.py``); spatial vectors
are [angular; linear].

A built-in subsystem whose work the compiled realization does is an ``EnginePart``: it
names the fields it provides and the Python it still runs around the compiled call. The
realization plan (``plan.py``) asks each part for those, and reads nothing else of them.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Protocol

import numpy as np

from kinetree.actuators.actuator import ACTUATOR_I_COLUMNS, ACTUATOR_OUTPUTS
from kinetree.actuators.path_table import NO_PATHS, read_only
from kinetree.engine.kinds import Kinds
from kinetree.forces.elements._table import FORCE_I_COLUMNS

EngineModel = namedtuple("EngineModel", [
    "tree_i",            # (nb, 7) int64: per body its parent, mobilizer type code, first q,
                         # nq, first u, nu, and 1 if reversed (tree_model.TreeModel)
    "tree_f",            # (nb * (W + 37),) float64: per body its mobilizer parameters (W),
                         # X_PF, X_MB, mass (kg), mass center (m, in B), inertia (kg m², in B)
    "mobilizer_kinds",   # Kinds of the mobilizer type codes in tree_i
    "quaternion_q",      # (k, 4) int64: the q indices of each quaternion in use
    "force_kinds",       # Kinds of the force elements of the table
    "force_i",           # (n, 8) int64: per force element its type code, three integer
                         # parameters (bodies, mobilities), its first float in force_f, and
                         # its first entries in force_state, force_out and force_z (-1:
                         # none)
    "force_z_at",        # int: where force_z begins in the State's z
    "contact_kinds",     # Kinds of the contact parts run: the search and the force models
    "transition_velocity",  # float (m/s): compliant contact's slip velocity scale; -1 if none
    "constraint_kinds",  # Kinds of the enabled constraints
    "con_i",             # (nc, 13) int64: per enabled constraint its type code, ancestor,
                         # bodies, mobilities, equation rows (multibody/constraint_table.py)
    "actuator_kinds",    # Kinds of the actuators of the table
    "act_i",             # (na, 9) int64: per actuator its type code, path, first z, control,
                         # first parameter, bodies, mobility, flags (actuators/actuator.py)
    "act_z_at",          # int: where z (the actuators') begins in the State's z
    "controller_i",      # (k, 2) int64: per compiled prescribed control, the control and
                         # the first float of its Function of time in controller_f
    "controller_f",      # float64: the prescribed controls' Function records
    "path_i", "point_i", "wrap_rows", "wrap_i",  # int64: the muscles' paths, their points
                         # and their wraps (paths/path_kernel.py)
    "path_f",            # float64: the paths' stations, frames, functions and surfaces
    "wrap_kinds",        # Kinds of the wrap surfaces the paths use
])
"""The realization's constant part: the model arrays of one State's Instance stage."""

EngineData = namedtuple("EngineData", [
    "time",              # (1,) s: the time prescribed motion is evaluated at
    "q", "u",            # (nq,), (nu,): the tree's generalized coordinates and speeds
    "qdot", "udot",      # (nq,), (nu,): q̇ (VELOCITY) and u̇ (ACCELERATION)
    "qdotdot",           # (nq,): q̈ (ACCELERATION)
    "qdotdot_work",      # (nq,): scratch of q̈
    "buf", "status",     # the tree cache (tree_model.TreeCache): float64 and int64 buffers
    "body_forces",       # (nb, 6) N m, N: the applied spatial forces (DYNAMICS)
    "mobility_forces",   # (nu,): the applied generalized forces (DYNAMICS)
    "force_rows",        # (k,) int64: the rows of force_i of the enabled elements
    "force_f",           # float64: the force elements' parameters (the State's own)
    "force_pe",          # (n,) J: each force element's potential energy (DYNAMICS)
    "force_state",       # float64: the force elements' own state (a copy of the
                         # subsystem's auto-update variable, taken as DYNAMICS begins)
    "force_next",        # float64: that state's values at the next auto-update (DYNAMICS)
    "force_out",         # float64: the force elements' reports (DYNAMICS)
    "force_z", "force_zdot",  # float64: the force elements' continuous variables and
                         # their derivatives (DYNAMICS)
    "contact_i", "contact_f",  # the contact search's buffers (contact/collision.ContactData)
    "quaternion_err",    # (k,): |q| - 1 of each quaternion (POSITION)
    "con_index",         # int64: the constraints' bodies, mobilities and pivots
    "con_f", "con_buf",  # float64: the constraints' parameters and work space
    "qerr", "uerr", "udoterr",  # (mp,), (mp + mv,), (m,): the constraint errors
    "multipliers",       # (m,): the constraint multipliers λ (ACCELERATION)
    "project_work",      # (rows, w) float64: a projection's scratch (engine/project.py)
    "project_control",   # (7,) int64: where a compiled projection stands
    "z", "zdot",         # (nz,), (nz,): the auxiliary states (the actuators') and their
                         # derivatives (DYNAMICS)
    "act_f",             # float64: the actuators' parameters (the State's own)
    "control_defaults",  # (na,): each actuator's control without controllers
    "python_controls",   # (na,): what the Python controllers add (before DYNAMICS)
    "controls",          # (na,): each actuator's control (DYNAMICS)
    "act_out",           # (na, 12): each actuator's outputs (DYNAMICS, actuator.OUT_*)
    "path_work",         # float64: the paths' current points (POSITION)
    "path_length", "path_speed", "path_tension",  # (np,) m, m/s, N: each path's length
                         # (POSITION), lengthening speed (VELOCITY), tension (DYNAMICS)
])
"""The realization's per-State part: views of one State's arrays."""

MODEL_DEFAULTS = {
    "force_kinds": Kinds("forces"),
    "force_i": np.zeros((0, FORCE_I_COLUMNS), dtype=np.int64),
    "contact_kinds": Kinds("contact"),
    "transition_velocity": -1.0,
    "force_z_at": 0,
    "act_z_at": 0,
    "actuator_kinds": Kinds("actuators"),
    "act_i": read_only(np.zeros((0, ACTUATOR_I_COLUMNS), dtype=np.int64)),
    "controller_i": read_only(np.zeros((0, 2), dtype=np.int64)),
    "controller_f": read_only(np.zeros(0)),
    **NO_PATHS,
}
DATA_DEFAULTS = {
    "project_work": np.zeros((0, 0)),
    "project_control": np.zeros(0, dtype=np.int64),
    "force_rows": np.zeros(0, dtype=np.int64),
    "force_f": np.zeros(0),
    "force_pe": np.zeros(0),
    "force_state": np.zeros(0),
    "force_next": np.zeros(0),
    "force_out": np.zeros(0),
    "force_z": np.zeros(0),
    "force_zdot": np.zeros(0),
    "contact_i": np.zeros(11, dtype=np.int64),
    "contact_f": np.zeros(0),
    **{name: np.zeros(0) for name in (
        "z", "zdot", "act_f", "control_defaults", "python_controls", "controls",
        "path_work", "path_length", "path_speed", "path_tension")},
    "act_out": np.zeros((0, ACTUATOR_OUTPUTS)),
}
"""The fields of the parts a model may lack (built-in force elements, compiled contact)."""


class EnginePart(Protocol):
    """A subsystem whose work the compiled realization does, in full or in part."""

    def engine_fields(self, state) -> dict:
        """The fields of EngineModel and EngineData this part provides for ``state``
        (realized to INSTANCE), by name: views of its arrays, never copies."""

    def engine_python(self, state) -> tuple[dict, dict]:
        """(before, after): per Stage, the Python this part runs before and after the
        compiled call of that stage for ``state`` (pre-passes, user hooks)."""


_MODEL_FIELDS, _DATA_FIELDS = frozenset(EngineModel._fields), frozenset(EngineData._fields)


def assemble(fields: dict) -> tuple[EngineModel, EngineData]:
    """The model and data of the realization from the parts' fields (``fields``), the
    absent parts' fields defaulted."""
    model = EngineModel(**{**MODEL_DEFAULTS, **{k: v for k, v in fields.items()
                                                 if k in _MODEL_FIELDS}})
    data = EngineData(**{**DATA_DEFAULTS, **{k: v for k, v in fields.items()
                                              if k in _DATA_FIELDS}})
    return model, data
