"""Trajectory: a simulation's record, the continuous variables at each report time and any
extra columns, written as CSV or as OpenSim's storage format (.sto) so that OpenSim users
can open kinetree's results.

A Trajectory knows no physics: it holds time t (s), the generalized coordinates q, speeds
u and auxiliary variables z of each row, extra named columns (energy, a tip position, ...)
and the integrator's statistics. Column labels name what they hold: a q column's label
ends in ``q<k>`` (``Pin1.q0``: the first q of mobilized body 1, a Pin), a u column's in
``u<k>`` and a z column's in ``z<k>``, which is how ``from_csv`` and ``from_sto`` tell
them apart again; an extra column must not look like one.

Given a ``Model`` (``kt.load_osim``), ``to_sto`` and ``from_sto`` speak OpenSim's own
column names instead: a coordinate's value and speed as ``/jointset/<joint>/<coordinate>/
value`` and ``/speed`` (OpenSim 4's state paths), or the bare coordinate name of a motion
file (``knee_angle_r``), angles in degrees where the file says ``inDegrees=yes``.
"""

from __future__ import annotations

import functools
import math
import re
import warnings
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeWarning

_KINDS = ("q", "u", "z")
_COORDINATE = re.compile(r"(?:^|\.)([quz])\d+$")


_ACTUATOR_STATE = re.compile(r"^/forceset/[^/|]+/[^/|]+$")
"""An actuator's state as OpenSim names it (``/forceset/<muscle>/activation``): a z of
the model that has that actuator."""


def _kind_of(label: str) -> str | None:
    """'q', 'u' or 'z' for a coordinate label, None for an extra column."""
    found = _COORDINATE.search(label)
    return found.group(1) if found else None


