"""The command line: ``python -m kinetree <command>`` (``kinetree <command>`` once installed)."""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="kinetree", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run the flagship example and write its outputs")
    demo.add_argument("--out", default="out/demo", help="output folder (default out/demo)")
    commands.add_parser("warmup", help="compile and cache the kernels a typical program uses")
    view = commands.add_parser("view", help="open a replay page (Trajectory.to_html) in a "
                                            "browser")
    view.add_argument("file", help="a .html replay written by Trajectory.to_html or the demo")
    args = parser.parse_args(argv)
    if args.command == "demo":
        from kinetree import demo as demo_module

        return demo_module.main(args.out)
    if args.command == "warmup":
        from kinetree import warmup

        return warmup.main()
    if args.command == "view":
        return view_file(args.file)
    return 2


def view_file(name: str) -> int:
    """Open ``name`` in the default browser; 1 with a message if it is not a replay."""
    import webbrowser
    from pathlib import Path

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
