"""OpenSim 3.x model files (Version 30000 to 30499), rewritten into the 4.x layout that
``load_osim`` reads, the way OpenSim 4 rewrites them when it opens one (the
``updateFromXMLNode`` methods of OpenSim's Model, Body, Joint, PhysicalFrame, Marker, the
constraints, forces and contact geometry):

- the Body named "ground" becomes the model's Ground (its geometry kept);
- each Body's ``<inertia_xx>``..``<inertia_yz>`` become one ``<inertia>`` (a missing
  moment 1, a missing product 0, as OpenSim fills them);
- each Body's Joint moves to a new JointSet, in the BodySet's order: its parent frame a
  PhysicalOffsetFrame ``<parent>_offset`` on ``<parent_body>`` at
  ``location_in_parent``/``orientation_in_parent``, its child frame ``<body>_offset`` on
  the body at ``location``/``orientation``; ``<reverse>true</reverse>`` swaps the two;
  the CoordinateSet becomes ``<coordinates>``; a TransformAxis's ``<function>`` wrapper
  is unwrapped;
- markers, point, distance and point-on-line constraints, PointToPointSprings and contact
  geometry name their bodies by path (``/bodyset/<name>``, ``/ground``); a WeldConstraint
  or BushingForce gets an offset frame ``<body>_offset`` for each non-zero
  ``location_body_k``/``orientation_body_k``;
- ``isDisabled`` becomes ``isEnforced`` (constraints) or ``appliesForce`` (forces),
  negated;
- a body's VisibleObject (its GeometrySet of DisplayGeometry files, their scale factors,
  colour, opacity, and transforms) becomes Mesh geometry, on an offset frame where the
  transforms are not the identity.

OpenSim writes the numbers it moves into new elements (the joints' and the two-frame
elements' offsets, the inertias) with C++'s default six significant digits, so the
converted model differs from the file beyond that; the same rounding is done here, so
that kinetree builds the model OpenSim builds. Marker locations, masses and mass centres
are kept as written.

What is not converted (3.x ComponentSet elements) is returned for ``model.skipped``.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform

__all__ = ["convert"]

_BODY_SOCKETS = {
    "PointConstraint": ("body_1", "body_2"),
    "ConstantDistanceConstraint": ("body_1", "body_2"),
    "PointOnLineConstraint": ("line_body", "follower_body"),
    "PointToPointSpring": ("body1", "body2"),
}
"""The elements whose 3.x ``<name>`` body elements become 4.x ``<socket_name>`` paths."""


def convert(model: ET.Element) -> list[str]:
    """Rewrite the <Model> element ``model`` of an OpenSim 3.x file in place into the 4.x
    layout; returns the elements not converted, each with why."""
    skipped: list[str] = []
    _ground_and_joints(model)
    for body in _objects(model, "BodySet"):
        _inertia(body)
    for owner in [model.find("Ground")] + _objects(model, "BodySet"):
        if owner is not None:
            _geometry(owner)
    for marker in _objects(model, "MarkerSet"):
        _socket_from(marker, "body", "socket_parent_frame")
    for set_name, enabled in (("ConstraintSet", "isEnforced"), ("ForceSet", "appliesForce")):
        for e in _objects(model, set_name):
            _negate(e, "isDisabled", enabled)
            for old_tag in _BODY_SOCKETS.get(e.tag, ()):
                _socket_from(e, old_tag, f"socket_{old_tag}")
            if e.tag in ("WeldConstraint", "BushingForce"):
                _two_frames(e)
    for g in _objects(model, "ContactGeometrySet"):
        _socket_from(g, "body_name", "socket_frame")
    for e in _objects(model, "ComponentSet"):
        skipped.append(f"{e.tag} {e.get('name')!r} (in a 3.x ComponentSet, which is not "
                       "converted)")
    return skipped


# ---------------------------------------------------------------------- helpers
def _objects(model, set_name: str) -> list:
    found = model.find(f"{set_name}/objects")
    return [] if found is None else list(found)


def _text(element, tag: str, default: str = "") -> str:
    found = element.find(tag)
    return default if found is None or found.text is None else found.text.strip()


def _vec(element, tag: str, n: int = 3) -> np.ndarray:
    """The numbers of ``tag`` (zeros when absent); left for load_osim to refuse when
    malformed, as a 4.x file's would be."""
    text = _text(element, tag)
    try:
        values = np.array([float(v) for v in text.split()], dtype=float)
    except ValueError:
        return np.full(n, np.nan)
    if values.size == 0:
        return np.zeros(n)
    return values if values.size == n else np.full(n, np.nan)


