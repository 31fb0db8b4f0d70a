"""State files: a State's time, variables and discrete variables in a zip of numpy arrays
(numpy's ``.npz``) with a JSON header, read without pickle, so that loading a file from
someone else never runs code.

The header (member ``header``, a string) is checked before anything else is read: the
format name, its version and the System's topology signature. Discrete variables are
stored as JSON where they are plain values (None, bool, int, float, str, and lists,
tuples, named tuples and string-keyed dicts of them) and as arrays where they are numpy arrays or
numpy scalars of numbers or bools; any other value is refused when saving, naming the
subsystem and the variable.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np
from numpy.lib.npyio import NpzFile

from kinetree.errors import InvalidArgumentError, StateMismatchError

FORMAT, VERSION = "kinetree.State", 1
_HEADER = "header"
_NUMERIC_KINDS = "biufc"


class Encoder:
    """Turns discrete-variable values into JSON, with their arrays set aside by name."""

    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def _array(self, value: np.ndarray) -> str:
        name = f"a{len(self.arrays)}"
        self.arrays[name] = value
        return name

    def encode(self, value, where: str):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, (int, float)) and type(value) in (int, float):
            return value
        if isinstance(value, np.ndarray) and value.dtype.kind in _NUMERIC_KINDS:
            return {"array": self._array(value)}
        if isinstance(value, np.generic) and value.dtype.kind in _NUMERIC_KINDS:
            return {"scalar": self._array(np.asarray(value))}
        if type(value) is list or isinstance(value, tuple) and (
                type(value) is tuple or hasattr(value, "_fields")):
            # A named tuple is stored as a tuple; State.load gives it back its class from
            # the System's default value (never from the file).
            kind = "list" if type(value) is list else "tuple"
            return {kind: [self.encode(v, where) for v in value]}
        if type(value) is dict and all(isinstance(k, str) for k in value):
            return {"dict": {k: self.encode(v, where) for k, v in value.items()}}
        raise InvalidArgumentError(
            f"State.save: {where} holds a {type(value).__name__}, which a State file "
            f"cannot store. Discrete variables are saved when they hold None, bools, "
            f"numbers, strings, numpy arrays of numbers, or lists, tuples and dicts "
            f"(with string keys) of those; keep other objects outside the State, or "
            f"store their numbers instead.")


def decode(value, arrays):
    """A value as ``Encoder.encode`` wrote it, its arrays from ``arrays``."""
    if not isinstance(value, dict):
        return value
    (kind, content), = value.items()
    if kind == "array":
        return arrays[content]
    if kind == "scalar":
        return arrays[content][()]
    if kind == "list":
        return [decode(v, arrays) for v in content]
    if kind == "tuple":
        return tuple(decode(v, arrays) for v in content)
    return {k: decode(v, arrays) for k, v in content.items()}


def encode_state(encoder: Encoder, signature: str, t: float, parts: list[dict]) -> dict:
    """The header of a State (``parts`` one dict per subsystem with its ``name``, ``q``,
    ``u``, ``z`` and ``discrete``, a list of (stage name, value)), its arrays set aside in
    ``encoder``."""
    header = {"signature": signature, "t": t, "parts": []}
    for i, part in enumerate(parts):
        discrete = []
        for j, (stage, value) in enumerate(part["discrete"]):
            where = f"discrete variable {j} of subsystem '{part['name']}'"
            discrete.append([stage, encoder.encode(value, where)])
        header["parts"].append({"name": part["name"], "discrete": discrete})
        for key in ("q", "u", "z"):
            encoder.arrays[f"p{i}_{key}"] = np.array(part[key], dtype=float)
    return header


def decode_state(header: dict, arrays: dict, signature: str, where: str):
    """(t, parts) of a State header written by ``encode_state``, after checking that it
    comes from a System with topology ``signature``."""
    if header.get("signature") != signature:
        raise StateMismatchError(
            f"{where} was saved from a System with a different topology (signature "
            f"{str(header.get('signature'))[:12]}…, this System has {signature[:12]}…); "
            f"load it with the System that saved it.")
    parts = []
    for i, part in enumerate(header["parts"]):
        parts.append({
            "name": part["name"],
            **{key: arrays[f"p{i}_{key}"] for key in ("q", "u", "z")},
            "discrete": [(stage, decode(value, arrays)) for stage, value in part["discrete"]]})
    return float(header["t"]), parts


def write_archive(path, kind: str, header: dict, arrays: dict) -> None:
    """Write a kinetree file of ``kind`` (its format name): ``header`` (JSON) and arrays."""
    header = {"format": kind, "version": VERSION, **header}
    with open(Path(path), "wb") as f:
        np.savez(f, **{_HEADER: np.array(json.dumps(header))}, **arrays)


def read_archive(path, kind: str, where: str) -> tuple[dict, dict]:
    """(header, arrays) of the kinetree file ``path`` of ``kind``, after checking its
    format and version before reading anything else. Raises StateMismatchError naming
    what is wrong; reads no pickle."""
    what = f"a kinetree {kind.split('.')[-1]} file"
    if not Path(path).is_file():
        raise StateMismatchError(f"{where}: there is no file {path}.")
    try:
        archive = np.load(Path(path), allow_pickle=False)
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise StateMismatchError(
            f"{where}: {path} is not {what} ({error}). Files of kinetree before version 1 "
            f"of its file format (pickles) are not read, since loading a pickle can run "
            f"code.") from None
    if not isinstance(archive, NpzFile):
        raise StateMismatchError(f"{where}: {path} is not {what}.")
    with archive:
        if _HEADER not in archive.files:
            raise StateMismatchError(f"{where}: {path} is not {what}.")
        try:
            header = json.loads(str(archive[_HEADER]))
        except (ValueError, TypeError) as error:
            raise StateMismatchError(
                f"{where}: the header of {path} is unreadable ({error}).") from None
        if not isinstance(header, dict) or header.get("format") != kind:
            raise StateMismatchError(f"{where}: {path} is not {what}.")
        if header.get("version") != VERSION:
            raise StateMismatchError(
                f"{where}: {path} is {what} of version {header.get('version')!r}; this "
                f"kinetree reads version {VERSION}. Load it with the kinetree that wrote "
                f"it.")
        try:
            return header, {name: archive[name] for name in archive.files
                            if name != _HEADER}
        except ValueError as error:
            raise StateMismatchError(
                f"{where}: {path} is damaged: {type(error).__name__} {error}.") from None


def write(path, signature: str, t: float, parts: list[dict]) -> None:
    """Write a State file (``encode_state``'s arguments)."""
    encoder = Encoder()
    header = encode_state(encoder, signature, t, parts)
    write_archive(path, FORMAT, header, encoder.arrays)


def read(path, signature: str) -> tuple[float, list[dict]]:
    """(t, parts) of the State file ``path``, as ``write`` was given them, after checking
    its format, version and that it was saved from a System with topology ``signature``.
    Raises StateMismatchError naming what is wrong; reads no pickle."""
    header, arrays = read_archive(path, FORMAT, "State.load")
    try:
        return decode_state(header, arrays, signature, f"State.load: {path}")
    except (KeyError, ValueError, TypeError) as error:
        raise StateMismatchError(
            f"State.load: {path} is damaged: {type(error).__name__} {error}.") from None


def like(default, value):
    """``value`` as loaded, given the class of the System's ``default`` value where that
    is a named tuple (the file stores named tuples as tuples)."""
    if isinstance(default, tuple) and hasattr(default, "_fields") and \
            type(value) is tuple and len(value) == len(default):
        return type(default)._make(value)
    return value
