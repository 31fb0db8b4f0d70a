"""The command line: ``python -m kinetree <command>`` (``kinetree <command>`` once installed)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from kinetree.errors import KinetreeError
from kinetree.system.stage import Stage


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kinetree", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run the flagship example and write its outputs")
    demo.add_argument("--out", default="out/demo", help="output folder (default out/demo)")
    warmup = commands.add_parser("warmup", help="compile and cache every kernel, on every "
                                                "core (once per version of kinetree)")
    warmup.add_argument("--force", action="store_true",
                        help="compile again even if this version's kernels are cached")
    warmup.add_argument("--workers", type=int, default=None,
                        help="processes to compile in (default: one per core)")
    view = commands.add_parser("view", help="open a replay page (Trajectory.to_html), or a "
                                            "model file's default pose, in a browser")
    view.add_argument("file", help="a .html replay written by Trajectory.to_html or the "
                                   "demo, or a model: .osim (OpenSim) or .urdf")
    view.add_argument("--out", default="out", help="folder for a model's page (default out)")
    simulate = commands.add_parser("simulate", help="simulate a model file from its default "
                                                    "state and write its trajectory")
    simulate.add_argument("model", help="an OpenSim .osim or a .urdf file")
    simulate.add_argument("--t-final", type=float, default=1.0, help="seconds (default 1)")
    simulate.add_argument("--accuracy", type=float, default=None,
                          help="the integrator's accuracy (default 1e-5 for an .osim file, "
                               "as OpenSim's tools; 1e-3 for a .urdf)")
    simulate.add_argument("--out", default="out", help="output folder (default out)")
    simulate.add_argument("--controls", default=None,
                          help="a controls file (.sto: time, then one column per actuator) "
                               "driving the model's actuators")
    args = parser.parse_args(argv)
    try:
        return _run(args)
    except KinetreeError as error:
        # A bad file or argument: its message says what to change; a traceback would not.
        print(f"kinetree {args.command}: {error}", file=sys.stderr)
        return 1


def _run(args) -> int:
    """Run the command ``args`` asks for; its exit status."""
    if args.command == "demo":
        from kinetree import demo as demo_module

        return demo_module.main(args.out)
    if args.command == "warmup":
        from kinetree import warmup as warmup_module

        return warmup_module.main(args.workers, args.force)
    if args.command == "view":
        if Path(args.file).suffix.lower() in MODEL_SUFFIXES:
            return view_model(args.file, args.out)
        return view_file(args.file)
    if args.command == "simulate":
        return simulate_model(args.model, args.t_final, args.accuracy, args.out,
                              args.controls)
    return 2


MODEL_SUFFIXES = (".osim", ".urdf")
OSIM_ACCURACY = 1e-5
"""The accuracy OpenSim's tools (forward, CMC) integrate at unless told otherwise."""


def load_model(name: str):
    """The Model of an .osim or .urdf file (kinetree.io), or None with a message."""
    path = Path(name)
    if not path.is_file():
        print(f"kinetree: no file {path.resolve()}", file=sys.stderr)
        return None
    import warnings

    from kinetree import io

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = io.load_osim(path) if path.suffix.lower() == ".osim" else io.load_urdf(path)
    for w in caught:
        print(f"kinetree: note: {w.message}", file=sys.stderr)
    return model


def simulate_model(name: str, t_final: float, accuracy: float | None, out: str,
                   controls: str | None = None) -> int:
    """Simulate a model file from its default state for ``t_final`` s, its actuators
    driven by the ``controls`` file if one is given and its muscles equilibrated first;
    write its trajectory (.sto with the file's coordinate and state names and the
    muscles' tendon forces and path lengths, .csv) and a replay page. Without an
    ``accuracy``, an OpenSim model runs at OpenSim's tools' default, 1e-5 (its muscles'
    fiber states are stiff, and 1e-3 lets a landing's blow up), a URDF at 1e-3."""
    import time

    from kinetree.study.simulate import simulate

    model = load_model(name)
    if model is None:
        return 1
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    if controls is not None:
        model.prescribe_controls(controls)
    state = model.get_default_state()
    outputs = {}
    if getattr(model, "muscles", None):
        model.equilibrate_muscles(state)
        outputs = model.actuator_subsystem.muscle_outputs()
    start = time.perf_counter()
    if accuracy is None:
        accuracy = OSIM_ACCURACY if Path(name).suffix.lower() == ".osim" else 1e-3
    trajectory = simulate(model.system, state, t_final, accuracy=accuracy, outputs=outputs)
    seconds = time.perf_counter() - start
    stem = Path(name).stem
    written = [trajectory.to_sto(folder / f"{stem}.sto", model=model),
               trajectory.to_csv(folder / f"{stem}.csv"),
               trajectory.to_html(folder / f"{stem}.html", model.system)]
    print(f"kinetree simulate: {model.name}: {len(model.bodies) - 1} bodies, "
          f"{len(model.coordinates)} coordinates, {t_final:g} s simulated in {seconds:.2f} s "
          f"wall ({len(trajectory)} reports)")
    for path in written:
        print(f"  wrote {path}")
    return 0


def view_model(name: str, out: str) -> int:
    """A replay page of a model file's default pose, opened in the default browser."""
    from kinetree.study.trajectory import Trajectory

    model = load_model(name)
    if model is None:
        return 1
    state = model.get_default_state()
    model.system.realize(state, Stage.POSITION)
    folder = Path(out)
    folder.mkdir(parents=True, exist_ok=True)
    one = Trajectory([state.get_time()], [state.get_q()], [state.get_u()], [state.get_z()],
                     template=state, name=model.name, system=model.system)
    page = one.to_html(folder / f"{Path(name).stem}.html", model.system)
    return view_file(str(page))


def view_file(name: str) -> int:
    """Open ``name`` in the default browser; 1 with a message if it is not a replay."""
    import webbrowser

    path = Path(name).resolve()
    if not path.is_file():
        print(f"kinetree view: no file {path}", file=sys.stderr)
        return 1
    if path.suffix.lower() not in (".html", ".htm"):
        print(f"kinetree view: {path.name} is not a replay page. Write one with "
              f"traj.to_html('run.html') (the demo writes out/demo/replay.html), or show a "
              f"live model with kt.Visualizer(system).", file=sys.stderr)
        return 1
    print(f"kinetree view: {path.as_uri()}")
    if not webbrowser.open(path.as_uri()):
        print("kinetree view: no browser to open here; open the address above in one.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