class Trajectory:
    """Rows of (t, q, u, z) and extra columns, as ``simulate`` records them.

    ``t`` is (n,), ``q`` (n, nq), ``u`` (n, nu), ``z`` (n, nz), each a read-only array;
    ``columns`` maps an extra column's label to its (n,) array; ``stats`` holds the
    integrator's statistics (empty for a Trajectory read from a file). ``template`` is a
    State of the System that made the rows, from which ``states()`` rebuilds one State a
    row (a copy of it is kept, or, with ``copy_template=False``, the State itself, which
    nobody must change after); ``system`` is that System (``simulate`` records both,
    ``from_sto`` with a model the model's), which ``to_html`` draws. ``header`` holds a
    storage file's header entries (``from_sto``).
    """

    def __init__(self, t, q, u, z=None, *, q_names=None, u_names=None, z_names=None,
                 columns=None, stats=None, template=None, name: str = "kinetree",
                 system=None, copy_template: bool = True):
        self._t = _readonly(np.asarray(t, dtype=float).reshape(-1))
        n = self._t.size
        arrays, names = {}, {}
        for kind, values, labels in (("q", q, q_names), ("u", u, u_names),
                                     ("z", z, z_names)):
            a = np.zeros((n, 0)) if values is None else np.asarray(values, dtype=float)
            if a.ndim == 1 and a.size == 0:
                a = a.reshape(n, 0)
            if a.ndim != 2 or a.shape[0] != n:
                raise InvalidArgumentError(
                    f"Trajectory: {kind} must be an array of shape ({n}, n{kind}), one row "
                    f"per time, got shape {a.shape}.")
            arrays[kind] = _readonly(a)
            names[kind] = _labels(kind, labels, a.shape[1])
        self._q, self._u, self._z = arrays["q"], arrays["u"], arrays["z"]
        self._names = names
        self._columns = {}
        for label, values in (columns or {}).items():
            label = str(label)
            if label == "time" or _kind_of(label):
                raise InvalidArgumentError(
                    f"Trajectory: the extra column '{label}' would be read back as time or a "
                    f"coordinate; rename it (labels ending in q<k>, u<k>, z<k> are "
                    f"reserved).")
            v = np.asarray(values, dtype=float).reshape(-1)
            if v.size != n:
                raise InvalidArgumentError(
                    f"Trajectory: the extra column '{label}' has {v.size} values for {n} "
                    f"times.")
            self._columns[label] = _readonly(v)
        labels = self.get_labels()
        if not _distinct_and_plain(tuple(labels)):
            raise InvalidArgumentError(
                f"Trajectory: column labels must be distinct, without commas or white space "
                f"(they head CSV and .sto columns), got {labels}.")
        self.stats = dict(stats or {})
        self.header: dict[str, str] = {}
        self._file: Path | None = None
        self._lines: np.ndarray | None = None
        self._file_labels: dict[tuple[str, int], str] = {}
        """The file the rows were read from, each row's line in it, and the file's label
        of a q or u column read under another name (``from_sto`` with a model)."""
        self.name = str(name)
        self._template = template.copy() if template is not None and copy_template \
            else template
        self._template_loader = None
        """Where the template comes packed (an ensemble member's last State): the
        function that rebuilds it, called on first use (``_recorded_template``)."""
        self.system = system

    # ------------------------------------------------------------ contents
    @property
    def t(self) -> np.ndarray:
        """Report times (s), (n,)."""
        return self._t

    @property
    def q(self) -> np.ndarray:
        """Generalized coordinates, (n, nq)."""
        return self._q

    @property
    def u(self) -> np.ndarray:
        """Generalized speeds, (n, nu)."""
        return self._u

    @property
    def z(self) -> np.ndarray:
        """Auxiliary continuous variables, (n, nz)."""
        return self._z

    @property
    def columns(self) -> dict[str, np.ndarray]:
        """The extra columns by label, each (n,)."""
        return dict(self._columns)

    @property
    def q_names(self) -> list[str]:
        return list(self._names["q"])

    @property
    def u_names(self) -> list[str]:
        return list(self._names["u"])

    @property
    def z_names(self) -> list[str]:
        return list(self._names["z"])

    def get_labels(self) -> list[str]:
        """Every column's label in file order: time, q, u, z, then the extra columns."""
        return ["time", *self._names["q"], *self._names["u"], *self._names["z"],
                *self._columns]

    def __len__(self) -> int:
        return self._t.size

    def __repr__(self) -> str:
        span = f", t in [{self._t[0]:g}, {self._t[-1]:g}] s" if len(self) else ""
        return (f"<Trajectory '{self.name}': {len(self)} rows{span}, nq = {self._q.shape[1]}, "
                f"nu = {self._u.shape[1]}, nz = {self._z.shape[1]}>")

    def _table(self) -> np.ndarray:
        return np.column_stack([self._t, self._q, self._u, self._z,
                                *self._columns.values()])

    def states(self, template=None) -> list:
        """One State per row: a copy of ``template`` with t, q, u and z set, each backed up
        to INSTANCE (realize what you need). Discrete variables are the template's for
        every row; by default the template is the State at the end of the simulation (so
        a handler's changes are those in effect at the end), and a Trajectory read from a
        file needs one: ``traj.states(system.get_default_state())``."""
        template = self._checked_template(template, "Trajectory.states")
        return [self._row_state(template, i) for i in range(len(self))]

    def state(self, i: int, template=None):
        """Row ``i``'s State (a negative ``i`` counts from the end), the one ``states()[i]``
        is: every State is a copy of the template (a fraction of a millisecond), so one
        row of a long Trajectory costs one copy instead of one per row."""
        n = len(self)
        if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)) \
                or not -n <= i < n:
            raise InvalidArgumentError(
                f"Trajectory.state: {i!r} is not a row of this Trajectory's {n}; give a "
                f"whole number from {-n} to {n - 1}.")
        template = self._checked_template(template, "Trajectory.state")
        return self._row_state(template, int(i) % n)

    def _recorded_template(self):
        """The State recorded with the rows (None for rows read from a file)."""
        if self._template_loader is not None:
            self._template, self._template_loader = self._template_loader(), None
        return self._template

    def _checked_template(self, template, where: str):
        """``template`` (by default the recorded one), checked to fit the rows."""
        template = self._recorded_template() if template is None else template
        if template is None:
            raise InvalidArgumentError(
                f"{where}: this Trajectory holds no State to copy (it was read from a "
                f"file); pass one of its System's, traj.states(system.get_default_state()).")
        shape = (template.get_num_q(), template.get_num_u(), template.get_num_z())
        if shape != (self._q.shape[1], self._u.shape[1], self._z.shape[1]):
            raise InvalidArgumentError(
                f"{where}: the template State has (nq, nu, nz) = {shape} but the rows have "
                f"{(self._q.shape[1], self._u.shape[1], self._z.shape[1])}; pass a State "
                f"of the System that made them.")
        return template

    def _row_state(self, template, i: int):
        """A copy of ``template`` with row i's t, q, u and z; a row with a missing (NaN)
        value is refused naming it, since no State or simulation can start from it."""
        for kind, values in (("q", self._q), ("u", self._u), ("z", self._z)):
            bad = np.flatnonzero(~np.isfinite(values[i]))
            if bad.size:
                j = int(bad[0])
                label = self._file_labels.get((kind, j), self._names[kind][j])
                line = "" if self._file is None else f" (line {self._lines[i]} of {self._file})"
                raise InvalidArgumentError(
                    f"Trajectory {self.name!r}: row {i} (t = {float(self._t[i])!r} s){line} "
                    f"has {values[i, j]} in column '{label}', and a State needs finite q, u "
                    f"and z; fill the value in (interpolate it) or leave the row out.")
        s = template.copy()
        s.set_time(self._t[i])
        s.set_q(self._q[i])
        s.set_u(self._u[i])
        s.set_z(self._z[i])
        return s

    # ---------------------------------------------------------------- files
    def to_csv(self, path) -> Path:
        """Write a comma-separated table (header ``time,<q labels>,<u labels>,...``), full
        double precision; returns the path."""
        path = Path(path)
        np.savetxt(path, self._table(), fmt="%.17g", delimiter=",",
                   header=",".join(self.get_labels()), comments="")
        return path

    def to_sto(self, path, model=None, *, columns: bool | None = None) -> Path:
        """Write OpenSim's storage format, version 1: a header (name, version, nRows,
        nColumns, inDegrees=no, endheader), a tab-separated label line starting with
        ``time``, then the rows, angles in radians, 17 significant digits;
        ``opensim.TimeSeriesTable(path)`` and ``opensim.Storage(path)`` read it. Returns
        the path.

        Without a model the columns are kinetree's (``Pin1.q0``, ..., then the extra
        columns). With ``model`` (a ``Model``, whose System made the rows) they are
        OpenSim's states: for each coordinate, in the model's order,
        ``/jointset/<joint>/<coordinate>/value`` then ``/speed``, then each actuator's
        states (``/forceset/<muscle>/activation``, ...), so that
        ``opensim.StatesTrajectory.createFromStatesTable(osim_model, table)`` takes the
        file for the same model. ``columns`` says whether the extra columns are written
        (after the rest; with a model, any other z under kinetree's labels with them): by
        default yes without a model and no with one, as OpenSim refuses columns that are
        not states of its model unless told ``allowExtraColumns=True``."""
        path = Path(path)
        if model is None:
            labels, table = self.get_labels(), self._table()
            if columns is False:
                labels = labels[:1 + self._q.shape[1] + self._u.shape[1]
                                + self._z.shape[1]]
                table = table[:, :len(labels)]
        else:
            labels, table = self._opensim_table(model, bool(columns))
        header = "\n".join([self.name, "version=1", f"nRows={len(self)}",
                            f"nColumns={len(labels)}", "inDegrees=no", "endheader",
                            "\t".join(labels)])
        np.savetxt(path, table, fmt="%.17g", delimiter="\t", header=header, comments="")
        return path

    def _opensim_table(self, model, columns: bool) -> tuple[list[str], np.ndarray]:
        """Labels and values of ``to_sto(path, model)``: time, then each coordinate's
        value and speed by its OpenSim state path, then (``columns``) z and extras."""
        state = model.get_default_state()
        q0, u0, _ = _matter_offsets(model, state)
        nq, nu = state.get_num_q(), state.get_num_u()
        if (self._q.shape[1], self._u.shape[1]) != (nq, nu):
            raise InvalidArgumentError(
                f"Trajectory.to_sto: the rows have (nq, nu) = "
                f"{(self._q.shape[1], self._u.shape[1])} but the model {model.name!r} has "
                f"{(nq, nu)}; pass the Model whose System made them.")
        labels, values = ["time"], [self._t]
        for c in model.coordinates.values():
            if not c.joint_name:
                raise InvalidArgumentError(
                    f"Trajectory.to_sto: the coordinate {c.name!r} has no joint_name, and "
                    f"OpenSim names a state /jointset/<joint>/<coordinate>/value; set "
                    f"Coordinate.joint_name.")
            labels += [f"/jointset/{c.joint_name}/{c.name}/value",
                       f"/jointset/{c.joint_name}/{c.name}/speed"]
            values += [self._q[:, q0 + c.q_index], self._u[:, u0 + c.u_index]]
        written = {q0 + c.q_index for c in model.coordinates.values()}
        left = [self._names["q"][i] for i in range(nq) if i not in written]
        if left:
            warnings.warn(KinetreeWarning(
                f"Trajectory.to_sto: {len(left)} q belong to no coordinate of the model "
                f"{model.name!r} and are not written ({', '.join(left[:6])}"
                f"{', ...' if len(left) > 6 else ''})."), stacklevel=3)
        states = [k for k, label in enumerate(self._names["z"])
                  if _ACTUATOR_STATE.match(label)]       # OpenSim's own states
        labels += [self._names["z"][k] for k in states]
        values += [self._z[:, k] for k in states]
        if columns:
            others = [k for k in range(self._z.shape[1]) if k not in states]
            labels += [*(self._names["z"][k] for k in others), *self._columns]
            values += [*(self._z[:, k] for k in others), *self._columns.values()]
        return labels, np.column_stack(values)

    def to_html(self, path, system=None, *, frame_rate: float = 30.0,
                title: str | None = None) -> Path:
        """Write a standalone web page replaying this Trajectory (bodies, decorations,
        contact surfaces as a Visualizer draws them) with play/pause, a time slider and
        the camera: one file that opens offline in any browser, with no server.
        ``system`` is the System that made the rows (by default the one ``simulate``
        recorded); ``frame_rate`` caps the frames kept per simulated second. Returns the
        path."""
        from kinetree.viz.replay import write_replay

        return write_replay(self, path, system, frame_rate=frame_rate, title=title)

    @classmethod
    def from_csv(cls, path) -> Trajectory:
        """Read a table written by ``to_csv``."""
        path = Path(path)
        with path.open() as f:
            labels = f.readline().strip().split(",")
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        return cls._from_table(labels, data, path.stem, path)

    @classmethod
    def from_sto(cls, path, model=None) -> Trajectory:
        """Read an OpenSim storage file, .sto or .mot: the header (an optional name line,
        ``key=value`` entries such as version, nRows, nColumns and inDegrees, then
        ``endheader``), a label line starting with ``time``, and the rows, tab- or
        white-space-separated. The header entries are kept in ``header``.

        ``NaN`` or an empty cell is a missing value, as OpenSim reads it: every row is kept.
        In a column that becomes q, u or z one warning names the file, the line and the
        column of each (up to five), since such a row cannot become a State: ``states()``
        and ``to_html`` refuse it, naming the row and the line. Missing values in other
        columns (forces, marker errors) are kept without a warning.

        Without a model the columns are kept as they are: labels ending in ``q<k>``,
        ``u<k>`` and ``z<k>`` (as ``to_sto`` writes them) become q, u and z, every other
        column an extra column with its values unchanged; a file in degrees with q or u
        columns is refused, since only a model says which of them are angles.

        With ``model`` (a ``Model``) the rows are that model's States: q and u in the
        State's order, every coordinate found by OpenSim's state path
        (``/jointset/knee_r/knee_angle_r/value`` and ``/speed``, the joint part not
        checked) or by its name (``knee_angle_r``, and ``knee_angle_r_u`` for a speed, as
        OpenSim 3 wrote them; a label naming a coordinate is that coordinate's even when
        it looks like kinetree's, as OpenSim's ``q1`` does), values and speeds of
        rotational coordinates converted from degrees to radians when ``inDegrees=yes``.
        A coordinate the file lacks keeps its default value (one warning names them all);
        speeds the file lacks altogether stay at the default speeds. Other columns are
        kept as extra columns, unconverted, and the Trajectory records the model's System
        and default State, so ``states()`` needs no template."""
        path = Path(path)
        name, header, labels, data, lines = _read_storage(path)
        in_degrees = header.get("inDegrees", "no").strip().lower() == "yes"
        if model is None:
            coordinates = [s for s in labels[1:] if _kind_of(s) in ("q", "u")]
            if in_degrees and coordinates:
                raise InvalidArgumentError(
                    f"Trajectory.from_sto: {path} is in degrees (inDegrees=yes) and has "
                    f"coordinate columns ({', '.join(coordinates[:4])}); pass model= to "
                    f"convert its angles to radians, or convert them first (OpenSim: "
                    f"convertDegreesToRadians).")
            traj = cls._from_table(labels, data, name, path)
        else:
            traj = cls._from_model_table(model, labels, data, name, path, in_degrees)
        traj.header = header
        traj._file, traj._lines = path, lines
        state_columns = [i for i, label in enumerate(labels[1:], 1)
                         if label not in traj._columns]
        _warn_missing(data, labels, state_columns, lines, path)
        return traj

    @classmethod
    def _from_model_table(cls, model, labels: list[str], data: np.ndarray, name: str,
                          path, in_degrees: bool) -> Trajectory:
        """``from_sto(path, model)`` once the file is read."""
        from kinetree.study.simulate import coordinate_labels

        state = model.get_default_state()
        q0, u0, _ = _matter_offsets(model, state)
        n = data.shape[0]
        arrays = {kind: np.tile(np.asarray(getter(), dtype=float), (n, 1))
                  for kind, getter in (("q", state.get_q), ("u", state.get_u),
                                       ("z", state.get_z))}
        found: dict[tuple[str, str], int] = {}
        own: dict[str, list[int]] = {kind: [] for kind in _KINDS}
        extra = []
        names = coordinate_labels(model.system, state)
        states = {label: k for k, label in enumerate(names["z"])
                  if _ACTUATOR_STATE.match(label)}
        for i, label in enumerate(labels[1:], 1):
            hit = _coordinate_column(label, model.coordinates)
            if hit is None and label in states:     # an actuator's state, by its name
                arrays["z"][:, states[label]] = data[:, i]
            elif hit is None:
                kind = _kind_of(label)
                (extra if kind is None else own[kind]).append(i)
            elif hit in found:
                raise InvalidArgumentError(
                    f"Trajectory.from_sto: {path} has two columns for the {hit[1]} of "
                    f"{hit[0]!r}: '{labels[found[hit]]}' and '{label}'; keep one.")
            else:
                found[hit] = i
        if in_degrees and (own["q"] or own["u"]):
            first = labels[(own["q"] or own["u"])[0]]
            raise InvalidArgumentError(
                f"Trajectory.from_sto: {path} is in degrees (inDegrees=yes) but labels its "
                f"coordinates as kinetree does ({first}, ...), which kinetree writes in "
                f"radians; label them by coordinate name or path, or convert them to "
                f"radians first.")
        for kind, picked in own.items():
            if picked:
                if len(picked) != arrays[kind].shape[1]:
                    raise InvalidArgumentError(
                        f"Trajectory.from_sto: {path} has {len(picked)} {kind} columns "
                        f"labelled as kinetree labels them but the model {model.name!r} "
                        f"has {arrays[kind].shape[1]}; pass the Model that wrote them.")
                arrays[kind][:] = data[:, picked]
        have_speeds = any(kind == "speed" for _, kind in found)
        missing = []
        file_labels = {}
        for c in model.coordinates.values():
            scale = math.pi / 180 if in_degrees and c.motion_type == "rotational" else 1.0
            for kind, key, offset, index in (("value", "q", q0, c.q_index),
                                             ("speed", "u", u0, c.u_index)):
                column = found.get((c.name, kind))
                if column is not None:
                    arrays[key][:, offset + index] = scale * data[:, column]
                    file_labels[key, offset + index] = labels[column]
                elif not own[key] and (kind == "value" or have_speeds):
                    missing.append(c.name if kind == "value" else f"{c.name} (speed)")
        if missing:
            warnings.warn(KinetreeWarning(
                f"Trajectory.from_sto: {path} has no column for {len(missing)} of the "
                f"model's coordinates, which keep their default values: "
                f"{', '.join(missing[:12])}{', ...' if len(missing) > 12 else ''}."),
                stacklevel=3)
        traj = cls(data[:, 0], arrays["q"], arrays["u"], arrays["z"], q_names=names["q"],
                   u_names=names["u"], z_names=names["z"],
                   columns={labels[i]: data[:, i] for i in extra}, name=name,
                   template=state, system=model.system)
        traj._file_labels = file_labels
        return traj

    @classmethod
    def _from_table(cls, labels: list[str], data: np.ndarray, name: str, path) -> Trajectory:
        if not labels or labels[0].strip() != "time" or data.shape[1] != len(labels):
            raise InvalidArgumentError(
                f"Trajectory: {path} must have a first column 'time' and as many values a "
                f"row as labels ({len(labels)}); got {data.shape[1]} values a row.")
        labels = [s.strip() for s in labels]
        picked = {kind: [i for i, s in enumerate(labels[1:], 1) if _kind_of(s) == kind]
                  for kind in _KINDS}
        extra = [i for i, s in enumerate(labels[1:], 1) if _kind_of(s) is None]
        return cls(data[:, 0], *(data[:, picked[k]] for k in _KINDS),
                   q_names=[labels[i] for i in picked["q"]],
                   u_names=[labels[i] for i in picked["u"]],
                   z_names=[labels[i] for i in picked["z"]],
                   columns={labels[i]: data[:, i] for i in extra}, name=name)