def _g(values) -> str:
    """Numbers as C++'s ostream writes a double by default (printf's %g: six
    significant digits), as OpenSim writes the elements it creates."""
    return " ".join(format(float(v), "g") for v in values)


def _path(body: str) -> str:
    """A 3.x body name as the 4.x path of that body (XMLDocument::updateConnecteePath30517)."""
    return "/ground" if body == "ground" else f"/bodyset/{body}"


def _sub(parent, tag: str, text: str | None = None, **attributes) -> ET.Element:
    e = ET.SubElement(parent, tag, attributes)
    if text is not None:
        e.text = text
    return e


def _remove(element, *tags: str) -> None:
    for tag in tags:
        for found in element.findall(tag):
            element.remove(found)


def _socket_from(element, old: str, socket: str) -> None:
    """``<old>body</old>`` as ``<socket>/bodyset/body</socket>``."""
    found = element.find(old)
    if found is None:
        return
    element.remove(found)
    _sub(element, socket, _path((found.text or "").strip()))


def _negate(element, old: str, new: str) -> None:
    found = element.find(old)
    if found is None:
        return
    found.tag = new
    found.text = "false" if (found.text or "").strip().lower() in ("true", "1") else "true"


def _offset_frame(frames, name: str, body: str, location, orientation) -> None:
    """A PhysicalOffsetFrame on ``body`` (XMLDocument::addPhysicalOffsetFrame30505_30517),
    its numbers rounded as OpenSim writes them."""
    frame = _sub(frames, "PhysicalOffsetFrame", name=name)
    _sub(frame, "socket_parent", _path(body))
    _sub(frame, "translation", _g(location))
    _sub(frame, "orientation", _g(orientation))


