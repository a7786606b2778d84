"""Private folders and files: POSIX modes for real (and tests/node/test_store.py under umask 0),
Windows's owner-only ACL with ``icacls`` faked, while the key and secrets code runs as it is."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from hearts_p2p.identity import Identity
from hearts_p2p.log import SecretStore
from hearts_p2p.system.privacy import O_BINARY, O_NOINHERIT, PosixPrivacy, WindowsPrivacy

from .conftest import Simulate

ENV = {"USERNAME": "ada", "USERDOMAIN": "LAPTOP"}


class Recorded:
    """icacls and os.open as Windows would be asked; the file is then made without its flags."""

    def __init__(self) -> None:
        self.icacls: list[list[str]] = []
        self.opened: list[tuple[Path, int]] = []

    def run_icacls(self, args: list[str]) -> None:
        self.icacls.append(args)

    def open(self, path: Path, flags: int, mode: int) -> int:
        self.opened.append((path, flags))
        return os.open(path, flags & ~(O_BINARY | O_NOINHERIT), mode)

    def privacy(self) -> WindowsPrivacy:
        return WindowsPrivacy(icacls=self.run_icacls, opener=self.open, env=ENV)


def test_posix_makes_missing_folders_0700_and_files_0600(tmp_path: Path) -> None:
    PosixPrivacy().private_dir(tmp_path / "a" / "b")
    assert stat.S_IMODE((tmp_path / "a").stat().st_mode) == 0o700
    (tmp_path / "a" / "b" / "f").write_bytes(b"")
    os.chmod(tmp_path / "a" / "b" / "f", 0o644)
    os.close(PosixPrivacy().open_private(tmp_path / "a" / "b" / "f", os.O_WRONLY))
    assert stat.S_IMODE((tmp_path / "a" / "b" / "f").stat().st_mode) == 0o600


def test_windows_gives_the_outermost_new_folder_an_owner_only_acl(tmp_path: Path) -> None:
    rec = Recorded()
    rec.privacy().private_dir(tmp_path / "data" / "games")
    assert (tmp_path / "data" / "games").is_dir()
    grant = "LAPTOP\\ada:(OI)(CI)F"
    assert rec.icacls == [[str(tmp_path / "data"), "/inheritance:r", "/grant:r", grant, "/t", "/q"]]
    rec.privacy().private_dir(tmp_path / "data" / "games")
    assert len(rec.icacls) == 1  # a folder that exists is left alone


def test_windows_opens_binary_and_uninherited(tmp_path: Path) -> None:
    rec = Recorded()
    os.close(rec.privacy().open_private(tmp_path / "key", os.O_WRONLY))
    ((path, flags),) = rec.opened
    assert path == tmp_path / "key"
    assert flags & O_BINARY and flags & O_NOINHERIT and flags & os.O_CREAT


def test_keys_and_secrets_on_windows_are_made_private(tmp_path: Path, simulate: Simulate) -> None:
    rec = Recorded()
    simulate("win32", privacy=rec.privacy())
    Identity.load_or_create(tmp_path / "data" / "identity.key")
    SecretStore(tmp_path / "data" / "games" / "g.secret").save({"seed": b"s" * 32})
    made = [tmp_path / "data", tmp_path / "data" / "games"]
    assert [args[0] for args in rec.icacls] == [str(p) for p in made]
    assert {p.name for p, _ in rec.opened} == {"identity.tmp", "g.tmp"}
    assert all(flags & O_BINARY for _, flags in rec.opened)
    assert len((tmp_path / "data" / "identity.key").read_bytes()) == 32


def _fake_icacls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> Path:
    """An ``icacls`` on the PATH that writes down its arguments, then runs ``script``."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    tool = bin_dir / "icacls"
    tool.write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{tmp_path}/args"\n{script}\n')
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return tmp_path / "args"


def test_windows_runs_icacls_with_the_grant(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = _fake_icacls(tmp_path, monkeypatch, "exit 0")
    WindowsPrivacy(env=ENV).private_dir(tmp_path / "data")
    assert args.read_text().splitlines() == [
        str(tmp_path / "data"), "/inheritance:r", "/grant:r", "LAPTOP\\ada:(OI)(CI)F", "/t", "/q"
    ]  # fmt: skip


def test_windows_says_in_one_line_when_icacls_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fake_icacls(tmp_path, monkeypatch, 'echo "data: Access is denied."; exit 5')
    with pytest.raises(PermissionError) as e:
        WindowsPrivacy(env=ENV).private_dir(tmp_path / "data")
    assert str(e.value) == f"cannot make {tmp_path / 'data'} private: data: Access is denied."
