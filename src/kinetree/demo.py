"""The main job of ``make demo``: a closed-loop 3-D linkage simulated with kt.simulate.

A five-link pendulum hangs from Ground on a Pin, a Ball (quaternion), a Universal, a
Gimbal and a Pin, with brick-shaped links, under gravity, and a Constraint.Rod ties its
tip to a fixed point of Ground, closing a loop. The loop is the reason for the choice: a
tree alone would not exercise what sets Simbody's integrators apart, the projection onto
the constraint manifold after every step, and the constraint error it leaves is worth
printing; the rod does no work, so energy conservation remains a check of the whole.

RungeKuttaMerson at accuracy 1e-6 runs it for five seconds; the demo writes the
trajectory (.sto for OpenSim, .csv), a PNG plot of energy, coordinates and constraint
error, the final State and a replay page to open in a browser (replay.html), and prints
the integrator's statistics and three physics checks: energy drift against the accuracy,
the rod's length error against the constraint tolerance, and the articulated-body u̇
against M⁻¹(f − c − Gᵀλ) from the composite-body mass matrix and inverse dynamics.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import kinetree as kt

LINK_HALF_LENGTHS = (0.04, 0.2, 0.04)   # m
LINK_MASS = 1.5                          # kg
TIP_STATION = (0.0, -LINK_HALF_LENGTHS[1], 0.0)   # the last link's free end, in its frame (m)
ANCHOR_OFFSET = (0.5, 0.3, 0.2)          # Ground point the rod holds, from the tip at t = 0 (m)
ACCURACY = 1e-6
T_FINAL = 5.0                            # s
REPORT_INTERVAL = 0.01                   # s
ENERGY_DRIFT_LIMIT = 20.0                # largest relative energy drift allowed, × accuracy


def build_linkage() -> tuple[kt.MultibodySystem, kt.SimbodyMatterSubsystem,
                             kt.Constraint.Rod, kt.State]:
    """The pendulum with its tip tied to Ground, and a State with the links swung out and
    moving; the rod's length is the tip's distance to the anchor in that State."""
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    kt.Force.UniformGravity(forces, matter, [0, -9.81, 0])
    # body origin at the link's center; its joint frame M at the top end
    link = kt.Body.Rigid(kt.MassProperties(
        LINK_MASS, [0, 0, 0], LINK_MASS * kt.UnitInertia.brick(*LINK_HALF_LENGTHS)))
    top = kt.Transform([0, LINK_HALF_LENGTHS[1], 0])
    bottom = kt.Transform(TIP_STATION)
    parent, frame = matter.Ground(), kt.Transform()
    for kind in ("Pin", "Ball", "Universal", "Gimbal", "Pin"):
        parent = getattr(kt.MobilizedBody, kind)(parent, frame, link, top)
        frame = bottom
    tip = parent
    colors = ((0.85, 0.33, 0.1), (0.93, 0.69, 0.13), (0.47, 0.67, 0.19), (0.3, 0.75, 0.93),
              (0.49, 0.18, 0.56))
    for b, color in enumerate(colors, start=1):
        matter.get_mobilized_body(b).add_body_decoration(
            kt.Transform(), kt.DecorativeBrick(LINK_HALF_LENGTHS).set_color(color))

    state = system.realize_topology()
    rng = np.random.default_rng(2026)
    q = state.upd_q()
    q += rng.uniform(-0.6, 0.6, q.size)
    state.upd_u()[:] = rng.uniform(-1.0, 1.0, state.get_num_u())
    system.realize(state, kt.Stage.POSITION)
    p_tip = tip.find_station_location_in_ground(state, TIP_STATION)
    anchor = p_tip + ANCHOR_OFFSET
    rod = kt.Constraint.Rod(matter.Ground(), anchor, tip, TIP_STATION,
                            float(np.linalg.norm(anchor - p_tip)))
    matter.Ground().add_body_decoration(kt.Transform(anchor), kt.DecorativeSphere(0.02))
    q, u = state.get_q().copy(), state.get_u().copy()
    state = system.realize_topology()       # the rod is new topology: a new default State
    state.set_q(q)
    state.set_u(u)
    system.project(state, 1e-12)            # u onto the rod's velocity constraint
    return system, matter, rod, state


def residual_check(system: kt.MultibodySystem, matter: kt.SimbodyMatterSubsystem,
                   state: kt.State) -> float:
    """max |u̇ − M⁻¹(f − c − Gᵀλ)|: the articulated-body, constrained u̇ against the
    mass matrix, inverse dynamics (c − f) and the multipliers' generalized forces."""
    system.realize(state, kt.Stage.ACCELERATION)
    M = matter.calc_m(state)
    bias = matter.calc_residual_force_ignoring_constraints(
        state, matter.upd_mobility_forces(state), matter.upd_body_forces(state),
        np.zeros(M.shape[0]))
    g_t_lambda = matter.multiply_by_g_transpose(state, state.get_multipliers())
    expected = np.linalg.solve(M, -bias - g_t_lambda)
    return float(np.abs(state.get_u_dot() - expected).max())


