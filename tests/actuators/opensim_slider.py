"""OpenSim's side of the muscle tests: the muscle pulling a 2 kg block on a slider along
Ground's x from Ground's origin, so that its path's length is the slider's q and its
lengthening speed the slider's u, its excitation a PrescribedController's Constant set
for each sample."""

from kinetree.actuators.actuator import (
    OUT_ACTIVATION,
    OUT_ACTIVE_FIBER_FORCE,
    OUT_EXCITATION,
    OUT_FIBER_LENGTH,
    OUT_FIBER_VELOCITY,
    OUT_FORCE,
    OUT_NORMALIZED_FIBER_LENGTH,
    OUT_PASSIVE_FIBER_FORCE,
    OUT_PENNATION_ANGLE,
    OUT_POWER,
    OUT_TENDON_FORCE,
    OUT_TENDON_LENGTH,
)


class OpenSimSlider:
    """OpenSim's muscle ``m`` (named "m", without path points) on the slider; a test's
    subclass makes the muscle, sets ``self.muscle`` to it as the model holds it, and sets
    its states."""

    def __init__(self, osim, m):
        model = osim.Model()
        block = osim.Body("block", 2.0, osim.Vec3(0), osim.Inertia(0.1))
        model.addBody(block)
        joint = osim.SliderJoint("slider", model.getGround(), block)
        model.addJoint(joint)
        m.addNewPathPoint("origin", model.getGround(), osim.Vec3(0))
        m.addNewPathPoint("insertion", block, osim.Vec3(0))
        model.addForce(m)
        controller = osim.PrescribedController()
        controller.addActuator(m)
        controller.prescribeControlForActuator("m", osim.Constant(0.0))
        model.addController(controller)
        self.state = model.initSystem()
        # the controller's own copy of the Constant, set per sample
        self.excitation = osim.Constant.safeDownCast(osim.PrescribedController.safeDownCast(
            model.getControllerSet().get(0)).upd_ControlFunctions().get(0))
        self.model = model
        self.coordinate = joint.upd_coordinates(0)

    def set_sample(self, excitation, length, speed):
        """The excitation, and the path's length (m) and lengthening speed (m/s)."""
        self.excitation.setValue(excitation)
        self.coordinate.setValue(self.state, length, False)
        self.coordinate.setSpeedValue(self.state, speed)

    def outputs(self) -> dict:
        """OpenSim's values of kinetree's actuator outputs (``actuator.OUT_*``), the
        model realized."""
        s, m = self.state, self.muscle
        return {OUT_FORCE: m.getActuation(s),
                OUT_ACTIVATION: m.getActivation(s),
                OUT_FIBER_LENGTH: m.getFiberLength(s),
                OUT_FIBER_VELOCITY: m.getFiberVelocity(s),
                OUT_TENDON_LENGTH: m.getTendonLength(s),
                OUT_TENDON_FORCE: m.getTendonForce(s),
                OUT_ACTIVE_FIBER_FORCE: m.getActiveFiberForce(s),
                OUT_PASSIVE_FIBER_FORCE: m.getPassiveFiberForce(s),
                OUT_PENNATION_ANGLE: m.getPennationAngle(s),
                OUT_NORMALIZED_FIBER_LENGTH: m.getNormalizedFiberLength(s),
                OUT_EXCITATION: m.getExcitation(s),
                OUT_POWER: -m.getTendonForce(s) * m.getLengtheningSpeed(s)}

    def derivatives(self, names) -> dict:
        """{state name: OpenSim's derivative of the muscle's state}, the model realized."""
        return {name: self.model.getStateVariableDerivativeValue(
            self.state, f"/forceset/m/{name}") for name in names}
