"""Trajectory: a simulation's record, the continuous variables at each report time and any
extra columns, written as CSV or as OpenSim's storage format (.sto) so that OpenSim users
can open kinetree's results.

A Trajectory knows no physics: it holds time t (s), the generalized coordinates q, speeds
u and auxiliary variables z of each row, extra named columns (energy, a tip position, ...)
and the integrator's statistics. Column labels name what they hold: a q column's label
ends in ``q<k>`` (``Pin1.q0``: the first q of mobilized body 1, a Pin), a u column's in
``u<k>`` and a z column's in ``z<k>``, which is how ``from_csv`` and ``from_sto`` tell
them apart again; an extra column must not look like one.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError

_KINDS = ("q", "u", "z")
_PATTERN = {kind: re.compile(rf"(^|\.){kind}\d+$") for kind in _KINDS}


def _kind_of(label: str) -> str | None:
    """'q', 'u' or 'z' for a coordinate label, None for an extra column."""
    for kind in _KINDS:
        if _PATTERN[kind].search(label):
            return kind
    return None


class Trajectory:
    """Rows of (t, q, u, z) and extra columns, as ``simulate`` records them.

    ``t`` is (n,), ``q`` (n, nq), ``u`` (n, nu), ``z`` (n, nz), each a read-only array;
    ``columns`` maps an extra column's label to its (n,) array; ``stats`` holds the
    integrator's statistics (empty for a Trajectory read from a file). ``template`` is a
    State of the System that made the rows, from which ``states()`` rebuilds one State a
    row; ``system`` is that System (``simulate`` records both), which ``to_html`` draws.
    """

    def __init__(self, t, q, u, z=None, *, q_names=None, u_names=None, z_names=None,
                 columns=None, stats=None, template=None, name: str = "kinetree",
                 system=None):
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
        if len(set(labels)) != len(labels) or any(re.search(r"[,\s]", s) for s in labels):
            raise InvalidArgumentError(
                f"Trajectory: column labels must be distinct, without commas or white space "
                f"(they head CSV and .sto columns), got {labels}.")
        self.stats = dict(stats or {})
        self.name = str(name)
        self._template = None if template is None else template.copy()
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

    def _checked_template(self, template, where: str):
        """``template`` (by default the recorded one), checked to fit the rows."""
        template = self._template if template is None else template
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
        """A copy of ``template`` with row i's t, q, u and z."""
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

    def to_sto(self, path) -> Path:
        """Write OpenSim's storage format, version 1: a header (name, version, nRows,
        nColumns, inDegrees=no, endheader), a tab-separated label line starting with
        ``time``, then the rows, angles in radians; ``opensim.TimeSeriesTable(path)`` and
        ``opensim.Storage(path)`` read it. Returns the path."""
        path = Path(path)
        labels = self.get_labels()
        header = "\n".join([self.name, "version=1", f"nRows={len(self)}",
                            f"nColumns={len(labels)}", "inDegrees=no", "endheader",
                            "\t".join(labels)])
        np.savetxt(path, self._table(), fmt="%.17g", delimiter="\t",
                   header=header, comments="")
        return path

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
    def from_sto(cls, path) -> Trajectory:
        """Read a storage file written by ``to_sto`` (or any version-1 .sto in radians whose
        coordinate columns are labelled as kinetree labels them; other columns become
        extra columns)."""
        path = Path(path)
        lines = path.read_text().splitlines()
        try:
            end = next(i for i, line in enumerate(lines) if line.strip() == "endheader")
        except StopIteration:
            raise InvalidArgumentError(
                f"Trajectory.from_sto: {path} has no 'endheader' line; it is not a storage "
                f"file.") from None
        meta = dict(line.split("=", 1) for line in lines[1:end] if "=" in line)
        if meta.get("inDegrees", "no").strip().lower() == "yes":
            raise InvalidArgumentError(
                f"Trajectory.from_sto: {path} is in degrees (inDegrees=yes); convert its "
                f"angles to radians first (OpenSim: convertDegreesToRadians).")
        labels = lines[end + 1].strip().split("\t")
        data = np.loadtxt(path, delimiter="\t", skiprows=end + 2, ndmin=2)
        name = lines[0].strip() if end > 0 else path.stem
        return cls._from_table(labels, data, name, path)

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


def _labels(kind: str, labels, n: int) -> list[str]:
    """The labels of n columns of ``kind``: given ones (checked), or ``<kind>0``, ..."""
    if labels is None:
        return [f"{kind}{i}" for i in range(n)]
    labels = [str(s) for s in labels]
    if len(labels) != n or any(_kind_of(s) != kind for s in labels):
        raise InvalidArgumentError(
            f"Trajectory: expected {n} {kind} labels each ending in '{kind}<k>' (as "
            f"'Pin1.{kind}0'), got {labels}.")
    return labels


def _readonly(a: np.ndarray) -> np.ndarray:
    a = np.array(a, dtype=float)
    a.flags.writeable = False
    return a