def plot(traj: kt.Trajectory, path: Path) -> bool:
    """Energy change, three coordinates and the rod's length error against time, as a PNG
    (matplotlib's Agg canvas, no display needed); False if matplotlib is missing."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return False
    fig = Figure(figsize=(8, 8), layout="constrained")
    FigureCanvasAgg(fig)
    energy, rod, coords = fig.subplots(3, 1, sharex=True)
    e = traj.columns["energy"]
    energy.plot(traj.t, e - e[0])
    energy.set_ylabel("E − E(0) (J)")
    energy.set_title(f"{traj.stats['integrator']}, accuracy {traj.stats['accuracy']:g}")
    for name in ("Pin1.q0", "Gimbal4.q0", "Pin5.q0"):
        coords.plot(traj.t, traj.q[:, traj.q_names.index(name)], label=name)
    coords.set_ylabel("q (rad)")
    coords.set_xlabel("t (s)")
    coords.legend(ncols=3, loc="best")
    rod.plot(traj.t, traj.columns["rod_error"])
    rod.set_ylabel("rod length error (m)")
    fig.savefig(path, dpi=100)
    return True


def run(out_dir: Path) -> dict:
    """Simulate, write the outputs, and return the figures the summary prints."""
    system, matter, rod, state = build_linkage()
    traj = kt.simulate(system, state, T_FINAL, accuracy=ACCURACY,
                       report_interval=REPORT_INTERVAL,
                       outputs={"rod_error": rod.get_position_error})
    final = traj.states()[-1]
    out_dir.mkdir(parents=True, exist_ok=True)
    written = [traj.to_sto(out_dir / "trajectory.sto"), traj.to_csv(out_dir / "trajectory.csv")]
    plotted = plot(traj, out_dir / "demo.png")
    if plotted:
        written.append(out_dir / "demo.png")
    final.save(out_dir / "final_state.npz")
    written.append(out_dir / "final_state.npz")
    written.append(traj.to_html(out_dir / "replay.html"))
    e = traj.columns["energy"]
    return {
        "bodies": matter.get_num_bodies() - 1,
        "nq": state.get_num_q(),
        "nu": state.get_num_u(),
        "stats": traj.stats,
        "t_final": traj.t[-1],
        "rows": len(traj),
        "energy": e[0],
        "energy_drift": float(np.abs(e - e[0]).max()),
        "rod_error": float(np.abs(traj.columns["rod_error"]).max()),
        "aba_vs_crba": residual_check(system, matter, final),
        "written": written,
        "plotted": plotted,
    }


def main(out_dir: str = "out/demo") -> int:
    f = run(Path(out_dir))
    s = f["stats"]
    relative_drift = f["energy_drift"] / abs(f["energy"])
    print("kinetree demo: five-link 3-D pendulum (Pin, Ball, Universal, Gimbal, Pin) whose tip "
          "a Rod ties to Ground")
    print(f"  {f['bodies']} bodies, nq = {f['nq']}, nu = {f['nu']}, 1 constraint "
          f"({f['nu'] - 1} degrees of freedom)")
    print(f"  {s['integrator']}, accuracy {s['accuracy']:g}, to t = {f['t_final']:g} s in "
          f"{s['wall_time_s']:.2f} s: {s['steps_taken']} steps ({s['steps_attempted']} "
          f"attempted, {s['error_test_failures']} error-test failures), "
          f"{s['realizations']} realizations, {s['projections']} projections")
    print(f"  total energy {f['energy']:.6f} J, largest drift {f['energy_drift']:.2e} J = "
          f"{relative_drift:.1e} of |E| ({relative_drift / s['accuracy']:.1f} × accuracy)")
    print(f"  rod length error: max {f['rod_error']:.1e} m (constraint tolerance "
          f"{s['accuracy']:g} m)")
    print("  articulated-body u̇ vs M⁻¹(f − c − Gᵀλ): max difference "
          f"{f['aba_vs_crba']:.1e}")
    print(f"  wrote {f['rows']} rows: " + ", ".join(str(p) for p in f["written"]))
    if not f["plotted"]:
        print("  no demo.png: matplotlib is not installed (pip install 'kinetree[demo]')")
    ok = (relative_drift < ENERGY_DRIFT_LIMIT * s["accuracy"]
          and f["rod_error"] <= 1.01 * s["accuracy"] and f["aba_vs_crba"] < 1e-9)
    print("  physics checks:", "passed" if ok else "FAILED")
    return 0 if ok else 1