# ---------------------------------------------------------------------- bodies
def _inertia(body) -> None:
    if body.find("inertia") is not None:
        return
    tags = ("inertia_xx", "inertia_yy", "inertia_zz", "inertia_xy", "inertia_xz",
            "inertia_yz")
    values = [1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
    for k, tag in enumerate(tags):
        text = _text(body, tag)
        if text:
            try:
                values[k] = float(text)
            except ValueError:
                values[k] = float("nan")
    _remove(body, *tags)
    _sub(body, "inertia", _g(values))


def _ground_and_joints(model) -> None:
    """Model::updateFromXMLNode: Ground out of the BodySet, the Joints into a JointSet
    after it; then each joint's own update (Joint::updateFromXMLNode)."""
    if model.find("JointSet") is not None:
        return
    bodyset = model.find("BodySet")
    children = list(model)
    jointset = ET.Element("JointSet", {"name": "jointset"})
    objects = _sub(jointset, "objects")
    at = children.index(bodyset) + 1 if bodyset is not None else len(children)
    model.insert(at, jointset)
    bodies = _objects(model, "BodySet")
    container = None if bodyset is None else bodyset.find("objects")
    for body in bodies:
        if body.get("name") == "ground":
            ground = ET.Element("Ground", {"name": "ground"})
            for tag in ("VisibleObject", "WrapObjectSet"):
                found = body.find(tag)
                if found is not None:
                    ground.append(found)
            container.remove(body)
            model.insert(list(model).index(bodyset), ground)
            break
    for body in _objects(model, "BodySet"):
        holder = body.find("Joint")
        if holder is None:
            continue
        body.remove(holder)
        joint = next(iter(holder), None)
        if joint is None:
            continue
        objects.append(joint)
        _joint(joint, _text(joint, "parent_body", "ground"), body.get("name"))


def _joint(joint, parent: str, child: str) -> None:
    """One 3.x joint (the child ``child``'s, from ``parent``) in the 4.x layout."""
    p_loc, p_ori = _vec(joint, "location_in_parent"), _vec(joint, "orientation_in_parent")
    c_loc = _vec(joint, "location_in_child" if joint.find("location_in_child") is not None
                 else "location")
    c_ori = _vec(joint, "orientation_in_child" if joint.find("orientation_in_child")
                 is not None else "orientation")
    reverse = _text(joint, "reverse").lower() in ("true", "1")
    coordinates = joint.findall("CoordinateSet/objects/Coordinate")
    _remove(joint, "parent_body", "location_in_parent", "orientation_in_parent", "location",
            "orientation", "location_in_child", "orientation_in_child", "reverse",
            "CoordinateSet")
    sockets = [f"{parent}_offset", f"{child}_offset"]
    if reverse:
        sockets.reverse()
    _sub(joint, "socket_parent_frame", sockets[0])
    _sub(joint, "socket_child_frame", sockets[1])
    listed = _sub(joint, "coordinates")
    for c in coordinates:
        _remove(c, "motion_type")
        listed.append(c)
    frames = _sub(joint, "frames")
    _offset_frame(frames, f"{parent}_offset", parent, p_loc, p_ori)
    _offset_frame(frames, f"{child}_offset", child, c_loc, c_ori)
    for axis in joint.findall("SpatialTransform/TransformAxis"):
        wrapper = axis.find("function")
        inner = None if wrapper is None else next(iter(wrapper), None)
        if inner is not None:
            axis.remove(wrapper)
            inner.set("name", "function")
            axis.append(inner)


# ------------------------------------------------------------ two-frame elements
def _two_frames(element) -> None:
    """TwoFrameLinker::updateFromXMLNode: body_k at location_body_k and
    orientation_body_k as socket_frame_k, through an offset frame ``<body>_offset`` owned
    by the element where the offset is not zero."""
    frames = element.find("frames")
    for k in (1, 2):
        body = _text(element, f"body_{k}")
        location = _vec(element, f"location_body_{k}")
        orientation = _vec(element, f"orientation_body_{k}")
        _remove(element, f"body_{k}", f"location_body_{k}", f"orientation_body_{k}")
        if np.any(location != 0) or np.any(orientation != 0):
            if frames is None:
                frames = _sub(element, "frames")
            _offset_frame(frames, f"{body}_offset", body, location, orientation)
            _sub(element, f"socket_frame{k}", f"{body}_offset")
        else:
            _sub(element, f"socket_frame{k}", _path(body))


# ---------------------------------------------------------------------- geometry
def _geometry(owner) -> None:
    """PhysicalFrame::updateFromXMLNode: the VisibleObject's DisplayGeometry as
    Mesh elements, each on the body or, where its transform and the VisibleObject's are
    not the identity, on an offset frame at their composition."""
    visible = owner.find("VisibleObject")
    if visible is None:
        return
    owner.remove(visible)
    outer_scale = _vec(visible, "scale_factors") if visible.find("scale_factors") \
        is not None else np.ones(3)
    outer = _vec(visible, "transform", 6)
    shapes = visible.findall("GeometrySet/objects/DisplayGeometry")
    if not shapes:
        return
    name = owner.get("name")
    attached = owner.find("attached_geometry")
    if attached is None:
        attached = _sub(owner, "attached_geometry")
    for k, shape in enumerate(shapes, start=1):
        inner = _vec(shape, "transform", 6)
        scale = _vec(shape, "scale_factors") if shape.find("scale_factors") is not None \
            else np.ones(3)
        mesh = ET.Element("Mesh", {"name": f"{name}_geom_{k}"})
        _sub(mesh, "mesh_file", _text(shape, "geometry_file"))
        _sub(mesh, "scale_factors", _g(scale * outer_scale))
        appearance = _sub(mesh, "Appearance")
        for tag in ("color", "opacity"):
            found = shape.find(tag)
            if found is not None:
                appearance.append(found)
        if np.all(np.nan_to_num(inner) == 0) and np.all(np.nan_to_num(outer) == 0):
            attached.append(mesh)
            continue
        X = _six(outer) @ _six(inner)
        components = owner.find("components")
        if components is None:
            components = _sub(owner, "components")
        frame = _sub(components, "PhysicalOffsetFrame", name=f"{name}_geom_frame_{k}")
        _sub(frame, "socket_parent", "..")
        _sub(frame, "translation", _g(X.p))
        _sub(frame, "orientation", _g(X.R.convert_rotation_to_body_fixed_xyz()))
        _sub(frame, "attached_geometry").append(mesh)


def _six(v) -> Transform:
    """OpenSim's 3.x display transform: body-fixed x-y-z angles then a translation."""
    v = np.nan_to_num(np.asarray(v, dtype=float))
    return Transform(Rotation.from_body_fixed_xyz(v[:3]), v[3:])