def _read_storage(path: Path) -> tuple[str, dict[str, str], list[str], np.ndarray,
                                        np.ndarray]:
    """A storage file's name (its first header line when that is no ``key=value`` entry,
    else the file's stem), header entries, column labels, (rows, columns) values and each
    row's line number in the file (from 1)."""
    lines = path.read_text().splitlines()
    try:
        end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader")
    except StopIteration:
        raise InvalidArgumentError(
            f"Trajectory.from_sto: {path} has no 'endheader' line; it is not a storage "
            f"file.") from None
    name, header = path.stem, {}
    for i, line in enumerate(lines[:end]):
        line = line.strip()
        if "=" in line:
            key, value = line.split("=", 1)
            header[key.strip()] = value.strip()
        elif i == 0 and line:
            name = line
        elif line:                      # old SIMM-style entries: "datacolumns 5"
            key, _, value = line.partition(" ")
            header[key.strip()] = value.strip()
    numbers = [k + 1 for k in range(end + 1, len(lines)) if lines[k].strip()]
    rows = [lines[k - 1] for k in numbers]
    if not rows:
        raise InvalidArgumentError(
            f"Trajectory.from_sto: {path} has no label line after 'endheader'.")
    tabs = "\t" in rows[0]
    labels = _cells(rows[0], tabs)
    while labels and not labels[-1]:
        labels.pop()
    data = _values(rows[1:], len(labels), tabs, path)
    _check_times(data[:, 0] if data.size else np.zeros(0), path)
    return name, header, labels, data, np.array(numbers[1:], dtype=np.int64)


