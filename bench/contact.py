"""Contact: the cost of a contact pair, and a pile of 100 spheres, beside MuJoCo and
Simbody-through-OpenSim run in the same process.

1. Cost per contact pair. N free spheres (radius 0.05 m, 0.1 kg) on a square grid on a
   ground half space, in two layouts: ``ground`` (spacing 3r: N sphere-ground contacts)
   and ``packed`` (spacing 2r - δ: the ground plus every grid neighbour). Each scene
   penetrates by δ (0.1 mm, about its static sag) and is timed beside the same spheres
   *apart* (spacing 3r, 1 m above the ground: no contact, the broad phase still runs);
   the cost per contact is (t_touching - t_apart) / contacts.

   - kinetree: ``ContactTrackerSubsystem`` + ``CompliantContactSubsystem`` (Hertz,
     Hunt-Crossley, Stribeck), gravity; timed: ``set_q``, ``realize(ACCELERATION)``;
   - MuJoCo: spheres with free joints on a plane, ``mj_forward`` (default options:
     Newton solver, warm-started, so one iteration here), contacts ``data.ncon``;
   - OpenSim 4.6 (Simbody's ``HuntCrossleyForce`` with ``ContactSphere`` and
     ``ContactHalfSpace``, the same material): ``setQ``, ``realizeAcceleration``; up to
     ``--opensim-max`` spheres (building large models is slow, and Simbody's
     ``GeneralContactSubsystem`` tests all pairs). Its u̇ (the same Hertz/Hunt-Crossley
     normal force; at rest there is no friction) is compared with kinetree's.

   The functions are timed in turn, ``--rounds`` batches of each, the best batch kept.

2. A pile: 100 spheres dropped in a loose 5 x 5 x 4 stack (spacing 0.11 m, jittered by
   ±5 mm) into a 0.6 m square box of half spaces on Ground (floor and four walls), simulated
   for ``--pile-time`` (1 s), by kinetree's ``kt.simulate`` twice: with the fixed-step
   symplectic Euler (``SemiExplicitEuler``, step ``--pile-step``, 0.1 ms: a tenth of the
   largest step with which this pile stays stable, 1 ms; the family of MuJoCo's default
   semi-implicit Euler) and at accuracy ``--accuracy`` (1e-3, Runge-Kutta-Merson, error
   controlled); MuJoCo with ``mj_step`` at its default fixed step of 2 ms. Reported: wall
   time, real-time factor (simulated s per wall s), steps, realizations, and what the
   piles share at the end (contacts, the highest centre). MuJoCo is a soft-constraint
   solver, kinetree integrates compliant contact forces: the ratio compares costs, not one
   physics. ``--profile`` adds a cProfile of one kinetree pile run.

Run: ``.venv/bin/python bench/contact.py`` (about a minute, 1.5 with ``--profile``; needs
mujoco and opensim, ``--no-opensim`` / ``--no-mujoco`` to skip them); ``--quick`` for a
smoke run. Results and analysis: docs/benchmarks.md, "Contact".
"""

from __future__ import annotations

import argparse
import cProfile
import io
import math
import pstats
import time

import numpy as np
from timing import interleaved_best

import kinetree as kt

G = 9.81
RADIUS, MASS = 0.05, 0.1


