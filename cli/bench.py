"""``hearts bench NAME``: run one of the benchmarks of ``hearts_p2p.benchmarks``."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from types import ModuleType

from hearts_p2p.benchmarks import NAMES

from .overview import COMMANDS


def _module(name: str) -> ModuleType:
    return importlib.import_module(f"hearts_p2p.benchmarks.{name}")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "bench",
        help=COMMANDS["bench"],
        description="Run a benchmark. Figures are printed with their ratio to a bound measured "
        "in the same run.",
        epilog="example: hearts bench engine --hands 5000 --json",
    )
    benches = p.add_subparsers(dest="bench", metavar="NAME", required=True)
    for name in NAMES:
        try:
            mod = _module(name)
        except ImportError:
            continue
        summary = (mod.__doc__ or "").strip().splitlines()[0].replace("%", "%%")
        bp = benches.add_parser(name, help=summary, description=summary)
        bp.add_argument("--json", action="store_true", help="print one JSON object")
        mod.add_arguments(bp)
        bp.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    mod = _module(args.bench)
    result = mod.run(args)
    if args.json:
        json.dump(result, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(mod.render(result) + "\n")
    return 0
