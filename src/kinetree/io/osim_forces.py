"""The force elements of an OpenSim model that kinetree can express, built the way OpenSim
builds them on Simbody (``load_osim`` with ``include_forces=True`` calls
:func:`build_forces`).

What each becomes:

- HuntCrossleyForce: a ``HuntCrossleyForce`` over one contact set of the model's
  ``GeneralContactSubsystem`` (``model.contact``), as OpenSim makes one per element: each
  geometry each ContactParameters names is added to the set, in the file's order, on the
  body of its frame at that frame's pose times its own location and orientation (body-fixed
  x-y-z), with the parameters' stiffness, dissipation and static, dynamic and viscous
  friction; the element's transition velocity. ElasticFoundationForce the same, the
  parameters given to the meshes only (OpenSim gives the other shapes none).
- ContactHalfSpace, ContactSphere (radius), ContactEllipsoid (radii) and ContactMesh (its
  file, looked for as mesh files are) the ``ContactGeometry`` HalfSpace, Sphere, Ellipsoid
  and TriangleMesh; built only where a contact force uses them, as in OpenSim. A half
  space meets an ellipsoid as Simbody's GeneralContactSubsystem has it meet one: the
  Hertz radius is that of the ellipsoid's central section parallel to the plane.
- SmoothSphereHalfSpaceForce: a ``Force.SmoothSphereHalfSpaceForce`` between its
  ``socket_sphere`` (a ContactSphere: its body, its frame's pose times its location,
  its orientation ignored as OpenSim ignores it, its radius) and its ``socket_half_space``
  (a ContactHalfSpace: its body, its frame's pose times its location and body-fixed x-y-z
  orientation), with the element's stiffness, dissipation, static, dynamic and viscous
  friction, transition_velocity, constant_contact_force, hertz_smoothing and
  hunt_crossley_smoothing (OpenSim's defaults 1, 0, 0, 0, 0, 0.01, 1e-5, 300, 50 where
  the file has none). Files of OpenSim 4.0-4.1 wrote ``derivative_smoothing`` for
  ``constant_contact_force``; OpenSim 4.6 ignores it (the default 1e-5 applies), and so
  does kinetree.
- CoordinateLimitForce: a ``Force.CoordinateLimitForce`` on the coordinate, its limits,
  transition, stiffnesses and damping converted from degrees for a rotational coordinate
  (limits and transition times π/180, stiffness and damping divided by it), as OpenSim
  converts them.
- BushingForce: a ``Force.LinearBushing`` between the bodies of its two frames (OpenSim
  builds Simbody's LinearBushing: the x-y-z angles and the translation of frame2 in frame1,
  stiffness and damping rotations first).
- SpringGeneralizedForce: a ``MobilityLinearSpring`` (stiffness, rest_length) and a
  ``MobilityLinearDamper`` (viscosity) on the coordinate, -k (q - q0) - c u as OpenSim's.
- PointToPointSpring: a ``TwoPointLinearSpring``; its points are taken in the bodies'
  frames even when a socket names an offset frame, as OpenSim passes them to Simbody.
- ExpressionBasedCoordinateForce: a ``Force.ExpressionBasedCoordinateForce`` on the
  coordinate, its expression as written (OpenSim's default ``0.0`` where the file has
  none): q in rad or m and qdot in rad/s or m/s, as OpenSim evaluates it, with no degree
  conversion; no potential energy, as OpenSim reports none. The expression is parsed as
  data, never executed.
- ExponentialContactForce (OpenSim 4.6): a ``Force.ExponentialSpringForce`` with the
  contact plane ``contact_plane_transform`` (body-fixed x-y-z angles, then the
  translation, in Ground), its ``Station``'s frame and location, and the parameters
  ``exponential_shape_parameters`` (d0, d1, d2), ``normal_viscosity``,
  ``max_normal_force``, ``friction_elasticity``, ``friction_viscosity``,
  ``settle_velocity``, ``initial_mu_static`` and ``initial_mu_kinetic`` set in that order,
  as OpenSim sets them (Simbody's defaults where the file has none); also read inside a
  ``contact_parameters`` block, as development builds before 4.6 wrote them. The
  station's location is in its frame, as the Station says: where that frame is an offset
  frame, OpenSim 4.6 hands the location to Simbody as if it were in the body's frame,
  kinetree puts the station where the Station is.

These are read from the ForceSet and from the Model's own ``<components>`` (where OpenSim
applies a force element just the same; Moco's example models keep their contact forces
there). An element whose ``appliesForce`` is false is built disabled by default, as OpenSim
builds it. Muscles and actuators are built by ``io/osim_actuators.py``; the other force types are
not built, and :func:`why_not_built` says why, for ``model.skipped``.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

import kinetree.io.osim as osim
from kinetree.contact import (
    ContactGeometry,
    ElasticFoundationForce,
    GeneralContactSubsystem,
    HuntCrossleyForce,
    TriangleMesh,
)
from kinetree.errors import InvalidArgumentError
from kinetree.forces import ExponentialSpringParameters, Force
from kinetree.io.files import within
from kinetree.math.rotation import Rotation
from kinetree.math.transform import Transform

__all__ = ["build_forces", "why_not_built"]

_CONTACT_FORCES = ("HuntCrossleyForce", "ElasticFoundationForce")
_BUILT = _CONTACT_FORCES + ("CoordinateLimitForce", "BushingForce", "SpringGeneralizedForce",
                            "PointToPointSpring", "ExpressionBasedCoordinateForce",
                            "SmoothSphereHalfSpaceForce", "ExponentialContactForce")
_SMOOTH_CONTACT = (("stiffness", 1.0), ("dissipation", 0.0), ("static_friction", 0.0),
                   ("dynamic_friction", 0.0), ("viscous_friction", 0.0),
                   ("transition_velocity", 0.01), ("constant_contact_force", 1e-5),
                   ("hertz_smoothing", 300.0), ("hunt_crossley_smoothing", 50.0))
"""SmoothSphereHalfSpaceForce's properties, in the order of Simbody's setParameters, with
OpenSim's defaults."""
_EXPONENTIAL_PARAMETERS = (("normal_viscosity", "set_normal_viscosity"),
                           ("max_normal_force", "set_max_normal_force"),
                           ("friction_elasticity", "set_friction_elasticity"),
                           ("friction_viscosity", "set_friction_viscosity"),
                           ("settle_velocity", "set_settle_velocity"),
                           ("initial_mu_static", "set_initial_mu_static"),
                           ("initial_mu_kinetic", "set_initial_mu_kinetic"))
