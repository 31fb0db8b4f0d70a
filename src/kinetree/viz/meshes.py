"""Triangle meshes for decorations: read from files or taken from contact geometry.

``read_mesh`` reads OBJ, STL, PLY, OFF and GLB through trimesh and VTK's XML PolyData
(.vtp in ascii, the format of OpenSim's bone meshes) with its own reader. Both only parse data: a
mesh file never runs code. Polygons of more than three vertices are split into fans.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

import numpy as np

from kinetree.errors import InvalidArgumentError

TRIMESH_SUFFIXES = (".obj", ".stl", ".ply", ".off", ".glb", ".gltf")


def as_triangles(mesh, where: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3) float, faces (m, 3) int) of a path, a ContactGeometry.TriangleMesh,
    a trimesh.Trimesh or a (vertices, faces) pair, checked."""
    if isinstance(mesh, (str, Path)):
        vertices, faces = read_mesh(mesh)
    elif hasattr(mesh, "get_vertices") and hasattr(mesh, "get_faces"):
        vertices, faces = mesh.get_vertices(), mesh.get_faces()
    elif hasattr(mesh, "vertices") and hasattr(mesh, "faces"):
        vertices, faces = mesh.vertices, mesh.faces
    elif isinstance(mesh, (tuple, list)) and len(mesh) == 2:
        vertices, faces = mesh
    else:
        raise InvalidArgumentError(
            f"{where}: expected a mesh file path, a ContactGeometry.TriangleMesh, a "
            f"trimesh.Trimesh or a (vertices, faces) pair, got {type(mesh).__name__}.")
    vertices = np.asarray(vertices, dtype=float)
    faces = np.asarray(faces)
    if vertices.ndim != 2 or vertices.shape[1] != 3 or not np.all(np.isfinite(vertices)):
        raise InvalidArgumentError(
            f"{where}: vertices must be finite, of shape (n, 3), got shape {vertices.shape}.")
    if (faces.ndim != 2 or faces.shape[1] != 3 or faces.size == 0
            or not np.issubdtype(faces.dtype, np.integer)
            or faces.min() < 0 or faces.max() >= len(vertices)):
        raise InvalidArgumentError(
            f"{where}: faces must be a non-empty (m, 3) array of vertex indices in "
            f"[0, {len(vertices)}), got shape {faces.shape}.")
    return vertices, faces.astype(np.int64)


def read_mesh(path) -> tuple[np.ndarray, np.ndarray]:
    """The triangles of a mesh file: (vertices (n, 3), faces (m, 3))."""
    path = Path(path)
    if not path.is_file():
        raise InvalidArgumentError(f"read_mesh: no mesh file at {path}.")
    suffix = path.suffix.lower()
    if suffix == ".vtp":
        return read_vtp(path)
    if suffix in TRIMESH_SUFFIXES:
        import trimesh

        try:
            mesh = trimesh.load(path, force="mesh", process=False)
        except Exception as error:
            raise InvalidArgumentError(f"read_mesh: could not read {path}: {error}") from None
        return np.asarray(mesh.vertices, dtype=float), np.asarray(mesh.faces, dtype=np.int64)
    raise InvalidArgumentError(
        f"read_mesh: {path.name} is not a mesh format kinetree reads; use one of .vtp, "
        f"{', '.join(TRIMESH_SUFFIXES)}.")


_VTK_TYPES = {"Float32": "<f4", "Float64": "<f8", "Int8": "<i1", "UInt8": "<u1",
              "Int16": "<i2", "UInt16": "<u2", "Int32": "<i4", "UInt32": "<u4",
              "Int64": "<i8", "UInt64": "<u8"}


def _vtk_array(node, path: Path) -> np.ndarray:
    """The values of one ascii DataArray element."""
    dtype = _VTK_TYPES.get(node.get("type", ""))
    if dtype is None:
        raise InvalidArgumentError(
            f"read_vtp: {path.name} has a DataArray of type {node.get('type')!r}, which "
            f"kinetree does not read.")
    if node.get("format", "ascii") != "ascii":
        raise InvalidArgumentError(
            f"read_vtp: {path.name} stores its data as {node.get('format')!r}; kinetree "
            f"reads ascii .vtp files (OpenSim's); convert it to ascii .vtp or to .stl/.obj "
            f"(ParaView or trimesh can).")
    try:
        return np.array((node.text or "").split(), dtype=float).astype(dtype)
    except ValueError:
        raise InvalidArgumentError(
            f"read_vtp: {path.name} has a DataArray that is not a list of numbers.") from None


def read_vtp(path) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and triangles of a VTK XML PolyData file (its Points and Polys; strips,
    lines and vertices are not surfaces and are left out)."""
    path = Path(path)
    try:
        root = ElementTree.parse(path).getroot()
    except ElementTree.ParseError as error:
        raise InvalidArgumentError(f"read_vtp: {path.name} is not valid XML: {error}") from None
    if root.get("type") != "PolyData":
        raise InvalidArgumentError(
            f"read_vtp: {path.name} is a VTK {root.get('type')!r} file, not PolyData.")
    vertices, faces = [], []
    offset = 0
    for piece in root.iter("Piece"):
        points = piece.find("Points/DataArray")
        polys = piece.find("Polys")
        if points is None:
            continue
        p = _vtk_array(points, path).astype(float).reshape(-1, 3)
        vertices.append(p)
        if polys is not None:
            arrays = {a.get("Name"): _vtk_array(a, path)
                      for a in polys.iter("DataArray")}
            if "connectivity" not in arrays or "offsets" not in arrays:
                raise InvalidArgumentError(
                    f"read_vtp: {path.name} has Polys without connectivity and offsets.")
            connectivity = arrays["connectivity"].astype(np.int64) + offset
            ends = arrays["offsets"].astype(np.int64)
            starts = np.concatenate([[0], ends[:-1]])
            if np.all(ends - starts == 3):
                faces.extend(connectivity.reshape(-1, 3))
                offset += len(p)
                continue
            for start, end in zip(starts, ends):
                polygon = connectivity[start:end]
                for k in range(1, len(polygon) - 1):
                    faces.append((polygon[0], polygon[k], polygon[k + 1]))
        offset += len(p)
    if not vertices or not faces:
        raise InvalidArgumentError(f"read_vtp: {path.name} has no polygons to draw.")
    return np.concatenate(vertices), np.array(faces, dtype=np.int64)