def _warn_missing(data: np.ndarray, labels: list[str], columns: list[int],
                  lines: np.ndarray, path) -> None:
    """One warning naming the file, line and label of the missing (NaN) values in
    ``columns`` of ``data``, the columns that become q, u and z."""
    if not columns:
        return
    rows, which = np.nonzero(np.isnan(data[:, columns]))
    if not rows.size:
        return
    cells = [f"line {lines[r]} column '{labels[columns[c]]}'"
             for r, c in zip(rows[:5], which[:5])]
    warnings.warn(KinetreeWarning(
        f"Trajectory.from_sto: {path}: {len(rows)} missing value(s) (NaN or empty) in "
        f"columns that become q, u or z, at {'; '.join(cells)}{'; ...' if len(rows) > 5 else ''}. "
        f"Every row is kept, but a row with one cannot become a State (states() and "
        f"to_html() refuse it); fill the values in or leave those rows out of the file."),
        stacklevel=3)


def _check_times(t: np.ndarray, path) -> None:
    """A storage file's times: finite and never decreasing (the first bad row named,
    counting the data rows from 1)."""
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise InvalidArgumentError(
            f"Trajectory.from_sto: {path}: data row {bad[0] + 1} has the time {t[bad[0]]}; "
            f"every row needs a finite time.")
    back = np.flatnonzero(np.diff(t) < 0)
    if back.size:
        r = back[0] + 1
        raise InvalidArgumentError(
            f"Trajectory.from_sto: {path}: data row {r + 1} goes back in time, to t = "
            f"{t[r]!r} s after {t[r - 1]!r} s; a storage file's rows are in time order.")


