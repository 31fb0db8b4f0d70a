"""Marker files: OpenSim's and Vicon's .trc (track row column) motion-capture tables, read
for inverse kinematics with ``Assembler.track``.

A .trc file is tab-separated text: a ``PathFileType`` line, a line of header keys
(``DataRate CameraRate NumFrames NumMarkers Units OrigDataRate ...``) and one of their
values, the marker names (``Frame# Time M1 <tab> <tab> M2 ...``, each name over its three
columns), the axis labels (``X1 Y1 Z1 X2 ...``), then one row per frame: frame number,
time (s) and x, y, z of each marker in the file's units. A marker not seen in a frame has
empty cells (or NaN). ``read_trc`` returns a ``MarkerTable`` in metres, missing locations
NaN, which the ``Markers`` goal takes frame by frame::

    table = kt.read_trc("walk.trc")
    frames = table.observations_for(markers)   # sets markers' observation order
    for t, frame in zip(table.times, frames):
        markers.move_all_observations(frame)
        assembler.track(t)
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError, KinetreeWarning
from kinetree.study.trajectory import _cells, _values

_UNITS = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}


class MarkerTable:
    """Marker locations over time, from a .trc file (``read_trc``).

    ``times`` (n,) in s; ``frame_numbers`` (n,), the file's frame column; ``marker_names``
    in the file's order; ``locations`` (n, markers, 3) in m, in the lab frame of the file,
    NaN where a marker was not seen; ``data_rate`` and ``camera_rate`` (Hz), ``units`` the
    file's length unit before conversion, ``header`` every header entry as text.
    """

    def __init__(self, times, marker_names, locations, *, frame_numbers=None,
                 data_rate: float = float("nan"), camera_rate: float = float("nan"),
                 units: str = "m", header=None, name: str = ""):
        self.times = np.asarray(times, dtype=float).reshape(-1)
        n = self.times.size
        self.marker_names = [str(s) for s in marker_names]
        self.locations = np.asarray(locations, dtype=float)
        if self.locations.shape != (n, len(self.marker_names), 3):
            raise InvalidArgumentError(
                f"MarkerTable: locations must have shape (frames, markers, 3) = "
                f"{(n, len(self.marker_names), 3)}, got {self.locations.shape}.")
        if len(set(self.marker_names)) != len(self.marker_names):
            raise InvalidArgumentError(
                f"MarkerTable: marker names must be distinct, got {self.marker_names}.")
        self.frame_numbers = (np.arange(1, n + 1) if frame_numbers is None
                              else np.asarray(frame_numbers).reshape(-1))
        self.data_rate = float(data_rate)
        self.camera_rate = float(camera_rate)
        self.units = units
        self.header = dict(header or {})
        self.name = name

    def __len__(self) -> int:
        return self.times.size

    def __repr__(self) -> str:
        span = f", t in [{self.times[0]:g}, {self.times[-1]:g}] s" if len(self) else ""
        return (f"<MarkerTable {self.name!r}: {len(self)} frames, "
                f"{len(self.marker_names)} markers{span}>")

    def get_marker_index(self, name: str) -> int:
        """The column of the marker called ``name``; raises for an unknown name."""
        try:
            return self.marker_names.index(name)
        except ValueError:
            raise InvalidArgumentError(
                f"MarkerTable: no marker named {name!r}; the file has: "
                f"{', '.join(self.marker_names)}.") from None

    def get_marker_locations(self, name: str) -> np.ndarray:
        """One marker's locations (n, 3), m, NaN where it was not seen."""
        return self.locations[:, self.get_marker_index(name)].copy()

    def observations_for(self, markers) -> np.ndarray:
        """The observations of a ``Markers`` goal, frame by frame: makes the goal's
        observation order the file's markers that the goal has (by name,
        ``define_observation_order``) and returns their locations, (n, observations, 3)
        m, so that ``markers.move_all_observations(frames[k])`` sets frame k. Markers of
        the goal that the file lacks are not fitted (one warning names them); markers of
        the file that the goal lacks are left out. Call it before ``assemble``, as a new
        observation order reinitializes the Assembler."""
        goal = [markers.get_marker_name(m) for m in range(markers.get_num_markers())]
        known = set(goal)
        columns = [j for j, s in enumerate(self.marker_names) if s in known]
        if not columns:
            raise InvalidArgumentError(
                f"MarkerTable.observations_for: no marker of the file is in the goal; the "
                f"file has {', '.join(self.marker_names[:8])}, the goal "
                f"{', '.join(goal[:8]) or '(no markers)'}.")
        absent = [s for s in goal if s not in set(self.marker_names)]
        if absent:
            warnings.warn(KinetreeWarning(
                f"MarkerTable.observations_for: {len(absent)} markers of the goal are not in "
                f"{self.name or 'the file'} and will not be fitted: "
                f"{', '.join(absent[:12])}{', ...' if len(absent) > 12 else ''}."),
                stacklevel=2)
        markers.define_observation_order([self.marker_names[j] for j in columns])
        return self.locations[:, columns].copy()


def read_trc(path) -> MarkerTable:
    """Read a .trc marker file (OpenSim's TRCFileAdapter and Vicon write them): header
    entries, marker names, the time column and each marker's X, Y, Z, converted from the
    file's ``Units`` (mm, cm or m) to metres; empty cells and NaN are missing markers
    (NaN). Returns a ``MarkerTable``."""
    path = Path(path)
    lines = path.read_text().splitlines()
    keys_at = next((i for i, line in enumerate(lines[:10])
                    if line.split() and line.split()[0] == "DataRate"), None)
    names_at = next((i for i, line in enumerate(lines[:12])
                     if line.split() and line.split()[0] == "Frame#"), None)
    if keys_at is None or names_at is None or names_at < keys_at + 2:
        raise InvalidArgumentError(
            f"read_trc: {path} is not a .trc file: expected a line of header keys starting "
            f"with 'DataRate', their values on the next line, then the marker names "
            f"starting with 'Frame#'.")
    tabs = "\t" in lines[names_at]
    header = dict(zip(_cells(lines[keys_at], tabs), _cells(lines[keys_at + 1], tabs)))
    header.pop("", None)
    units = header.get("Units", "").strip()
    if units.lower() not in _UNITS:
        raise InvalidArgumentError(
            f"read_trc: {path} has Units={units!r}; expected mm, cm or m.")
    names = [s for s in _cells(lines[names_at], tabs)[2:] if s]
    declared = header.get("NumMarkers")
    if declared is not None and declared.isdigit() and int(declared) != len(names):
        warnings.warn(KinetreeWarning(
            f"read_trc: {path} says NumMarkers={declared} but names {len(names)} markers; "
            f"the names are used."), stacklevel=2)
    width = 2 + 3 * len(names)
    rows = [line for line in lines[names_at + 2:] if line.strip()]
    data = _values(rows, width, tabs, path, "read_trc", "frame row", extra_ok=True)
    if np.isnan(data[:, 1]).any():
        raise InvalidArgumentError(
            f"read_trc: {path}: the Time column has empty cells in rows "
            f"{list(np.flatnonzero(np.isnan(data[:, 1]))[:5] + 1)}.")
    frames = data[:, 0].astype(int) if np.isfinite(data[:, 0]).all() else data[:, 0]
    locations = data[:, 2:].reshape(len(rows), len(names), 3) * _UNITS[units.lower()]
    return MarkerTable(data[:, 1], names, locations, frame_numbers=frames,
                       data_rate=_number(header.get("DataRate")),
                       camera_rate=_number(header.get("CameraRate")), units=units,
                       header=header, name=path.name)


def _number(text) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        return float("nan")
