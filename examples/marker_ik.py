"""Inverse kinematics from synthetic motion capture: an arm (Ball shoulder, Pin elbow,
Universal wrist) reaching, seen by 9 markers with 2 mm Gaussian noise and a marker that
drops out for a while, fitted frame by frame with ``Assembler.track``.

The "true" motion is a smooth reach: each joint angle moves along a raised cosine for one
second, sampled at 100 Hz. The first frame is assembled from the default pose; each later
frame starts from the previous solution. The program prints the RMS distance between the
fitted markers and their observations (a little under the noise's 3.5 mm RMS distance:
the fit cannot be better than the data), the RMS error of the elbow and wrist angles
against the truth, the goal evaluations per frame and the time per frame.

Run: ``python examples/marker_ik.py``
"""

import time

import numpy as np

import kinetree as kt

FRAME_RATE = 100.0       # Hz
DURATION = 1.0           # s
NOISE = 0.002            # m, standard deviation of each marker coordinate
DROPOUT = (40, 60)       # frames in which the wrist-lateral marker is not seen


def build_arm():
    """Upper arm (0.30 m) on a Ball shoulder, forearm (0.25 m) on a Pin elbow, hand on a
    Universal wrist; three markers per segment (stations in the segment frame, m)."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    segment = kt.Body.Rigid(kt.MassProperties(1.5, [0, 0, 0], kt.Inertia(0.01)))
    upper = kt.MobilizedBody.Ball(matter.Ground(), kt.Transform([0, 1.4, 0]), segment,
                                  kt.Transform())
    fore = kt.MobilizedBody.Pin(upper, kt.Transform([0, -0.30, 0]), segment, kt.Transform())
    hand = kt.MobilizedBody.Universal(fore, kt.Transform([0, -0.25, 0]), segment,
                                      kt.Transform())
    markers = kt.Markers()
    for name, body, station in [
            ("shoulder", upper, [0.0, 0.0, 0.05]), ("arm_lat", upper, [0.04, -0.15, 0.0]),
            ("elbow_lat", upper, [0.04, -0.29, 0.0]), ("forearm", fore, [0.0, -0.12, 0.04]),
            ("wrist_med", fore, [-0.03, -0.24, 0.0]), ("wrist_lat", fore, [0.03, -0.24, 0.0]),
            ("hand", hand, [0.0, -0.06, 0.02]), ("knuckle2", hand, [0.03, -0.09, 0.0]),
            ("knuckle5", hand, [-0.03, -0.08, 0.0])]:
        markers.add_marker(name, body, station)
    return system, matter, (upper, fore, hand), markers


def true_motion(system, bodies, t):
    """q of the reach at time t (s): shoulder flexion and abduction, elbow flexion,
    wrist angles, each a raised cosine from rest to its final value."""
    upper, fore, hand = bodies
    s = 0.5 - 0.5 * np.cos(np.pi * min(t / DURATION, 1.0))
    state = system.realize_topology()
    R = kt.Rotation.from_body_fixed_xyz([-1.1 * s, 0.0, 0.4 * s])
    upper.set_q(state, R.convert_rotation_to_quaternion())
    fore.set_one_q(state, 0, 1.3 * s)
    hand.set_q(state, [0.3 * s, -0.2 * s])
    return state


def main(quiet=False):
    rng = np.random.default_rng(2024)
    system, matter, bodies, markers = build_arm()
    markers.define_observation_order([markers.get_marker_name(m)
                                      for m in range(markers.get_num_markers())])
    assembler = kt.Assembler(system)
    assembler.set_accuracy(1e-6)
    assembler.adopt_assembly_goal(markers)
    lost = markers.get_observation_index_for_marker("wrist_lat")

    times = np.arange(0.0, DURATION + 1e-9, 1.0 / FRAME_RATE)
    state = system.realize_topology()
    fitted_errors, angle_errors, evals = [], [], []
    start = time.perf_counter()
    for frame, t in enumerate(times):
        truth = true_motion(system, bodies, t)
        system.realize(truth, kt.Stage.POSITION)
        observed = np.array([markers.get_marker_body(m).find_station_location_in_ground(
            truth, markers.get_marker_station(m)) for m in range(markers.get_num_markers())])
        observed += rng.normal(0.0, NOISE, observed.shape)
        if DROPOUT[0] <= frame < DROPOUT[1]:
            observed[lost] = np.nan
        markers.move_all_observations(observed)
        before = assembler.get_num_goal_evals()
        if frame == 0:
            assembler.assemble(state)
        else:
            assembler.track(t)
            assembler.update_from_internal_state(state)
        evals.append(assembler.get_num_goal_evals() - before)
        fitted_errors += [markers.find_current_marker_error(m)
                          for m in range(markers.get_num_markers())
                          if np.all(np.isfinite(observed[m]))]
        system.realize(state, kt.Stage.POSITION)
        angle_errors.append([bodies[1].get_one_q(state, 0) - bodies[1].get_one_q(truth, 0),
                             *(bodies[2].get_q(state) - bodies[2].get_q(truth))])
    elapsed = time.perf_counter() - start
    rms_marker = float(np.sqrt(np.mean(np.square(fitted_errors))))
    rms_angle = float(np.sqrt(np.mean(np.square(angle_errors))))
    if not quiet:
        print(f"{len(times)} frames at {FRAME_RATE:g} Hz, noise {NOISE * 1e3:g} mm per "
              f"coordinate, marker 'wrist_lat' missing in frames {DROPOUT[0]}-{DROPOUT[1] - 1}")
        print(f"RMS marker error of the fit:        {rms_marker * 1e3:.2f} mm")
        print(f"RMS error of elbow and wrist angles: {np.degrees(rms_angle):.2f} deg")
        print(f"goal evaluations: first frame {evals[0]}, then {np.mean(evals[1:]):.1f} "
              f"per frame")
        print(f"time per frame: {elapsed / len(times) * 1e3:.1f} ms")
    assert rms_marker < 3 * NOISE and rms_angle < np.radians(3.0)
    return rms_marker, rms_angle


if __name__ == "__main__":
    main()