def _cells(line: str, tabs: bool) -> list[str]:
    return [c.strip() for c in line.split("\t")] if tabs else line.split()


def _values(rows: list[str], n: int, tabs: bool, path, where: str = "Trajectory.from_sto",
            row: str = "data row", extra_ok: bool = False) -> np.ndarray:
    """The (rows, n) table of a text file's ``rows``: numpy's parser for a full table,
    otherwise cell by cell, an empty or missing trailing cell being NaN; cells past the
    n-th are refused unless ``extra_ok`` (errors name ``where`` and the ``row`` kind)."""
    if not rows:
        return np.zeros((0, n))
    try:
        data = np.loadtxt(rows, ndmin=2)
        if data.shape[1] == n:
            return data
    except ValueError:
        pass
    data = np.full((len(rows), n), np.nan)
    for r, line in enumerate(rows):
        cells = _cells(line, tabs)
        if not extra_ok and any(cells[n:]):
            raise InvalidArgumentError(
                f"{where}: {path}: {row} {r + 1} has {len(cells)} values for {n} labels.")
        for j, cell in enumerate(cells[:n]):
            if cell:
                try:
                    data[r, j] = float(cell)
                except ValueError:
                    raise InvalidArgumentError(
                        f"{where}: {path}: {row} {r + 1} has {cell!r} in column {j + 1}, not "
                        f"a number.") from None
    return data


