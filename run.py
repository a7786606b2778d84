#!/usr/bin/env python3
"""Run ``hearts`` or the tests from this checkout, in a virtual environment of its own.

``python3 run.py hearts play`` and ``python3 run.py pytest -n 2`` are the whole install. Why
not ``pip install .``: a system python under PEP 668 (Debian 12, Ubuntu 23.04 and later)
refuses it, and trying a game should change no python of the system or the user. So this
makes ``.venv`` here on first use (or uses the virtual environment already active, as CI's),
installs the checkout into it, editable so an update of the sources needs no new install, and
runs the command from it. It installs again only when pyproject.toml or the extras change.
Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent
STAMP = "hearts-p2p.installed"
USAGE = "usage: python3 run.py hearts ARGS... | python3 run.py pytest ARGS..."


@dataclass(frozen=True)
class Command:
    """What a command needs installed, and how it starts from the environment's bin folder."""

    extras: frozenset[str]
    start: tuple[str, ...]


COMMANDS = {
    "hearts": Command(frozenset(), ("hearts",)),
    # As ``python -m pytest``, which puts the checkout on sys.path as the suite expects.
    "pytest": Command(frozenset({"test"}), ("python", "-m", "pytest")),
}


class SetupError(Exception):
    """The environment cannot be made or filled; the message is the one line to show."""


def environment() -> Path:
    """The active virtual environment if there is one, else this checkout's ``.venv``."""
    if sys.prefix != sys.base_prefix:
        return Path(sys.prefix)
    return ROOT / ".venv"


def project() -> str:
    """What an install is of: this checkout, as its pyproject.toml now describes it."""
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    return f"{ROOT} {digest}"


def to_install(env: Path, extras: frozenset[str]) -> set[str] | None:
    """The extras to install ``env`` with, keeping those it had; None if it needs nothing."""
    try:
        what, _, listed = (env / STAMP).read_text().partition("\n")
    except OSError:
        return set(extras)
    had = set(filter(None, listed.strip().split(",")))
    return None if what == project() and extras <= had else set(extras) | had


def _works(argv: list[str]) -> bool:
    return subprocess.run(argv, capture_output=True, check=False).returncode == 0


def create(env: Path) -> None:
    """A new virtual environment; without pip inside when this python lacks ``ensurepip``
    (Debian without python3-venv), since the system's pip can install into it."""
    made = subprocess.run(
        [sys.executable, "-m", "venv", str(env)], capture_output=True, text=True, check=False
    )
    if made.returncode == 0:
        return
    shutil.rmtree(env, ignore_errors=True)
    bare = subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(env)],
        capture_output=True,
        text=True,
        check=False,
    )
    if bare.returncode != 0:
        shutil.rmtree(env, ignore_errors=True)
        said = (made.stderr or bare.stderr).strip().splitlines()
        raise SetupError(f"cannot make {env}: {said[-1] if said else 'venv failed'}")


def tool(env: Path, name: str) -> Path:
    """A program of ``env``: in ``bin`` on Linux and macOS, ``Scripts`` with ``.exe`` on
    Windows."""
    if os.name == "nt":
        return env / "Scripts" / f"{name}.exe"
    return env / "bin" / name


def pip(env: Path) -> list[str]:
    """The pip that installs into ``env``: its own, else this python's aimed at it."""
    python = str(tool(env, "python"))
    if _works([python, "-m", "pip", "--version"]):
        return [python, "-m", "pip"]
    if _works([sys.executable, "-m", "pip", "--version"]):
        return [sys.executable, "-m", "pip", "--python", python]
    raise SetupError(
        "no pip to install with: install python3-venv (Debian, Ubuntu: "
        "sudo apt install python3-venv) and run this again"
    )


def install(env: Path, extras: set[str]) -> None:
    """Install this checkout, editable, with ``extras``, into ``env``."""
    listed = ",".join(sorted(extras))
    target = f"{ROOT}[{listed}]" if listed else str(ROOT)
    sys.stderr.write(f"run.py: installing hearts-p2p into {env} (once)\n")
    sys.stderr.flush()
    done = subprocess.run([*pip(env), "install", "-q", "-e", target], check=False)
    if done.returncode != 0:
        raise SetupError(f"could not install into {env} (pip says why above)")
    (env / STAMP).write_text(f"{project()}\n{listed}\n")


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in COMMANDS:
        sys.stderr.write(USAGE + "\n")
        return 2
    if sys.version_info < (3, 11):  # noqa: UP036 - this file runs on any python3, to say so
        sys.stderr.write("run.py: hearts-p2p needs Python 3.11 or newer\n")
        return 1
    command = COMMANDS[argv[0]]
    env = environment()
    try:
        if not tool(env, "python").exists():
            create(env)
        if (extras := to_install(env, command.extras)) is not None:
            install(env, extras)
    except SetupError as e:
        sys.stderr.write(f"run.py: {e}\n")
        return 1
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    start = [str(tool(env, command.start[0])), *command.start[1:], *argv[1:]]
    if os.name == "nt":  # no exec there: run it and pass on its exit code
        return subprocess.run(start, check=False).returncode
    os.execv(start[0], start)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
