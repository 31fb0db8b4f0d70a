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
    args = parser.parse_args(argv)
    if args.command == "demo":
        from kinetree import demo as demo_module

        return demo_module.main(args.out)
    if args.command == "warmup":
        from kinetree import warmup

        return warmup.main()
    return 2


if __name__ == "__main__":
    sys.exit(main())
