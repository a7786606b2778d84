"""The mistakes and mishaps of issue 38, each through the real ``hearts``: one clear line (or the
list of commands) and the documented exit code, never a traceback."""

from __future__ import annotations

import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hearts_p2p.cli.main import build_parser

from .pty_term import free_port, hearts_env

ENTRY = [sys.executable, "-m", "hearts_p2p.cli.entry"]


def hearts(*args: str, cwd: Path | None = None, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*ENTRY, *args], capture_output=True, text=True, timeout=60, env=hearts_env(**env), cwd=cwd
    )


def _config(tmp_path: Path, text: bytes) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "hearts-p2p" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text)
    return path, {"XDG_CONFIG_HOME": str(tmp_path)}


@pytest.mark.parametrize(("table", "said"), [((), "table"), (("Nope",), 'table "Nope"')])
def test_watch_with_no_table_heard_says_so(
    table: tuple[str, ...], said: str, tmp_path: Path
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    run = hearts(
        "watch", *table, "--wait", "0.5", "--discovery-port", disc, "--data-dir", str(tmp_path)
    )
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr == f"hearts watch: found no {said} on lo within 0.5 s (see hearts list)\n"


def test_a_settings_file_that_is_not_utf8_is_named_and_can_be_mended(tmp_path: Path) -> None:
    path, env = _config(tmp_path, b'name = "Ada"\nmoon = "\xff"\n')
    run = hearts("list", "--wait", "0", **env)
    assert run.returncode == 1
    said = f"{path}: not UTF-8 text (byte 22)"
    assert run.stderr == f"hearts list: {said} (see hearts config)\n"
    check = hearts("config", "check", **env)
    assert (check.returncode, check.stderr) == (1, f"hearts config: {said}\n")
    assert hearts("config", "unset", "moon", **env).returncode == 0
    assert tomllib.loads(path.read_text()) == {"name": "Ada"}


def test_config_check_reports_every_bad_value_and_unset_mends_each(tmp_path: Path) -> None:
    text = b'# mine\nplayers = 12\nmoon = "full"\ncolour = "red"\nname = "Ada"\n'
    path, env = _config(tmp_path, text)
    check = hearts("config", "check", **env)
    assert check.returncode == 1
    assert check.stderr.splitlines() == [
        f"hearts config: {path}: players: 12 is not from 3 to 6",
        f"hearts config: {path}: moon: 'full' is not one of classic, negative, choice, off",
        f"hearts config: {path}: no setting 'colour' (known: name, interface, broadcast, preset, "
        "players, moon, target, ties)",
    ]
    for key in ("players", "colour"):
        done = hearts("config", "unset", key, **env)
        assert done.returncode == 0, done.stderr
    assert hearts("config", "set", "moon", "choice", **env).returncode == 0
    assert path.read_text() == '# mine\nname = "Ada"\nmoon = "choice"\n'  # the rest kept as is
    ok = hearts("config", "check", **env)
    assert (ok.returncode, ok.stdout) == (0, f"{path}: no problems\n")


def test_a_missing_interface_is_saved_with_a_warning_and_then_named_with_its_file(
    tmp_path: Path,
) -> None:
    env = {"XDG_CONFIG_HOME": str(tmp_path), "HEARTS_INTERFACE": ""}
    saved = hearts("config", "set", "interface", "nosuch0", **env)
    assert saved.returncode == 0
    assert saved.stderr == (
        "hearts config: warning: no interface named 'nosuch0' on this machine now; "
        "saved all the same\n"
    )
    path = tmp_path / "hearts-p2p" / "config.toml"
    run = hearts("list", "--wait", "0", **env)
    assert run.returncode == 1
    missing = f"{path}: interface: no interface named 'nosuch0' on this machine now"
    assert run.stderr == f"hearts list: {missing} (see hearts config)\n"
    check = hearts("config", "check", **env)
    assert (check.returncode, check.stderr) == (1, f"hearts config: {missing}\n")


def test_an_empty_name_is_refused(tmp_path: Path) -> None:
    for command in (("play", "--headless"), ("watch",)):
        run = hearts(*command, "--name", "", "--data-dir", str(tmp_path))
        assert run.returncode == 2
        assert run.stderr == f"hearts {command[0]}: --name must be 1 to 32 printable characters\n"


def test_a_data_folder_that_cannot_be_written_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("")
    run = hearts("play", "--headless", "--data-dir", str(tmp_path / "file" / "d"))
    assert run.returncode == 1
    assert run.stderr == (
        f"hearts play: cannot write to {tmp_path / 'file' / 'd'} (Not a directory): give another "
        "--data-dir, or set $XDG_DATA_HOME\n"
    )


@pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("unshare") is None, reason="mounts need root and unshare"
)
def test_a_read_only_data_folder_is_one_line(tmp_path: Path) -> None:
    """A read-only file system, mounted in a mount namespace of this test's own."""
    ro = tmp_path / "ro"
    ro.mkdir()
    disc = str(free_port(socket.SOCK_DGRAM))
    hearts_cmd = " ".join([*ENTRY, "play", "--headless", "--discovery-port", disc])
    script = f"mount -t tmpfs -o ro,size=64k tmpfs {ro} && exec {hearts_cmd}"
    run = subprocess.run(
        ["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=60,
        env=hearts_env(XDG_DATA_HOME=str(ro)),
    )  # fmt: skip
    assert run.returncode == 1
    assert run.stderr == (
        f"hearts play: cannot write to {ro / 'hearts-p2p'} (Read-only file system): give "
        "another --data-dir, or set $XDG_DATA_HOME\n"
    )


def test_bare_hearts_lists_every_command_with_one_line_each() -> None:
    run = hearts()
    assert (run.returncode, run.stderr) == (0, "")
    subs = next(a for a in build_parser()._actions if hasattr(a, "_choices_actions"))
    names = [c.dest for c in subs._choices_actions]
    listed = [
        ln.split()[0] for ln in run.stdout.split("commands:\n")[1].split("\n\n")[0].split("\n")
    ]
    assert listed == names
    assert "hearts COMMAND --help" in run.stdout


@pytest.mark.parametrize(
    ("argv", "usage"),
    [
        (["frob"], "hearts [-h] [--version] COMMAND ...  (more: hearts --help)"),
        (["play", "--moon", "x"], "hearts play [OPTIONS]  (more: hearts play --help)"),
        (["join", "a", "b"], "hearts join [OPTIONS] [table]  (more: hearts join --help)"),
        (["audit"], "hearts audit [-h] [--json] log  (more: hearts audit --help)"),
    ],
)
def test_a_usage_error_is_what_is_wrong_and_the_one_line_usage(argv: list[str], usage: str) -> None:
    run = hearts(*argv)
    assert run.returncode == 2
    lines = run.stderr.splitlines()
    said = "hearts: " if argv == ["frob"] else f"hearts {argv[0]}: "
    assert len(lines) == 2 and lines[0].startswith(said)
    assert lines[1] == f"usage: {usage}"


def _interruptible() -> None:
    """In the child: Ctrl-C as a terminal gives it. A shell that starts the tests in the
    background (``cmd &`` without job control) has them ignore SIGINT, and a child inherits
    that: Python then installs no handler of its own, and the interrupt would do nothing."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_while_the_program_loads_ends_it_quietly() -> None:
    """The interrupt lands while a module of the program is being imported, held there: by
    short sleeps, between which Python acts on the signal. A signal that comes just before a
    sleep begins (or to another of the process's threads) cuts no sleep short: one sleep of
    30 s made this test take 30 s where that happened."""
    code = (
        "import sys, time\n"
        "class Slow:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'hearts_p2p.cli.args':\n"
        "            print('loading', flush=True)\n"
        "            for _ in range(600):\n"
        "                time.sleep(0.05)\n"
        "        return None\n"
        "sys.meta_path.insert(0, Slow())\n"
        "from hearts_p2p.cli.entry import main\n"
        "sys.exit(main())\n"
    )
    with subprocess.Popen(
        [sys.executable, "-c", code, "list"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=hearts_env(), preexec_fn=_interruptible,
    ) as proc:  # fmt: skip
        try:
            assert proc.stdout is not None and proc.stderr is not None
            ready, _, _ = select.select([proc.stdout], [], [], 30)
            assert ready and proc.stdout.readline() == "loading\n"
            proc.send_signal(signal.SIGINT)
            code_ = proc.wait(timeout=30)
            err = proc.stderr.read()
        finally:
            proc.kill()
    assert (code_, err) == (130, "\ninterrupted\n")