"""ExponentialContactForce's properties after the shape, in the order OpenSim gives them
to Simbody's ExponentialSpringParameters (its updateParameters)."""
_ACTUATORS = ("CoordinateActuator", "PointActuator", "TorqueActuator", "BodyActuator",
              "PointToPointActuator", "McKibbenActuator", "ActivationCoordinateActuator",
              "SpringGeneralizedForce_Actuator")
_DEGREE = math.pi / 180.0


def why_not_built(element) -> str:
    """Why the ForceSet element ``element`` (an XML element) is not built."""
    tag = element.tag
    if "Muscle" in tag:
        return "kinetree has no such muscle model yet; the built ones are Thelen2003, " \
            "Millard2012Equilibrium, DeGrooteFregly2016, RigidTendon and " \
            "Schutte1993_Deprecated"
    if tag in ("Ligament", "Blankevoort1991Ligament"):
        return "ligaments are not built yet"
    if tag in _ACTUATORS or tag.endswith("Actuator"):
        return "kinetree has no such actuator yet; the built ones are CoordinateActuator, " \
            "PointActuator and TorqueActuator"
    return "kinetree has no such force element yet"


def build_forces(builder, model) -> list[str]:
    """Build the ForceSet elements of the .osim model ``builder`` reads that kinetree
    expresses (module docstring) into ``model``; returns the names built, the contact
    geometries they use included."""
    return _Forces(builder, model).build()


