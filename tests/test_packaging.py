"""The distribution: one top-level package, the front end inside it, a version to ask for."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
from_checkout = pytest.mark.skipif(
    not (ROOT / "cli").is_dir(), reason="needs the source checkout, not only its tests"
)


def _setuptools() -> dict[str, object]:
    with open(ROOT / "pyproject.toml", "rb") as f:
        table: dict[str, object] = tomllib.load(f)["tool"]["setuptools"]
    return table


@from_checkout
def test_every_package_of_the_tree_is_listed() -> None:
    """The package list is written by hand (a mapped folder is invisible to ``find``), so a
    new subpackage left out of it would be missing from the wheel."""
    on_disk = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "hearts_p2p").rglob("__init__.py")
    }
    on_disk |= {"hearts_p2p.cli"} if (ROOT / "cli" / "__init__.py").exists() else set()
    assert set(_setuptools()["packages"]) == on_disk  # type: ignore[call-overload]
    assert _setuptools()["package-dir"] == {"hearts_p2p.cli": "cli"}


def test_version_is_the_installed_distributions() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "--version"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"hearts {version('hearts-p2p')}"


@from_checkout
def test_the_wheel_installs_one_top_level_package(tmp_path: Path) -> None:
    """Built from a copy of the sources, so no stale build directory of the checkout leaks in;
    with the build backend the test extras installed, so the suite needs no network."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("hearts_p2p", "cli"):
        shutil.copytree(ROOT / folder, src / folder, ignore=ignore)
    out = tmp_path / "wheel"
    offline = ["wheel", "-q", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(out)]
    build = subprocess.run(
        [sys.executable, "-m", "pip", *offline, str(src)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    (wheel,) = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = z.read(entry_points).decode()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"hearts_p2p"}
    assert "hearts_p2p/cli/main.py" in names and "hearts_p2p/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "hearts = hearts_p2p.cli.entry:main" in scripts


def test_bots_run_this_program_whatever_the_working_directory(tmp_path: Path) -> None:
    """Bot peers are started by module path; a folder named ``cli`` where the player stands
    must not be what they run."""
    (tmp_path / "cli").mkdir()
    (tmp_path / "cli" / "__init__.py").write_text("")
    (tmp_path / "cli" / "main.py").write_text('print("WRONG")\n')
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        port = str(s.getsockname()[1])
    play = ["play", "--headless", "--bot-strategy", "heuristic", "--name", "Ada", "--target", "10"]
    play += ["--discovery-port", port]
    run = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", *play],
        cwd=tmp_path,
        env={**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert "final scores" in run.stdout and "WRONG" not in run.stdout + run.stderr