# ------------------------------------------------------------------------- layouts
def grid(n_spheres, spacing, height):
    """Centres (kinetree's frame, y up) of n spheres on a square grid in the x-z plane."""
    side = math.ceil(math.sqrt(n_spheres))
    k = np.arange(n_spheres)
    return np.column_stack([spacing * (k % side), np.full(n_spheres, height),
                            spacing * (k // side)])


def scene(layout, n_spheres, depth):
    """Sphere centres of a per-pair scene: ``ground``, ``packed`` or ``apart``."""
    if layout == "apart":
        return grid(n_spheres, 3 * RADIUS, RADIUS + 1.0)
    spacing = 3 * RADIUS if layout == "ground" else 2 * RADIUS - depth
    return grid(n_spheres, spacing, RADIUS - depth)


def pile_layout(seed=0, spacing=0.11, jitter=0.005):
    """5 x 5 x 4 centres, loose: ``spacing`` apart, jittered horizontally."""
    rng = np.random.default_rng(seed)
    points = []
    for layer in range(4):
        for i in range(5):
            for j in range(5):
                points.append([(i - 2) * spacing + rng.uniform(-jitter, jitter),
                               RADIUS + 0.005 + layer * spacing,
                               (j - 2) * spacing + rng.uniform(-jitter, jitter)])
    return np.array(points)


# The box: (X_GS as (rotation, origin), MuJoCo plane (pos, zaxis)) per half space; a
# kinetree HalfSpace fills x > 0 of its frame, a MuJoCo plane z < 0 of its own.
def box(half_width):
    L = half_width
    return [(kt.Rotation.about_z(-np.pi / 2), [0, 0, 0]),      # floor, normal +y
            (kt.Rotation(), [L, 0, 0]),                          # wall x = +L
            (kt.Rotation.about_z(np.pi), [-L, 0, 0]),            # wall x = -L
            (kt.Rotation.about_y(-np.pi / 2), [0, 0, L]),        # wall z = +L
            (kt.Rotation.about_y(np.pi / 2), [0, 0, -L])]        # wall z = -L


def to_mujoco(p):
    """kinetree's y-up frame to MuJoCo's z-up one (a proper rotation)."""
    return np.array([p[0], -p[2], p[1]])


# ------------------------------------------------------------------------- builders
def build_kinetree(centres, material, walls=None):
    """(system, state, contact subsystem) of free spheres at ``centres`` over a floor (or
    over ``walls``: (rotation, origin) of each half space on Ground)."""
    stiffness, dissipation, mu_s, mu_d, vt = material
    system = kt.MultibodySystem()
    matter = kt.SimbodyMatterSubsystem(system)
    forces = kt.GeneralForceSubsystem(system)
    tracker = kt.ContactTrackerSubsystem(system)
    contact = kt.CompliantContactSubsystem(system, tracker)
    contact.set_transition_velocity(vt)
    kt.Force.UniformGravity(forces, matter, [0, -G, 0])
    mat = kt.ContactMaterial(stiffness, dissipation, mu_s, mu_d, 0.0)
    ground = matter.Ground().upd_body()
    for R, p in walls or box(1.0)[:1]:
        ground.add_contact_surface(kt.Transform(R, p),
                                   kt.ContactSurface(kt.ContactGeometry.HalfSpace(), mat))
    balls = []
    for _ in centres:
        body = kt.Body.Rigid(kt.MassProperties(MASS, [0, 0, 0],
                                               kt.Inertia(0.4 * MASS * RADIUS ** 2)))
        body.add_contact_surface(kt.Transform(),
                                 kt.ContactSurface(kt.ContactGeometry.Sphere(RADIUS), mat))
        balls.append(kt.MobilizedBody.Free(matter.Ground(), body))
    state = system.realize_topology()
    for ball, p in zip(balls, centres):
        ball.set_q_to_fit_transform(state, kt.Transform(kt.Rotation(), p))
    system.realize(state, kt.Stage.ACCELERATION)
    return system, state, contact


def build_mujoco(centres, friction, half_width=None):
    """(model, data): spheres with free joints on a plane (and four wall planes)."""
    import mujoco
    planes = '<geom type="plane" size="0 0 1"/>'
    if half_width is not None:
        L = half_width
        planes += "".join(f'<geom type="plane" size="0 0 1" pos="{x} {y} 0" zaxis="{nx} {ny} 0"/>'
                          for x, y, nx, ny in ((L, 0, -1, 0), (-L, 0, 1, 0),
                                               (0, L, 0, -1), (0, -L, 0, 1)))
    bodies = "".join(
        f'<body pos="{x:.17g} {y:.17g} {z:.17g}"><freejoint/><geom type="sphere" size="{RADIUS}" '
        f'mass="{MASS}" friction="{friction} 0.005 0.0001"/></body>'
        for x, y, z in (to_mujoco(p) for p in centres))
    model = mujoco.MjModel.from_xml_string(
        f"<mujoco><worldbody>{planes}{bodies}</worldbody></mujoco>")
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    return model, data


def build_opensim(centres, material):
    """(model, state): FreeJoint spheres, a ContactHalfSpace floor, one HuntCrossleyForce."""
    import opensim as osim
    stiffness, dissipation, mu_s, mu_d, vt = material
    model = osim.Model()
    model.setGravity(osim.Vec3(0, -G, 0))
    model.addContactGeometry(osim.ContactHalfSpace(osim.Vec3(0), osim.Vec3(0, 0, -np.pi / 2),
                                                   model.getGround(), "floor"))
    force = osim.HuntCrossleyForce()
    force.setName("contact")
    force.setStiffness(stiffness)
    force.setDissipation(dissipation)
    force.setStaticFriction(mu_s)
    force.setDynamicFriction(mu_d)
    force.setViscousFriction(0.0)
    force.setTransitionVelocity(vt)
    force.addGeometry("floor")
    moment = 0.4 * MASS * RADIUS ** 2
    for i, p in enumerate(centres):
        body = osim.Body(f"b{i}", MASS, osim.Vec3(0), osim.Inertia(moment, moment, moment))
        model.addBody(body)
        joint = osim.FreeJoint(f"j{i}", model.getGround(), osim.Vec3(0), osim.Vec3(0),
                               body, osim.Vec3(0), osim.Vec3(0))
        for k in range(3):
            joint.upd_coordinates(3 + k).setDefaultValue(float(p[k]))
        model.addJoint(joint)
        model.addContactGeometry(osim.ContactSphere(RADIUS, osim.Vec3(0), body, f"s{i}"))
        force.addGeometry(f"s{i}")
    model.addForce(force)
    state = model.initSystem()
    model.realizeAcceleration(state)
    return model, state


def kinetree_case(centres, material):
    system, state, contact = build_kinetree(centres, material)
    q = np.array(state.get_q())

    def step():
        state.set_q(q)
        system.realize(state, kt.Stage.ACCELERATION)

    step()
    return step, contact.get_num_contact_forces(state), np.array(state.get_u_dot())


def mujoco_case(centres, friction):
    import mujoco
    model, data = build_mujoco(centres, friction)
    return (lambda: mujoco.mj_forward(model, data)), int(data.ncon)


def opensim_case(centres, material):
    model, state = build_opensim(centres, material)
    q = type(state.getQ())(state.getQ())

    def step():
        state.setQ(q)
        model.realizeAcceleration(state)

    step()
    udot = state.getUDot()
    return step, np.array([udot.get(i) for i in range(udot.size())])


def per_pair(args, material):
    """Per N: the apart scene and each layout, in the three libraries, timed in turn."""
    print(f"Cost per contact: N free spheres (r {RADIUS} m, {MASS} kg) on a ground half "
          f"space, penetrating {args.depth * 1e3:g} mm; 'ground': spacing 3r, 'packed': "
          f"spacing 2r - δ\n(neighbours touch too), 'apart': no contact. µs per call, best "
          f"of {args.rounds} interleaved batches; per contact: (t - t apart) / contacts;\n"
          f"ratio: kinetree / the anchor, per contact; |Δu̇|: kinetree against OpenSim, "
          f"relative.")
    libs = ["kt"] + ["mj"] * args.mujoco + ["os"] * args.opensim
    label = {"kt": "kinetree", "mj": "MuJoCo", "os": "OpenSim"}
    head = f"{'scene':>7} {'N':>5} {'contacts':>8}"
    for lib in libs:
        head += f" | {label[lib] + ' µs':>11} {'µs/contact':>10}" + (
            f" {'ratio':>6}" if lib != "kt" else "")
    print(head + (f" {'|Δu̇|':>8}" if args.opensim else ""), flush=True)
    rows = []
    layouts = ["apart", *args.layouts]
    for n in args.sizes:
        with_os = args.opensim and n <= args.opensim_max
        fns, counts, udot = [], {}, {}
        for layout in layouts:
            centres = scene(layout, n, args.depth)
            step, counts[layout], udot[layout] = kinetree_case(centres, material)
            fns.append(step)
        for layout in layouts if args.mujoco else ():
            step, ncon = mujoco_case(scene(layout, n, args.depth), material[3])
            assert ncon == counts[layout], (layout, ncon, counts[layout])
            fns.append(step)
        du = {}
        for layout in layouts if with_os else ():
            step, udot_os = opensim_case(scene(layout, n, args.depth), material)
            du[layout] = float(np.abs(udot[layout] - udot_os).max()
                               / max(1.0, np.abs(udot_os).max()))
            fns.append(step)
        assert counts["apart"] == 0, "the apart scene has contacts"
        times = iter(interleaved_best(fns, args.rounds, batch_seconds=0.01))
        t = {lib: {layout: next(times) for layout in layouts}
             for lib in libs if lib != "os" or with_os}
        for layout in layouts:
            count = counts[layout]
            row = dict(scene=layout, n=n, contacts=count)
            line = f"{layout:>7} {n:>5} {count:>8}"
            for lib in libs:
                if lib not in t:
                    line += f" | {'—':>11} {'—':>10} {'—':>6}"
                    continue
                total = t[lib][layout]
                per = (total - t[lib]["apart"]) / count if count else math.nan
                row[lib] = (total, per)
                line += f" | {total * 1e6:>11.1f} {per * 1e6:>10.3f}".replace(" nan", "   —")
                if lib != "kt":
                    ratio = row["kt"][1] / per if count else math.nan
                    line += f" {ratio:>6.3f}".replace(" nan", "   —")
            if args.opensim:
                line += f" {du[layout]:>8.1e}" if layout in du else f" {'—':>8}"
            print(line, flush=True)
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------- pile
def pile_kinetree(system, state, contact, t_final, accuracy, step=None):
    """One kinetree pile run: error-controlled Runge-Kutta-Merson at ``accuracy``, or
    with ``step`` the fixed-step SemiExplicitEuler."""
    options = dict(accuracy=accuracy) if step is None else \
        dict(integrator="SemiExplicitEuler", fixed_step_size=step)
    t0 = time.perf_counter()
    traj = kt.simulate(system, state, t_final, progress=False, **options)
    wall = time.perf_counter() - t0
    final = state.copy()
    final.set_q(traj.q[-1])
    final.set_u(traj.u[-1])
    system.realize(final, kt.Stage.ACCELERATION)
    centres = traj.q[-1].reshape(-1, 7)[:, 4:]
    return dict(wall=wall, steps=traj.stats["steps_taken"],
                attempted=traj.stats["steps_attempted"],
                realizations=traj.stats["realizations"],
                contacts=contact.get_num_contact_forces(final),
                top=float(centres[:, 1].max()))


def pile_mujoco(model, data, t_final):
    import mujoco
    mujoco.mj_resetData(model, data)
    steps = int(round(t_final / model.opt.timestep))
    t0 = time.perf_counter()
    for _ in range(steps):
        mujoco.mj_step(model, data)
    wall = time.perf_counter() - t0
    return dict(wall=wall, steps=steps, attempted=steps, realizations=steps,
                contacts=int(data.ncon), top=float(data.qpos.reshape(-1, 7)[:, 2].max()))


def pile(args, material):
    half_width = 0.3
    centres = pile_layout()
    system, state, contact = build_kinetree(centres, material, box(half_width))
    kt.simulate(system, state, 0.005, accuracy=args.accuracy, progress=False)   # warm up
    if args.mujoco:
        model, data = build_mujoco(centres, material[3], half_width)
    print(f"\nPile: {len(centres)} spheres (r {RADIUS} m, {MASS} kg) dropped in a loose "
          f"5x5x4 stack into a {2 * half_width:g} m square box of half spaces, "
          f"{args.pile_time:g} s simulated; best of {args.pile_repeat} runs")
    runs = {"euler": [], "kt": [], "mj": []}
    for _ in range(args.pile_repeat):
        runs["euler"].append(pile_kinetree(system, state, contact, args.pile_time,
                                           args.accuracy, args.pile_step))
        runs["kt"].append(pile_kinetree(system, state, contact, args.pile_time,
                                        args.accuracy))
        if args.mujoco:
            runs["mj"].append(pile_mujoco(model, data, args.pile_time))
    print(f"{'':>26} {'wall s':>8} {'RT factor':>9} {'steps':>7} {'attempted':>9} "
          f"{'realiz.':>8} {'µs/realiz.':>10} {'contacts at end':>15} {'top centre m':>12}")
    result = {}
    labels = {"euler": "kinetree SemiExplicitEuler", "kt": "kinetree Merson",
              "mj": "MuJoCo"}
    for name, label in labels.items():
        if not runs[name]:
            continue
        best = min(runs[name], key=lambda r: r["wall"])
        best["rtf"] = args.pile_time / best["wall"]
        result[name] = best
        print(f"{label:>26} {best['wall']:>8.3f} {best['rtf']:>9.3f} {best['steps']:>7} "
              f"{best['attempted']:>9} {best['realizations']:>8} "
              f"{best['wall'] / best['realizations'] * 1e6:>10.1f} {best['contacts']:>15} "
              f"{best['top']:>12.3f}")
    note = (f"kinetree: kt.simulate, SemiExplicitEuler at a fixed {args.pile_step:g} s "
            f"step, and Runge-Kutta-Merson at accuracy {args.accuracy:g}, error controlled")
    if args.mujoco:
        print(f"{note}; MuJoCo: mj_step, fixed {model.opt.timestep:g} s step (its "
              f"realizations: one mj_step each)\n"
              f"wall-time ratio kinetree / MuJoCo: SemiExplicitEuler "
              f"{result['euler']['wall'] / result['mj']['wall']:.2f}, Merson "
              f"{result['kt']['wall'] / result['mj']['wall']:.2f}. MuJoCo is a "
              f"soft-constraint solver, kinetree integrates\ncompliant contact forces: "
              f"the ratio compares costs, not the same physics.")
    else:
        print(note)
    if args.profile:
        profiler = cProfile.Profile()
        profiler.enable()
        run = pile_kinetree(system, state, contact, args.pile_time, args.accuracy)
        profiler.disable()
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(args.profile)
        print(f"\ncProfile of one kinetree pile run ({run['wall']:.2f} s profiled, "
              f"{run['realizations']} realizations), top {args.profile} by tottime:")
        print("\n".join(line for line in out.getvalue().splitlines()
                        if line.strip() and not line.lstrip().startswith(("Ordered", "List"))))
    return result


# ---------------------------------------------------------------------------- main
def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1, 10, 100, 1000])
    parser.add_argument("--layouts", nargs="+", default=["ground", "packed"],
                        choices=["ground", "packed"])
    parser.add_argument("--depth", type=float, default=1e-4,
                        help="penetration δ of each touching pair (m)")
    parser.add_argument("--rounds", type=int, default=15,
                        help="interleaved batches per function; the best is kept")
    parser.add_argument("--opensim-max", type=int, default=100,
                        help="largest N built in OpenSim")
    parser.add_argument("--no-opensim", dest="opensim", action="store_false")
    parser.add_argument("--no-mujoco", dest="mujoco", action="store_false")
    parser.add_argument("--no-pairs", dest="pairs", action="store_false")
    parser.add_argument("--no-pile", dest="pile", action="store_false")
    parser.add_argument("--pile-time", type=float, default=1.0, help="simulated s")
    parser.add_argument("--pile-repeat", type=int, default=2)
    parser.add_argument("--accuracy", type=float, default=1e-3)
    parser.add_argument("--pile-step", type=float, default=1e-4,
                        help="SemiExplicitEuler's fixed step in the pile, s")
    parser.add_argument("--stiffness", type=float, default=1e7, help="Pa")
    parser.add_argument("--dissipation", type=float, default=0.5, help="s/m")
    parser.add_argument("--static-friction", type=float, default=0.5)
    parser.add_argument("--dynamic-friction", type=float, default=0.4,
                        help="also MuJoCo's sliding friction")
    parser.add_argument("--transition-velocity", type=float, default=0.01, help="m/s")
    parser.add_argument("--profile", type=int, nargs="?", const=10, default=0,
                        metavar="TOP", help="cProfile one kinetree pile run, print the "
                        "TOP (10) functions by tottime")
    parser.add_argument("--quick", action="store_true",
                        help="smoke run: N = 1, 10; 0.1 s of pile, one run")
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.rounds, args.pile_time, args.pile_repeat = [1, 10], 5, 0.1, 1
    for name in ("mujoco", "opensim"):
        if getattr(args, name):
            try:
                __import__(name)
            except ImportError:
                print(f"{name} is not installed: skipped")
                setattr(args, name, False)
    material = (args.stiffness, args.dissipation, args.static_friction,
                args.dynamic_friction, args.transition_velocity)
    print(f"Material: stiffness {args.stiffness:g} Pa, dissipation {args.dissipation:g} s/m, "
          f"μs {args.static_friction:g}, μd {args.dynamic_friction:g} (MuJoCo: "
          f"{args.dynamic_friction:g}, its default solref/solimp), transition velocity "
          f"{args.transition_velocity:g} m/s\n")
    kinetree_case(scene("packed", 4, args.depth), material)[0]()   # compile the kernels
    rows = per_pair(args, material) if args.pairs else None
    result = pile(args, material) if args.pile else None
    return rows, result


if __name__ == "__main__":
    main()
