"""Every command builds the whole parser: what only one command uses loads when it runs."""

from __future__ import annotations

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