def _coordinate_column(label: str, coordinates: dict) -> tuple[str, str] | None:
    """(coordinate name, "value" or "speed") for a column of an OpenSim file, or None:
    a state path ``[/jointset/<joint>/]<coordinate>/value|speed``, a coordinate name, or a
    name with OpenSim 3's speed suffix ``_u``."""
    parts = [p for p in label.split("/") if p]
    if len(parts) >= 2 and parts[-1] in ("value", "speed") and parts[-2] in coordinates:
        return parts[-2], parts[-1]
    if label in coordinates:
        return label, "value"
    if label.endswith("_u") and label[:-2] in coordinates:
        return label[:-2], "speed"
    return None


def _matter_offsets(model, state) -> tuple[int, int, int]:
    """Where the model's matter subsystem's q, u and z start in the State's arrays
    (``Coordinate.q_index`` and ``u_index`` count from there)."""
    part = model.matter._part(state, "Trajectory")
    return part.q_slice.start, part.u_slice.start, part.z_slice.start


def _labels(kind: str, labels, n: int) -> list[str]:
    """The labels of n columns of ``kind``: given ones (checked), or ``<kind>0``, ..."""
    if labels is None:
        return [f"{kind}{i}" for i in range(n)]
    return list(_checked_labels(kind, tuple(str(s) for s in labels), n))


@functools.lru_cache(maxsize=256)
def _checked_labels(kind: str, labels: tuple, n: int) -> tuple:
    """``labels`` checked to name n columns of ``kind``; kept, since the Trajectories of
    one System (an ensemble's members, every run of a study) share their labels."""
    if len(labels) != n or any(_kind_of(s) != kind and not (
            kind == "z" and _ACTUATOR_STATE.match(s)) for s in labels):
        raise InvalidArgumentError(
            f"Trajectory: expected {n} {kind} labels each ending in '{kind}<k>' (as "
            f"'Pin1.{kind}0'), got {list(labels)}.")
    return labels


@functools.lru_cache(maxsize=256)
def _distinct_and_plain(labels: tuple) -> bool:
    """Whether every label differs from the others and holds no comma or white space."""
    return len(set(labels)) == len(labels) and not any(
        re.search(r"[,\s]", s) for s in labels)


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a
