"""State files: a State's time, variables and discrete variables in a zip of numpy arrays
(numpy's ``.npz``) with a JSON header, read without pickle, so that loading a file from
someone else never runs code.

The header (member ``header``, a string) is checked before anything else is read: the
format name, its version and the System's topology signature. Discrete variables are
stored as JSON where they are plain values (None, bool, int, float, str, and lists,
tuples, named tuples and string-keyed dicts of them) and as arrays where they are numpy arrays or
numpy scalars of numbers or bools; any other value is refused when saving, naming the
subsystem and the variable.

A file from someone else is read within bounds: before anything is decompressed, the
sizes its zip declares and the shape and dtype in each array's ``.npy`` header are checked
against a bound derived from the System (``size_limit``), and only arrays of numbers are
read, each exactly as large as its header says. What was read must then fit the System:
``decode_state`` checks the header's form, the time and q, u, z; ``State._load_parts``
checks the sizes and each discrete variable (``mismatch``, through its subsystem's
``check_loaded_discrete_variable``).
"""

from __future__ import annotations

import cmath
import json
import math
import reprlib
import zipfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy

from kinetree.errors import InvalidArgumentError, StateMismatchError

FORMAT, VERSION = "kinetree.State", 1
_HEADER = "header"
_NUMERIC_KINDS = "biufc"
_FLOAT = np.dtype(float)
MAX_DEPTH = 32
"""How deeply a value in a file may nest lists, tuples and dicts."""
MARGIN, ALLOWANCE = 16, 4 << 20
"""A State file may hold and declare at most MARGIN times the bytes of its System's
default State plus ALLOWANCE bytes (``size_limit``): room for what a State grows by as it
runs (thermostat chains, delay buffers) and for the header."""
DAMAGED = "the file is damaged (changed after kinetree wrote it) or not from kinetree"
# What the zip and .npy readers raise on bytes they cannot make sense of.
_READ_ERRORS = (OSError, EOFError, ValueError, NotImplementedError, RuntimeError,
                zipfile.BadZipFile, zlib.error)
_show = reprlib.Repr()
_show.maxstring = _show.maxother = 40


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
    """A value as ``Encoder.encode`` wrote it, its arrays from ``arrays``. Raises
    ValueError saying what is wrong with a value no Encoder writes (one nested deeper than
    MAX_DEPTH, or naming an array the file does not hold)."""
    return _decode(value, arrays, 0)


