"""A muscle-driven reach: OpenSim's arm26 model flexes its elbow when its biceps switch on.

arm26 is an upper arm and forearm (shoulder and elbow coordinates) moved by six
Thelen2003Muscles: three heads of the triceps and the biceps' two heads and brachialis,
whose paths wrap over the humerus and the elbow. The model hangs at rest under gravity,
every muscle at a low excitation of 0.05; at t = 0.1 s the elbow flexors' excitation
steps to 0.4 (a smooth step over 20 ms), and the forearm lifts.

The muscles are equilibrated first (fiber lengths where fiber and tendon forces balance),
then the model is simulated for 0.5 s at accuracy 1e-5. The run prints the elbow
flexion, the biceps long head's activation and tendon force, and the moment arm of the
biceps about the elbow, at the start and at the end, and checks that the reach happened:
the flexors activate, their force grows, and the elbow flexes.

Run: python examples/arm26_reach.py [--out arm26_reach.sto]   (--out writes the
trajectory with every muscle's states, tendon force and path length; nothing is written
without it)
"""

import argparse
import math
import warnings
from pathlib import Path

import kinetree as kt
from kinetree.actuators import PrescribedController
from kinetree.io import OsimSkippedWarning, load_osim

MODEL = Path(__file__).resolve().parents[1] / "models" / "opensim" / "arm26.osim"
FLEXORS = ("BIClong", "BICshort", "BRA")
REST, ON = 0.05, 0.4
"""Excitations before and after the step."""


def build():
    """arm26 with its excitations: every muscle at REST, the flexors stepping to ON."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OsimSkippedWarning)   # its bone meshes
        model = load_osim(MODEL)
    model.actuator_subsystem.add_controller(PrescribedController("reach", {
        name: kt.Function.Step(REST, ON, 0.1, 0.12) if name in FLEXORS
        else kt.Function.Constant(REST, 1) for name in model.muscles}))
    return model


def main(out: str | None = None) -> None:
    model = build()
    state = model.get_default_state()
    model.equilibrate_muscles(state)
    outputs = model.actuator_subsystem.muscle_outputs()
    trajectory = kt.simulate(model.system, state, 0.5, accuracy=1e-5, outputs=outputs,
                             report_interval=0.01, progress=False)
    biceps, elbow = model.muscles["BIClong"], model.coordinates["r_elbow_flex"]
    first, last = trajectory.state(0), trajectory.state(len(trajectory) - 1)
    for label, s in (("start", first), ("end", last)):
        model.system.realize(s, kt.Stage.DYNAMICS)
        print(f"{label:5s} t = {s.get_time():.2f} s: elbow flexion "
              f"{math.degrees(elbow.get_value(s)):6.1f} deg, BIClong activation "
              f"{biceps.get_activation(s):.3f}, tendon force {biceps.get_tendon_force(s):6.1f} "
              f"N, moment arm {biceps.compute_moment_arm(s, elbow) * 100:.2f} cm")
    print(f"{trajectory.stats['steps_taken']} steps")
    assert biceps.get_activation(last) > 0.35, "the flexors did not activate"
    assert elbow.get_value(last) > elbow.get_value(first) + 0.5, "the elbow did not flex"
    if out:
        print(f"wrote {trajectory.to_sto(out, model=model)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--out", default=None, help="a .sto file for the trajectory")
    main(parser.parse_known_args()[0].out)
