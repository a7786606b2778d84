"""``hearts list`` against an announcer in another process, both confined to loopback."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import sys

from hearts_p2p.cli.list import render
from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.discovery.directory import TableDirectory
from hearts_p2p.discovery.packet import Announcement, TableState


def hearts_list(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "list", *args],
        capture_output=True,
        text=True,
        timeout=20,
        env=env,
        check=False,
    )


def test_list_json_finds_a_table_from_another_process(config: DiscoveryConfig) -> None:
    port = str(config.port)
    command = [sys.executable, "-m", "hearts_p2p.discovery", "announce", "--interface", "lo"]
    command += ["--port", port, "--name", "cli table", "--rules", '{"points": 50}', "--for", "20"]
    host = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert host.stdout is not None
        table_id = host.stdout.readline().split()[1]
        env = {**os.environ, "HEARTS_INTERFACE": "lo"}
        result = hearts_list("--json", "--wait", "1", "--port", port, env=env)
        assert result.returncode == 0, result.stderr
        (table,) = json.loads(result.stdout)
        assert table["table_id"] == table_id
        assert table["name"] == "cli table"
        assert table["rules"] == {"points": 50}
        assert (table["seats_taken"], table["seats_total"]) == (1, 4)
        assert table["address"] == "127.0.0.1" and table["interface"] == "lo"

        text = hearts_list("--wait", "0.5", "--port", port, "--interface", "lo", "--broadcast")
        assert "cli table" in text.stdout and "points=50" in text.stdout
    finally:
        host.terminate()
        host.wait(timeout=10)
    assert hearts_list("--wait", "0.3", "--port", port).stdout.startswith("no tables heard on lo")


def test_unknown_interface_is_a_usage_error() -> None:
    result = hearts_list("--interface", "no-such-if0", "--wait", "0")
    assert result.returncode == 2
    assert "no interface named" in result.stderr


def test_render_never_passes_control_characters() -> None:
    d = TableDirectory()
    ad = Announcement(
        table_id=bytes(16),
        host_key=bytes(32),
        host_name="alice",
        table_name="t",
        rules={"note": "\x1b[2Jgotcha"},
        seats_taken=2,
        seats_total=4,
        addresses=("127.0.0.1",),
        port=4000,
        state=TableState.OPEN,
        age=65,
    )
    d.observe(ad, "10.0.0.1", "lo", now=0.0)
    text = render(d.tables(now=0.0), now=0.0)
    assert "\x1b" not in text
    assert "note=[2Jgotcha" in text
    assert "1m05s" in text and "2/4" in text and "10.0.0.1:4000" in text


def test_render_shows_the_watchers_and_the_bots_levels() -> None:
    d = TableDirectory()
    ad = Announcement(
        table_id=bytes(16),
        host_key=bytes(32),
        host_name="alice",
        table_name="t",
        rules={},
        seats_taken=4,
        seats_total=4,
        addresses=("127.0.0.1",),
        port=4000,
        state=TableState.PLAYING,
        watchers=2,
        bots=("hard", "easy", "hard"),
        clock=120,
    )
    d.observe(ad, "127.0.0.1", "lo", now=0.0)
    header, row = render(d.tables(now=0.0), now=0.0).splitlines()
    assert header.split()[4:8] == ["STATE", "WATCHING", "BOTS", "CLOCK"]
    assert re.search(r"playing +2 +2 hard, 1 easy +90/120 s +0s ", row), row
    d.observe(dataclasses.replace(ad, open_seats=(1, 3)), "127.0.0.1", "lo", now=0.0)
    _, row = render(d.tables(now=0.0), now=0.0).splitlines()
    assert " 4/4 open:1,3 " in row, row