def _decode(value, arrays, depth: int):
    if not isinstance(value, (dict, list)):
        return value
    if isinstance(value, list) or len(value) != 1:
        raise ValueError(f"is {_show.repr(value)}, which no State file holds")
    if depth >= MAX_DEPTH:
        raise ValueError(f"nests lists, tuples or dicts more than {MAX_DEPTH} deep")
    (kind, content), = value.items()
    if kind in ("array", "scalar"):
        if not isinstance(content, str) or content not in arrays:
            raise ValueError(f"names the array {_show.repr(content)}, which the file does "
                             f"not hold")
        array = arrays[content]
        if kind == "array":
            return array
        if array.ndim:
            raise ValueError(f"names the array {content!r} of shape {array.shape} as a "
                             f"number")
        return array[()]
    if kind in ("list", "tuple") and isinstance(content, list):
        items = [_decode(v, arrays, depth + 1) for v in content]
        return items if kind == "list" else tuple(items)
    if kind == "dict" and isinstance(content, dict):
        return {k: _decode(v, arrays, depth + 1) for k, v in content.items()}
    raise ValueError(f"is {_show.repr(value)}, which no State file holds")


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
    comes from a System with topology ``signature`` and has the form ``encode_state``
    gives it: a finite time, and for each subsystem a name, q, u and z as float64 vectors
    of finite numbers, and its discrete variables as (stage name, value). Raises
    StateMismatchError naming what is wrong."""
    def refuse(what: str):
        return StateMismatchError(f"{where}: {what}; {DAMAGED}.")

    if not isinstance(header, dict):
        raise refuse(f"its State is {_show.repr(header)}, not a record of one")
    if header.get("signature") != signature:
        raise StateMismatchError(
            f"{where} was saved from a System with a different topology (signature "
            f"{str(header.get('signature'))[:12]}…, this System has {signature[:12]}…); "
            f"load it with the System that saved it.")
    t = header.get("t")
    if not _finite_real(t):
        raise refuse(f"its time t = {_show.repr(t)} is not a finite number")
    if not isinstance(header.get("parts"), list):
        raise refuse("its header has no list of subsystems ('parts')")
    parts = []
    for i, part in enumerate(header["parts"]):
        if not (isinstance(part, dict) and isinstance(part.get("name"), str)
                and isinstance(part.get("discrete"), list)):
            raise refuse(f"subsystem {i} in its header is not a record of its name and "
                         f"discrete variables")
        record = {"name": part["name"]}
        name = describe(part["name"])
        for key in ("q", "u", "z"):
            a = arrays.get(f"p{i}_{key}")
            if a is None or a.dtype != _FLOAT or a.ndim != 1:
                held = "missing" if a is None else f"a {a.dtype} array of shape {a.shape}"
                raise refuse(f"the {key} of subsystem {name} is {held}, not a float64 "
                             f"vector")
            finite = np.isfinite(a)
            if not finite.all():
                k = int(np.argmin(finite))
                raise refuse(f"{key}[{k}] of subsystem {name} is {a[k]}, not a finite "
                             f"number")
            record[key] = a
        record["discrete"] = []
        for j, entry in enumerate(part["discrete"]):
            variable = f"discrete variable {j} of subsystem {name}"
            if not (isinstance(entry, list) and len(entry) == 2
                    and isinstance(entry[0], str)):
                raise refuse(f"{variable} is not a [stage, value] pair")
            try:
                record["discrete"].append((entry[0], decode(entry[1], arrays)))
            except ValueError as error:
                raise refuse(f"{variable} {error}") from None
        parts.append(record)
    return float(t), parts


def write_archive(path, kind: str, header: dict, arrays: dict) -> None:
    """Write a kinetree file of ``kind`` (its format name): ``header`` (JSON) and arrays."""
    header = {"format": kind, "version": VERSION, **header}
    with open(Path(path), "wb") as f:
        np.savez(f, **{_HEADER: np.array(json.dumps(header))}, **arrays)


def read_archive(path, kind: str, where: str,
                 limit: int | None = None) -> tuple[dict, dict]:
    """(header, arrays) of the kinetree file ``path`` of ``kind``, after checking its
    format and version before reading anything else. The file, the uncompressed sizes its
    zip declares and the arrays its .npy headers declare may not exceed ``limit`` bytes
    (MARGIN times ALLOWANCE if None); this is checked before anything is decompressed.
    Raises StateMismatchError naming what is wrong; reads no pickle, and no array but of
    numbers."""
    what = f"a kinetree {kind.split('.')[-1]} file"
    limit = MARGIN * ALLOWANCE if limit is None else limit
    path = Path(path)
    if not path.is_file():
        raise StateMismatchError(f"{where}: there is no file {path}.")
    too_large = (f"a file of this kind may hold at most {limit} bytes; it is refused "
                 f"unread (a genuine one that large needs a larger "
                 f"kinetree.system.state_file.ALLOWANCE, now {ALLOWANCE})")
    size = path.stat().st_size
    if size > limit:
        raise StateMismatchError(f"{where}: {path} is {size} bytes: {too_large}.")
    try:
        archive = zipfile.ZipFile(path)
    except _READ_ERRORS as error:
        raise StateMismatchError(
            f"{where}: {path} is not {what} ({error}). Files of kinetree before version 1 "
            f"of its file format (pickles) are not read, since loading a pickle can run "
            f"code.") from None
    with archive:
        members = _members(archive, f"{where}: {path}")
        declared = sum(info.file_size for info in members.values())
        if declared > limit:
            raise StateMismatchError(
                f"{where}: {path} declares {declared} bytes once uncompressed: "
                f"{too_large}.")
        if _HEADER not in members:
            raise StateMismatchError(f"{where}: {path} is not {what}.")
        text = _read_member(archive, members.pop(_HEADER), f"{where}: {path}", "U")
        if text.shape != () or text.dtype.kind != "U":
            raise StateMismatchError(f"{where}: {path} is not {what}.")
        codes = text.reshape(1).view(np.dtype("u4").newbyteorder(text.dtype.byteorder))
        if (codes > 0x10FFFF).any():
            raise StateMismatchError(
                f"{where}: the header of {path} is not text (it holds the character code "
                f"{int(codes.max())}); {DAMAGED}.")
        try:
            header = json.loads(str(text))
        except ValueError as error:
            raise StateMismatchError(
                f"{where}: the header of {path} is not JSON ({_show.repr(str(error))}); "
                f"{DAMAGED}.") from None
        except RecursionError:
            raise StateMismatchError(
                f"{where}: the header of {path} nests lists or objects too deeply to "
                f"read; {DAMAGED}.") from None
        if not isinstance(header, dict) or header.get("format") != kind:
            raise StateMismatchError(f"{where}: {path} is not {what}.")
        if header.get("version") != VERSION:
            raise StateMismatchError(
                f"{where}: {path} is {what} of version {_show.repr(header.get('version'))};"
                f" this kinetree reads version {VERSION}. Load it with the kinetree that "
                f"wrote it.")
        return header, {name: _read_member(archive, info, f"{where}: {path}", "")
                        for name, info in members.items()}


def _members(archive: zipfile.ZipFile, where: str) -> dict[str, zipfile.ZipInfo]:
    """The zip's members by array name, each a .npy as numpy's savez writes them."""
    members = {}
    for info in archive.infolist():
        name = info.filename
        if not name.endswith(".npy"):
            raise StateMismatchError(f"{where} holds a member {_show.repr(name)} that is "
                                     f"not a .npy array; {DAMAGED}.")
        if name[:-4] in members:
            raise StateMismatchError(f"{where} holds the member {name!r} twice; {DAMAGED}.")
        if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            raise StateMismatchError(
                f"{where}: its member {name!r} is compressed by method "
                f"{info.compress_type}, which numpy never writes; {DAMAGED}.")
        members[name[:-4]] = info
    return members


def _read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, where: str,
                 text: str) -> np.ndarray:
    """The array in member ``info``, read after checking its .npy header: an array of
    numbers (or of strings of kind ``text``, for the header) whose declared shape and
    dtype account for the member's size exactly."""
    def refuse(what: str):
        return StateMismatchError(f"{where}: its member {info.filename!r} {what}; "
                                  f"{DAMAGED}.")

    try:
        with archive.open(info) as f:
            version = npy.read_magic(f)
            if version not in ((1, 0), (2, 0)):
                raise refuse(f"is a .npy file of version {version}, which numpy writes "
                             f"only for arrays a State file never holds")
            read_header = (npy.read_array_header_1_0 if version == (1, 0) else
                           npy.read_array_header_2_0)
            shape, fortran, dtype = read_header(f)
            if dtype.hasobject or dtype.fields or dtype.subdtype or \
                    dtype.kind not in _NUMERIC_KINDS + text or dtype.itemsize == 0:
                raise refuse(f"holds {dtype.str} values, not numbers")
            if any(n < 0 for n in shape):
                raise refuse(f"declares the shape {shape}")
            nbytes = math.prod(shape) * dtype.itemsize
            if f.tell() + nbytes != info.file_size:
                raise refuse(f"declares a {dtype} array of shape {_show.repr(shape)} "
                             f"({nbytes} bytes) in {info.file_size - f.tell()} bytes")
            data = np.empty(nbytes, dtype=np.uint8)
            if f.readinto(data) != nbytes:
                raise refuse("ends early")
        return data.view(dtype).reshape(shape, order="F" if fortran else "C")
    except StateMismatchError:
        raise
    except _READ_ERRORS as error:
        raise refuse(f"is unreadable ({_show.repr(str(error))})") from None


