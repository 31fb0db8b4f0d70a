"""The actuators and controllers of an OpenSim model, built as OpenSim builds them
(``load_osim`` with ``include_forces=True`` calls :func:`build_actuators`).

What each becomes, in one ActuatorSubsystem (``model.actuator_subsystem``) in the file's
order:

- a muscle (Thelen2003Muscle, Millard2012EquilibriumMuscle, DeGrooteFregly2016Muscle,
  RigidTendonMuscle, Schutte1993Muscle_Deprecated) the kinetree class of the same name,
  its properties read from the file (OpenSim's defaults where absent), on its
  GeometryPath: the path points, conditional and moving points, and wrap objects of the
  bodies' WrapObjectSets;
- CoordinateActuator, PointActuator and TorqueActuator the classes of those names;
- a PrescribedController a PrescribedController of the same Functions of time (a
  disabled one is built and kept off, as OpenSim keeps it).

Each is in ``model.actuators`` (and a muscle in ``model.muscles``), a controller in
``model.controllers``, by name in file order. An actuator whose ``appliesForce`` is false
is built and applies nothing (its control kept at 0 gives no force).
"""

from __future__ import annotations

import importlib

import numpy as np

import kinetree.io.osim as osim
from kinetree.actuators import (
    ActuatorSubsystem,
    CoordinateActuator,
    PointActuator,
    PrescribedController,
    TorqueActuator,
)
from kinetree.actuators.actuator import Actuator, Muscle
from kinetree.io.osim_functions import function_of
from kinetree.registry import ACTUATORS

__all__ = ["build_actuators", "actuator_classes"]


