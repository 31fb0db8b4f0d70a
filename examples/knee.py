"""A knee that rolls and slides on one coordinate: MobilizedBody.FunctionBased.

The tibia turns about the femur's z axis by the knee angle q, and its origin (the knee
centre) moves in the femur's sagittal x-y plane along splines of q fitted to the knee
kinematics of Yamaguchi & Zajac (1989), as tabulated in the knee of OpenSim's gait2392 and
Rajagopal models (joint knee_r: translation1 and translation2 are SimmSplines of
knee_angle_r). Here the same points are interpolated by natural cubic splines
(``Function.Spline``); z stays 0. One coordinate, q̇ = u, so the knee costs one degree of
freedom like a Pin, yet over the flexion range the knee centre slides 8 mm fore and aft and
26 mm along the femur.

The thigh is welded to Ground with the hip flexed 60° (a person seated on a high stool), so
the shank hangs at about 60° of knee flexion. Released from nearly full extension it swings
to about 120° of flexion and back, undamped, under gravity. The segment masses, mass
centres and inertias are gait2392's femur and tibia (the tibia without the foot). Angles
follow OpenSim's convention: flexion is negative.

The run prints the range of flexion, the range of the tibia's translation in the femur,
and the energy drift at RungeKuttaMerson accuracy 1e-6.

Run: python examples/knee.py [--out knee.png]   (--out also writes a plot; nothing is
written without it)
"""

import argparse
import sys

import numpy as np

import kinetree as kt

# Knee angle (rad) -> tibia origin in the femur frame (m): gait2392 knee_r (Delp et al.
# 1990, from Yamaguchi & Zajac 1989). x is anterior, y superior.
KNEE_ANGLE_X = [-2.0944, -1.74533, -1.39626, -1.0472, -0.698132, -0.349066, -0.174533,
                0.197344, 0.337395, 0.490178, 1.52146, 2.0944]
TIBIA_X = [-0.0032, 0.00179, 0.00411, 0.0041, 0.00212, -0.001, -0.0031, -0.005227,
           -0.005435, -0.005574, -0.005435, -0.00525]
KNEE_ANGLE_Y = [-2.0944, -1.22173, -0.523599, -0.349066, -0.174533, 0.159149, 2.0944]
TIBIA_Y = [-0.4226, -0.4082, -0.399, -0.3976, -0.3966, -0.395264, -0.396]

# gait2392 segments: mass (kg), mass centre (m, body frame), central principal moments
# (kg m²).
FEMUR = (9.3014, [0.0, -0.17, 0.0], (0.1339, 0.0351, 0.1412))
TIBIA = (3.7075, [0.0, -0.1867, 0.0], (0.0504, 0.0051, 0.0511))

HIP_FLEXION = np.radians(60.0)
"""rad: the femur frame is Ground's turned about z; the femur's -y then points forward and
down, 30° below horizontal."""
KNEE_START = -0.1
"""rad: released from nearly full extension (6° of flexion), at rest."""
T_FINAL = 3.0
"""s: almost three full swings."""
ACCURACY = 1e-6
G = 9.80665


def segment(mass, com, moments):
    """A rigid segment from its mass (kg), mass centre (m) and central moments (kg m²)."""
    inertia = kt.Inertia(*moments).shift_from_mass_center(com, mass)
    return kt.Body.Rigid(kt.MassProperties(mass, com, inertia))


def knee_functions():
    """The six functions of the knee: rotations about x and y fixed at 0, about z the knee
    angle itself; translations along x and y the splines, along z 0."""
    zero = kt.Function.Constant(0.0, 0)
    return [zero, zero, kt.Function.Linear([1.0, 0.0]),
            kt.Function.Spline(KNEE_ANGLE_X, TIBIA_X), kt.Function.Spline(KNEE_ANGLE_Y, TIBIA_Y),
            zero]


def build():
    """(system, knee): the welded thigh and the tibia on the FunctionBased knee. The knee's
    F frame is the femur frame and its M frame the tibia frame, as in gait2392."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0.0, -G, 0.0])
    thigh = kt.MobilizedBody.Weld(matter.Ground(), kt.Transform(kt.Rotation.about_z(HIP_FLEXION)),
                                  segment(*FEMUR), kt.Transform())
    knee = kt.MobilizedBody.FunctionBased(thigh, kt.Transform(), segment(*TIBIA), kt.Transform(),
                                          1, knee_functions(), [[], [], [0], [0], [0], []])
    return system, knee


def swing(out=None):
    """Simulate the swing; print its summary and return the Trajectory. With ``out``, also
    plot flexion and the knee centre's path to that file."""
    system, knee = build()
    state = system.realize_topology()
    knee.set_one_q(state, 0, KNEE_START)
    traj = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY, report_interval=0.01)

    q = traj.q[:, 0]
    functions = knee_functions()
    x = np.array([functions[3].calc_value(a) for a in q])
    y = np.array([functions[4].calc_value(a) for a in q])
    final = traj.states()[-1]
    system.realize(final, kt.Stage.POSITION)
    p_final = knee.get_mobilizer_transform(final).p
    assert np.allclose(p_final[:2], [x[-1], y[-1]], atol=1e-12)

    energy = traj.columns["energy"]
    drift = np.abs(energy - energy[0]).max() / np.abs(energy).max()
    print(f"knee flexion: {np.degrees(q.min()):7.2f}° to {np.degrees(q.max()):6.2f}° over "
          f"{T_FINAL:g} s ({traj.stats['steps_taken']} steps)")
    print(f"tibia origin in the femur: x {1e3 * x.min():6.2f} to {1e3 * x.max():5.2f} mm, "
          f"y {1e3 * y.min():7.2f} to {1e3 * y.max():7.2f} mm")
    print(f"energy drift: {drift:.1e} of the largest |E| ({energy[0]:.3f} J at the start)")
    assert q.min() > KNEE_ANGLE_Y[0], "the swing left the tabulated range"
    assert drift < 1e-5
    if out:
        plot(traj.t, q, x, y, out)
    return traj


def plot(t, q, x, y, out):
    """Flexion against time, and the knee centre's path in the femur, to ``out``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.5))
    a.plot(t, -np.degrees(q))
    a.set(xlabel="t (s)", ylabel="knee flexion (°)", title="Swing under gravity")
    b.plot(1e3 * x, 1e3 * y)
    b.set(xlabel="x, anterior (mm)", ylabel="y, superior (mm)",
          title="Tibia origin in the femur frame")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    parser.add_argument("--out", help="write a plot of the swing to this image file")
    args, _ = parser.parse_known_args(argv)
    swing(args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