class _Forces:
    def __init__(self, builder, model):
        self.b, self.model = builder, model
        self.Error = osim.OsimError
        self.flag, self.number, self.numbers = osim._flag, osim._number, osim._numbers
        self.join = osim._join
        self.geometries = {g.get("name"): g
                           for g in osim._objects(builder.xml, "ContactGeometrySet")}
        # the ForceSet, then the force elements kept among the Model's own components
        # (where OpenSim Moco's models put their SmoothSphereHalfSpaceForces)
        components = builder.xml.find("components")
        self.in_components = [c for c in ([] if components is None else components)
                              if c.tag in _BUILT]
        self.elements = osim._objects(builder.xml, "ForceSet") + self.in_components
        self.built: list[str] = []

    def build(self) -> list[str]:
        for element in self.elements:
            if element.tag not in _BUILT:
                continue
            name = element.get("name")
            where = f"{element.tag} {name!r}"
            here = f"/{name}" if element in self.in_components else f"/forceset/{name}"
            force = getattr(self, "_" + element.tag)(element, where, here)
            for f in force:
                if not self.flag(element, "appliesForce", True):
                    f.set_disabled_by_default(True)
            self.model.force_elements[name] = force
            self.built.append(name)
        return self.built

    # ------------------------------------------------------------ helpers
    def _mobod(self, body_path: str):
        if body_path == "/ground":
            return self.model.matter.Ground()
        return self.model.bodies[body_path.rsplit("/", 1)[-1]]

    def _frame(self, element, socket: str, here: str, where: str):
        """(MobilizedBody, X_BF) of the frame the socket names."""
        path = (element.findtext(socket) or "").strip()
        if not path:
            raise self.Error(f"{where}: <{socket}> is missing.")
        body_path, X = self.b._resolve(self.join(here, path), f"{where} <{socket}>")
        return self._mobod(body_path), X

    def _coordinate(self, element, where: str):
        name = (element.findtext("coordinate") or "").strip()
        coordinate = self.model.coordinates.get(name)
        if coordinate is None:
            raise self.Error(f"{where}: names coordinate {name!r}, which the model does not "
                             "have.")
        return coordinate

    # ------------------------------------------------------------ contact
    def _contacts(self) -> GeneralContactSubsystem:
        if self.model.contact is None:
            self.model.contact = GeneralContactSubsystem(self.model.system)
        return self.model.contact

    def _geometry(self, name: str, where: str):
        """(MobilizedBody, ContactGeometry, X_BS, is a mesh) of the ContactGeometrySet
        entry ``name`` (or a path ending in it)."""
        g = self.geometries.get(name.rsplit("/", 1)[-1])
        if g is None:
            raise self.Error(f"{where}: names contact geometry {name!r}, which the "
                             "ContactGeometrySet does not have.")
        gname = g.get("name")
        gwhere = f"{g.tag} {gname!r}"
        mobod, X_BF = self._frame(g, "socket_frame", f"/contactgeometryset/{gname}", gwhere)
        X_FS = Transform(Rotation.from_body_fixed_xyz(
            self.numbers(g, "orientation", 3, gwhere, [0, 0, 0])),
            self.numbers(g, "location", 3, gwhere, [0, 0, 0]))
        if g.tag == "ContactHalfSpace":
            shape = ContactGeometry.HalfSpace()
        elif g.tag == "ContactSphere":
            radius = self.number(g, "radius", gwhere)
            if not radius > 0:
                raise self.Error(f"{gwhere}: the radius is {radius}; it must be > 0.")
            shape = ContactGeometry.Sphere(radius)
        elif g.tag == "ContactEllipsoid":
            radii = self.numbers(g, "radii", 3, gwhere)
            if not all(r > 0 for r in radii):
                raise self.Error(f"{gwhere}: the radii are {list(radii)}; each must be > 0.")
            shape = ContactGeometry.Ellipsoid(radii)
        elif g.tag == "ContactMesh":
            path = self._mesh_file(g, gwhere)
            try:
                shape = TriangleMesh.load(path)
            except (ValueError, OSError) as error:
                frame = (g.findtext("socket_frame") or "").strip()
                raise self.Error(
                    f"{self.b.path.name}: {gwhere} on {frame}, used by {where}: its mesh file "
                    f"{path} cannot be used for contact ({str(error).rstrip('.')}); give it a "
                    f"closed triangle mesh, or take {gname!r} out of the contact forces that "
                    "use it.") from None
        else:
            raise self.Error(f"{gwhere}: kinetree has no such contact geometry; supported "
                             "are ContactHalfSpace, ContactSphere, ContactEllipsoid and "
                             "ContactMesh.")
        if gname not in self.built:
            self.built.append(gname)
        return mobod, shape, X_BF @ X_FS, g.tag == "ContactMesh"

    def _mesh_file(self, g, where: str) -> Path:
        """A ContactMesh's file, found in the model's folders and inside them (a file
        from someone else reaches no other part of the disk)."""
        name = (g.findtext("filename") or "").strip()
        for folder in self.b.folders:
            if name and (folder / name).is_file():
                if not within(folder / name, self.b.folders):
                    raise self.Error(
                        f"{where}: its mesh file {name!r} lies outside the model's folders "
                        f"({', '.join(str(f) for f in self.b.folders)}); copy it into one, or "
                        f"pass its folder in geometry_dirs if you trust the model.")
                return folder / name
        raise self.Error(f"{where}: its mesh file {name!r} is not found (looked in "
                         + ", ".join(str(f) for f in self.b.folders)
                         + "); pass its folder in geometry_dirs.")

    def _contact_force(self, element, where: str, kind):
        contacts = self._contacts()
        cset = contacts.create_contact_set()
        force = kind(self.model.forces, contacts, cset)
        force.set_transition_velocity(self.number(element, "transition_velocity", where,
                                                  0.01))
        container = next((c for c in element if c.tag.endswith("ContactParametersSet")), None)
        objects = None if container is None else container.find("objects")
        blocks = [] if objects is None else list(objects)
        for params in blocks:
            values = [self.number(params, tag, where, 0.0)
                      for tag in ("stiffness", "dissipation", "static_friction",
                                  "dynamic_friction", "viscous_friction")]
            for name in (params.findtext("geometry") or "").split():
                mobod, shape, X_BS, mesh = self._geometry(name, where)
                index = contacts.add_body(cset, mobod, shape, X_BS)
                if kind is HuntCrossleyForce or mesh:
                    force.set_body_parameters(index, *values)
        return [force]

    def _HuntCrossleyForce(self, element, where, here):
        return self._contact_force(element, where, HuntCrossleyForce)

    def _socket_geometry(self, element, socket: str, tag: str, where: str):
        """(MobilizedBody, the geometry's XML element, X_BS) of the ContactGeometrySet
        entry the socket names, which must be a ``tag``."""
        path = (element.findtext(socket) or "").strip()
        if not path:
            raise self.Error(f"{where}: <{socket}> is missing; it names the {tag} it uses.")
        g = self.geometries.get(path.rsplit("/", 1)[-1])
        if g is not None and g.tag != tag:
            raise self.Error(f"{where}: <{socket}> names {g.tag} {g.get('name')!r}; it must "
                             f"be a {tag}.")
        mobod, _, X_BS, _ = self._geometry(path, where)
        return mobod, self.geometries[path.rsplit("/", 1)[-1]], X_BS

    def _SmoothSphereHalfSpaceForce(self, element, where, here):
        sphere_body, sphere, X_BS = self._socket_geometry(element, "socket_sphere",
                                                          "ContactSphere", where)
        plane_body, _, X_BH = self._socket_geometry(element, "socket_half_space",
                                                    "ContactHalfSpace", where)
        force = Force.SmoothSphereHalfSpaceForce(self.model.forces)
        try:
            force.set_parameters(*(self.number(element, tag, where, default)
                                   for tag, default in _SMOOTH_CONTACT))
        except InvalidArgumentError as error:
            raise self.Error(f"{where}: {error}") from None
        force.set_contact_sphere_body(sphere_body)
        force.set_contact_sphere_location_in_body(X_BS.p)
        force.set_contact_sphere_radius(self.number(sphere, "radius", where))
        force.set_contact_half_space_body(plane_body)
        force.set_contact_half_space_frame(X_BH)
        return [force]

    def _ElasticFoundationForce(self, element, where, here):
        return self._contact_force(element, where, ElasticFoundationForce)

    # ------------------------------------------------------------ the others
    def _CoordinateLimitForce(self, element, where, here):
        c = self._coordinate(element, where)
        w = _DEGREE if c.motion_type == "rotational" else 1.0
        value = {tag: self.number(element, tag, where, default)
                 for tag, default in (("upper_stiffness", 1.0), ("upper_limit", 0.0),
                                      ("lower_stiffness", 1.0), ("lower_limit", 0.0),
                                      ("damping", 0.001), ("transition", 0.1))}
        return [Force.CoordinateLimitForce(
            self.model.forces, c.mobilized_body, c.which, value["upper_stiffness"] / w,
            w * value["upper_limit"], value["lower_stiffness"] / w, w * value["lower_limit"],
            value["damping"] / w, w * value["transition"])]

    def _BushingForce(self, element, where, here):
        self.b._offset_frames(element.find("frames"), here)
        body1, X1 = self._frame(element, "socket_frame1", here, where)
        body2, X2 = self._frame(element, "socket_frame2", here, where)
        three = {tag: self.numbers(element, tag, 3, where, [0, 0, 0])
                 for tag in ("rotational_stiffness", "translational_stiffness",
                             "rotational_damping", "translational_damping")}
        return [Force.LinearBushing(
            self.model.forces, body1, X1, body2, X2,
            np.r_[three["rotational_stiffness"], three["translational_stiffness"]],
            np.r_[three["rotational_damping"], three["translational_damping"]])]

    def _SpringGeneralizedForce(self, element, where, here):
        c = self._coordinate(element, where)
        return [Force.MobilityLinearSpring(self.model.forces, c.mobilized_body, c.which,
                                           self.number(element, "stiffness", where, 0.0),
                                           self.number(element, "rest_length", where, 0.0)),
                Force.MobilityLinearDamper(self.model.forces, c.mobilized_body, c.which,
                                           self.number(element, "viscosity", where, 0.0))]

    def _PointToPointSpring(self, element, where, here):
        self.b._offset_frames(element.find("frames"), here)
        body1, _ = self._frame(element, "socket_body1", here, where)
        body2, _ = self._frame(element, "socket_body2", here, where)
        return [Force.TwoPointLinearSpring(
            self.model.forces, body1, self.numbers(element, "point1", 3, where, [0, 0, 0]),
            body2, self.numbers(element, "point2", 3, where, [0, 0, 0]),
            self.number(element, "stiffness", where, 1.0),
            self.number(element, "rest_length", where, 0.0))]

    def _ExpressionBasedCoordinateForce(self, element, where, here):
        c = self._coordinate(element, where)
        expression = element.findtext("expression")
        return [Force.ExpressionBasedCoordinateForce(
            self.model.forces, c.mobilized_body, c.which,
            "0.0" if expression is None else expression, name=element.get("name"))]

    def _ExponentialContactForce(self, element, where, here):
        station = element.find("Station")
        if station is None:
            raise self.Error(f"{where}: its <Station> is missing; it names the body point "
                             "that touches the plane.")
        body, X_BF = self._frame(station, "socket_parent_frame",
                                 f"{here}/{station.get('name') or 'station'}", where)
        if body.get_mobilized_body_index() == 0:
            raise self.Error(f"{where}: its Station is on Ground; connect it to a body's "
                             "frame, as OpenSim requires.")
        location = X_BF @ self.numbers(station, "location", 3, where, [0, 0, 0])
        angles_p = self.numbers(element, "contact_plane_transform", 6, where, [0] * 6)
        X_GP = Transform(Rotation.from_body_fixed_xyz(angles_p[:3]), angles_p[3:])
        block = element.find("contact_parameters")
        values = element
        if block is not None:       # <contact_parameters><ExponentialContactForce::...>
            values = block[0] if len(block) else block
        params = ExponentialSpringParameters()
        try:
            params.set_shape_parameters(*self.numbers(values, "exponential_shape_parameters",
                                                      3, where,
                                                      params.get_shape_parameters()))
            for tag, setter in _EXPONENTIAL_PARAMETERS:
                getter = getattr(params, "get_" + setter[4:])
                getattr(params, setter)(self.number(values, tag, where, getter()))
        except InvalidArgumentError as error:
            raise self.Error(f"{where}: {error}") from None
        return [Force.ExponentialSpringForce(self.model.forces, X_GP, body, location,
                                             params)]