def write(path, signature: str, t: float, parts: list[dict]) -> None:
    """Write a State file (``encode_state``'s arguments)."""
    encoder = Encoder()
    header = encode_state(encoder, signature, t, parts)
    write_archive(path, FORMAT, header, encoder.arrays)


def read(path, signature: str, limit: int) -> tuple[float, list[dict]]:
    """(t, parts) of the State file ``path``, as ``write`` was given them, after checking
    its format, version, size (at most ``limit`` bytes) and that it was saved from a
    System with topology ``signature``. Raises StateMismatchError naming what is wrong;
    reads no pickle."""
    header, arrays = read_archive(path, FORMAT, "State.load", limit)
    return decode_state(header, arrays, signature, f"State.load: {path}")


def size_limit(parts: list[dict]) -> int:
    """The most bytes a State file may hold or declare for the System whose default State
    has ``parts`` (as ``encode_state`` takes them): MARGIN times what that State holds,
    plus ALLOWANCE."""
    held = sum(8 * (len(p["q"]) + len(p["u"]) + len(p["z"]))
               + sum(_footprint(value, 0) for _, value in p["discrete"]) for p in parts)
    return MARGIN * held + ALLOWANCE


def _footprint(value, depth: int) -> int:
    """About the bytes ``value`` takes in a State file."""
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, (list, tuple, dict)) and depth < MAX_DEPTH:
        items = value.values() if isinstance(value, dict) else value
        return sum(_footprint(v, depth + 1) for v in items)
    return 64


def like(default, value):
    """``value`` as loaded, given the class of the System's ``default`` value where that
    is a named tuple (the file stores named tuples as tuples)."""
    if isinstance(default, tuple) and hasattr(default, "_fields") and \
            type(value) is tuple and len(value) == len(default):
        return type(default)._make(value)
    return value


