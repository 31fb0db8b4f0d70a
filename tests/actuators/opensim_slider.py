"""OpenSim's side of the muscle tests: the muscle pulling a 2 kg block on a slider along
Ground's x from Ground's origin, so that its path's length is the slider's q and its
lengthening speed the slider's u, its excitation a PrescribedController's Constant set
for each sample."""


class OpenSimSlider:
    """OpenSim's muscle ``m`` (named "m", without path points) on the slider; a test's
    subclass makes the muscle and reads its outputs."""

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
