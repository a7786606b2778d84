"""Every command builds the whole parser: what only one command uses loads when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

LATER = ("hearts_p2p.audit", "hearts_p2p.auditwork", "importlib.metadata")


def test_building_the_parser_loads_neither_the_audit_nor_the_package_metadata() -> None:
    code = (
        "import sys\n"
        "from hearts_p2p.cli.main import build_parser\n"
        "build_parser()\n"
        f"print([m for m in {LATER!r} if m in sys.modules])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "[]"


def test_the_version_is_answered_without_loading_the_program() -> None:
    code = (
        "import json, sys\n"
        "sys.argv = ['hearts', '--version']\n"
        "from hearts_p2p.cli import entry\n"
        "assert entry.main() == 0\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('hearts_p2p')]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    version, loaded = done.stdout.splitlines()
    assert version.startswith("hearts ")
    assert sorted(json.loads(loaded)) == [
        "hearts_p2p", "hearts_p2p.cli", "hearts_p2p.cli.entry", "hearts_p2p.cli.version"
    ]  # fmt: skip