def same(a, b) -> bool:
    """Whether two values of the kinds a State file holds are equal: of one class, with
    equal contents (arrays also of one dtype and shape; a NaN is unequal to itself)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and bool(np.all(a == b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if a is None or isinstance(a, (bool, int, float, str, complex, np.generic)):
        return bool(a == b)
    return False


def mismatch(value, default, at: str = "its value") -> str | None:
    """What makes ``value``, read from a file, unfit to replace ``default``, the System's
    own value of a discrete variable, or None if nothing does. A file may change a value,
    but not its kind (bool, integer, real number, string, array, list or tuple, dict),
    an array's dtype or, unless the default is empty, its shape, a list's length or a
    dict's keys; nor make a finite number non-finite. A default of None, or an empty
    array, list or dict, is a placeholder a State fills as it runs (a delay's buffer):
    the file's value is taken there as it is, but for an array's dtype; so is a named
    tuple's field annotated ``object`` or ``Any``."""
    if default is None:
        return None
    if isinstance(default, (bool, np.bool_)):
        return None if isinstance(value, (bool, np.bool_)) else \
            f"{at} is {describe(value)}, not a bool (true or false)"
    if isinstance(default, (int, np.integer)):
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                or not -2 ** 63 <= value < 2 ** 63:
            return f"{at} is {describe(value)}, not an integer of 64 bits"
        return None
    if isinstance(default, (float, complex, np.inexact)):
        kinds = (int, float, np.integer, np.floating) if np.isrealobj(default) else \
            (int, float, complex, np.number)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, kinds):
            real = "real " if np.isrealobj(default) else ""
            return f"{at} is {describe(value)}, not a {real}number"
        try:
            number = complex(value)
        except OverflowError:
            return f"{at} is {describe(value)}, more than a float holds"
        if np.isfinite(default) and not cmath.isfinite(number):
            return f"{at} is {describe(value)}, not a finite number"
        return None
    if isinstance(default, str):
        return None if isinstance(value, str) else f"{at} is {describe(value)}, not a string"
    if isinstance(default, np.ndarray):
        return _array_mismatch(value, default, at)
    if isinstance(default, (list, tuple)):
        named = hasattr(default, "_fields")
        if not isinstance(value, (list, tuple)) or named and type(value) is not tuple:
            return f"{at} is {describe(value)}, not a {'tuple' if named else 'list'}"
        if default and len(value) != len(default):
            return f"{at} has {len(value)} items; this System's has {len(default)}"
        free = _free_fields(type(default)) if named else ()
        for i, (v, d) in enumerate(zip(value, default)):
            problem = None if named and default._fields[i] in free else \
                mismatch(v, d, f"{at}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(default, dict):
        if not isinstance(value, dict):
            return f"{at} is {describe(value)}, not a dict"
        if default and value.keys() != default.keys():
            return (f"{at} has the keys {_show.repr(sorted(map(str, value)))}; this System's "
                    f"has {_show.repr(sorted(map(str, default)))}")
        for key in default:
            problem = mismatch(value[key], default[key], f"{at}[{key!r}]")
            if problem:
                return problem
        return None
    return (f"{at} is {describe(value)}, where this System holds a "
            f"{type(default).__name__}, which no State file stores")


def _free_fields(named_tuple: type) -> set[str]:
    """The fields ``named_tuple`` annotates ``object`` or ``Any``: what it holds there
    may take any form (a derivative estimate of a scalar or a vector)."""
    return {name for name, kind in getattr(named_tuple, "__annotations__", {}).items()
            if getattr(kind, "__forward_arg__", kind) in ("object", "Any", object, Any)}


def _array_mismatch(value, default: np.ndarray, at: str) -> str | None:
    """``mismatch`` for an array ``default``."""
    if not isinstance(value, np.ndarray):
        return f"{at} is {describe(value)}, not an array"
    if value.dtype != default.dtype:
        return f"{at} is {describe(value)}; this System's is a {default.dtype} array"
    if default.size == 0:
        return None
    if value.shape != default.shape:
        return f"{at} has shape {value.shape}; this System's has shape {default.shape}"
    if default.dtype.kind in "fc":
        bad = np.isfinite(default) & ~np.isfinite(value)
        if bad.any():
            k = np.unravel_index(int(np.argmax(bad)), bad.shape)
            return f"{at}[{', '.join(map(str, k))}] is {value[k]}, not a finite number"
    return None


def describe(value) -> str:
    """``value``, read from a file, in a few words for a message."""
    if isinstance(value, np.ndarray):
        return f"a {value.dtype} array of shape {_show.repr(value.shape)}"
    return _show.repr(value)


def _finite_real(x) -> bool:
    """Whether ``x`` is a Python int or float of finite value (a float can hold)."""
    try:
        return type(x) in (int, float) and math.isfinite(x)
    except OverflowError:
        return False