def actuator_classes() -> dict:
    """{OpenSim tag: kinetree class} of every actuator kind (each kind's module's class
    whose CODE is the kind's)."""
    found = {}
    for name, code in ACTUATORS.items():
        module = importlib.import_module(f"kinetree.actuators.{name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Actuator) \
                    and getattr(value, "CODE", None) == code:
                found[value.__name__] = value
    return found


def build_actuators(builder, model) -> list[str]:
    """Build the actuators and controllers of the .osim model ``builder`` reads into
    ``model`` (module docstring); returns the names built."""
    return _Actuators(builder, model).build()


class _Actuators:
    def __init__(self, builder, model):
        self.b, self.model = builder, model
        self.Error = osim.OsimError
        self.classes = actuator_classes()
        self.built: list[str] = []
        self._wraps = None

    def build(self) -> list[str]:
        elements = [e for e in osim._objects(self.b.xml, "ForceSet")
                    if e.tag in self.classes]
        controllers = [e for e in osim._objects(self.b.xml, "ControllerSet")
                       if e.tag == "PrescribedController"]
        if not elements and not controllers:
            return []
        if any(e.find("GeometryPath") is not None for e in elements):
            # the paths' conditional and moving points name coordinates by their index
            state = self.model.system.realize_topology()
            self.model.matter.set_use_euler_angles(state, True)
            self.model.system.realize_model(state)
            self.model._index_coordinates(state)
        subsystem = ActuatorSubsystem(self.model.system)
        self.model.actuator_subsystem = subsystem
        for element in elements:
            name = element.get("name")
            actuator = getattr(self, "_" + element.tag, self._muscle)(
                element, f"{element.tag} {name!r}")
            subsystem.add_actuator(actuator)
            self.model.actuators[name] = actuator
            if isinstance(actuator, Muscle):
                self.model.muscles[name] = actuator
            self.built.append(name)
        for element in controllers:
            controller = self._PrescribedController(element, f"PrescribedController "
                                                              f"{element.get('name')!r}")
            subsystem.add_controller(controller)
            self.model.controllers[controller.name] = controller
            self.built.append(controller.name)
        return self.built

    # ------------------------------------------------------------ helpers
    def _mobod(self, name: str, where: str):
        name = name.strip().rsplit("/", 1)[-1]
        if name == "ground":
            return self.model.matter.Ground()
        if name not in self.model.bodies:
            raise self.Error(f"{where}: names body {name!r}, which the model does not have.")
        return self.model.bodies[name]

    def _properties(self, cls, element, where: str) -> dict:
        try:
            return cls.osim_properties(element)
        except Exception as error:
            raise self.Error(f"{where}: {error}") from None

    def _make(self, cls, element, where: str, *args, **kwargs):
        try:
            return cls(element.get("name"), *args, **kwargs,
                       **self._properties(cls, element, where))
        except self.Error:
            raise
        except Exception as error:
            raise self.Error(f"{self.b.path.name}: {error}") from None

    # ------------------------------------------------------------ actuators
    def _CoordinateActuator(self, element, where):
        name = (element.findtext("coordinate") or "").strip()
        coordinate = self.model.coordinates.get(name)
        if coordinate is None:
            raise self.Error(f"{where}: names coordinate {name!r}, which the model does not "
                             "have.")
        bounds = {tag: self._bound(element, tag, where, default)
                  for tag, default in (("min_control", -np.inf), ("max_control", np.inf))}
        return self._make(CoordinateActuator, element, where, coordinate.mobilized_body,
                          coordinate.which, **bounds)

    def _bound(self, element, tag: str, where: str, default: float) -> float:
        """A control bound: a number, or ±Inf for none (NaN refused)."""
        text = (element.findtext(tag) or "").strip()
        if not text:
            return default
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if value != value:
            raise self.Error(f"{where}: <{tag}> is {text!r:.40}; it must be a number or "
                             "Inf.")
        return value

    def _PointActuator(self, element, where):
        return self._make(PointActuator, element, where,
                          self._mobod(element.findtext("body") or "", where),
                          osim._numbers(element, "point", 3, where, [0, 0, 0]),
                          osim._numbers(element, "direction", 3, where, [-1, 0, 0]))

    def _TorqueActuator(self, element, where):
        return self._make(TorqueActuator, element, where,
                          self._mobod(element.findtext("bodyA") or "", where),
                          self._mobod(element.findtext("bodyB") or "", where),
                          osim._numbers(element, "axis", 3, where, [0, 0, 1]))

    def _muscle(self, element, where):
        path_element = element.find("GeometryPath")
        if path_element is None:
            raise self.Error(f"{where}: it has no <GeometryPath>; a muscle needs its path.")
        return self._make(self.classes[element.tag], element, where,
                          path=self._path(path_element, where))

    # ------------------------------------------------------------ paths
    def _path(self, element, where: str):
        from kinetree.paths.geometry_path import GeometryPath
        muscle = where.split(" ", 1)[1].strip("'")
        here = f"/forceset/{muscle}/{element.get('name') or 'geometrypath'}"

        def frame(socket_path: str):
            body_path, X_BF = self.b._resolve(osim._join(here, socket_path.strip()), where)
            mobod = self._mobod(body_path, where)
            return mobod.get_mobilized_body_index(), X_BF

        def coordinate(name: str):
            c = self.model.coordinates.get(name.strip().rsplit("/", 1)[-1])
            if c is None:
                raise self.Error(f"{where}: its path names coordinate {name!r}, which the "
                                 "model does not have.")
            return (c.q_index, c.u_index, *c.range)

        def function(xml):
            return function_of(xml, where)

        return GeometryPath.from_osim(element, where, frame, coordinate, function,
                                      self._wrap)

    def _wrap(self, name: str):
        if self._wraps is None:
            from kinetree.paths.wrap_object import wrap_objects_from_osim
            self._wraps = {}
            for body in osim._objects(self.b.xml, "BodySet"):
                mobod = self.model.bodies[body.get("name")]
                try:
                    found = wrap_objects_from_osim(body, mobod.get_mobilized_body_index())
                except Exception as error:
                    raise self.Error(f"{self.b.path.name}: Body {body.get('name')!r}: "
                                     f"{error}") from None
                self._wraps.update({w.name: w for w in found})
        wrap = self._wraps.get(name.strip().rsplit("/", 1)[-1])
        if wrap is None:
            raise self.Error(f"{self.b.path.name}: a PathWrap names wrap object {name!r}, "
                             "which no body's WrapObjectSet has (supported: WrapSphere, "
                             "WrapCylinder, WrapEllipsoid, WrapTorus).")
        return wrap

    # ------------------------------------------------------------ controllers
    def _PrescribedController(self, element, where):
        names = [n.rsplit("/", 1)[-1] for n in (
            element.findtext("socket_actuators") or element.findtext("actuator_list")
            or "").split()]
        container = element.find("FunctionSet/objects")
        functions = [] if container is None else list(container)
        if [n.upper() for n in names] == ["ALL"]:
            names = list(self.model.actuators)
        if len(functions) != len(names):
            raise self.Error(f"{where}: it lists {len(names)} actuators but "
                             f"{len(functions)} control functions; give one per actuator.")
        controller = PrescribedController(element.get("name"))
        for name, f in zip(names, functions):
            if name not in self.model.actuators:
                raise self.Error(f"{where}: controls actuator {name!r}, which the model "
                                 "does not have.")
            controller.prescribe_control_for_actuator(
                name, function_of(f, f"{where} control of {name!r}"))
        controller.enabled = osim._flag(element, "enabled", True)
        return controller
