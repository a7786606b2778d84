"""Every command builds the whole parser: what only one command uses loads when it runs."""

from __future__ import annotations

import json
import subprocess
import sys

# prompt_toolkit: only a person playing on a terminal types on its editor line (lineinput.py).
LATER = ("hearts_p2p.audit", "hearts_p2p.auditwork", "importlib.metadata", "prompt_toolkit")


def python(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter (so nothing is imported already)."""
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return done.stdout


def test_building_the_parser_loads_neither_the_audit_nor_the_package_metadata() -> None:
    code = (
        "import sys\n"
        "from hearts_p2p.cli.main import build_parser\n"
        "build_parser()\n"
        f"print([m for m in {LATER!r} if m in sys.modules])\n"
    )
    assert python(code).strip() == "[]"


def test_the_version_is_answered_without_loading_the_program() -> None:
    code = (
        "import json, sys\n"
        "sys.argv = ['hearts', '--version']\n"
        "from hearts_p2p.cli import entry\n"
        "assert entry.main() == 0\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('hearts_p2p')]))\n"
    )
    version, loaded = python(code).splitlines()
    assert version.startswith("hearts ")
    assert sorted(json.loads(loaded)) == [
        "hearts_p2p", "hearts_p2p.cli", "hearts_p2p.cli.entry", "hearts_p2p.cli.version"
    ]  # fmt: skip


def test_help_and_the_bare_command_load_no_game_and_no_network() -> None:
    """What makes them answer at once (under a tenth of a second, where the rest takes half):
    neither trio nor the game's modules are imported."""
    code = (
        "import sys\n"
        "from hearts_p2p.cli.entry import main\n"
        "for argv in (['hearts', '--help'], ['hearts']):\n"
        "    sys.argv = argv\n"
        "    assert main() == 0\n"
        "heavy = [m for m in ('trio', 'hearts_p2p.game', 'hearts_p2p.node') if m in sys.modules]\n"
        "print('heavy:', heavy)\n"
    )
    out = python(code)
    assert "examples:" in out and "commands:" in out
    assert out.splitlines()[-1] == "heavy: []"
