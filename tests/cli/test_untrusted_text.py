"""Names and rules from other peers reach the terminal cleaned: audit, replay and list."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import msgpack

from hearts_p2p.bots import make_bot
from hearts_p2p.cli.list import render, render_json
from hearts_p2p.discovery.directory import TableDirectory
from hearts_p2p.discovery.packet import MAGIC, VERSION, decode
from hearts_p2p.game import Genesis, LocalTable
from hearts_p2p.identity import Identity
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.text import clean, json_escaped

EVIL = "Eve\x1b[2J\u202eevil\u2066\x9b"
UNSAFE = ("\x1b", "\x9b", "\u202e", "\u2066", "\x07")


def hearts(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_clean_strips_every_kind_of_control() -> None:
    text = "a\x00\x1b[31m\x7f\x85\x9b\u200e\u200f\u202a\u202e\u2066\u2069\u2028b\u00ebc"
    assert clean(text, 100) == "a[31mbëc"
    assert clean("x" * 50) == "x" * 40


def test_json_escaped_keeps_the_data_and_the_layout() -> None:
    data = {"name": EVIL + "\U000f0000", "list": [1, "two"]}
    document = json.dumps(data, indent=2, ensure_ascii=False)
    shown = json_escaped(document)
    assert json.loads(shown) == data
    assert not any(c in shown for c in UNSAFE) and "\n  " in shown


def evil_log(tmp_path: Path) -> Path:
    """A whole game whose table and first player are named to drive the terminal."""
    ids = [Identity.from_seed(bytes([i + 1]) * 32) for i in range(4)]
    secrets = [bytes([i + 9]) * 32 for i in range(4)]
    bots = [make_bot("heuristic", 3 + i) for i in range(4)]
    table = LocalTable(Rules(players=4, target=10), ids, secrets, bytes(16), bots, seed=3)
    g = table.genesis
    players = (dataclasses.replace(g.players[0], name=EVIL), *g.players[1:])
    table.genesis = Genesis(g.game_id, EVIL, g.rules, players, g.created)
    table.run()
    path = tmp_path / "evil.log"
    log = GameLog.open(path)
    for entry in table.protos[1].entries:
        log.append(entry)
    log.close()
    return path


def test_audit_and_replay_show_no_escape_or_direction_character(tmp_path: Path) -> None:
    path = evil_log(tmp_path)
    runs = [hearts("audit", str(path)), hearts("replay", str(path))]
    runs.append(hearts("audit", "--json", str(path)))
    for run in runs:
        assert run.returncode == 0, run.stdout + run.stderr
        assert not any(c in run.stdout + run.stderr for c in UNSAFE)
    assert "Eve[2Jevil" in runs[0].stdout and "trick 13" in runs[1].stdout
    report = json.loads(runs[2].stdout)
    assert EVIL in [p["name"] for p in report["players"]]  # the data itself kept, escaped


def announcement(rules: object) -> bytes:
    """A correctly signed announcement whose rules summary is ``rules``."""
    host = Identity.from_seed(bytes(range(32)))
    fields = {
        "table": bytes(16),
        "host_key": host.public_key,
        "host": "alice",
        "name": "Friday",
        "rules": rules,
        "seats": [1, 4],
        "addrs": ["127.0.0.1"],
        "port": 4000,
        "state": "open",
        "age": 3,
        "every": 2000,
    }
    signed = MAGIC + bytes((VERSION, 1)) + msgpack.packb(fields, use_bin_type=True)
    return signed + host.sign(b"hearts-p2p announcement\0" + signed)


def test_list_json_renders_any_rules_summary() -> None:
    odd = {
        "note": EVIL,
        "points": b"\x00\xff",
        "moon": {"a": [b"x", None, True]},
        "ties": float("nan"),
        "x": -(2**63),
    }
    ad = decode(announcement(odd))
    assert ad is not None
    d = TableDirectory()
    d.observe(ad, "127.0.0.1", "lo", now=0.0)
    shown = render_json(d.tables(now=0.0), now=0.0)
    assert not any(c in shown for c in UNSAFE)
    (table,) = json.loads(shown)
    rules = {"note": EVIL, "points": "00ff", "moon": {"a": ["78", None, True]}, "ties": "nan"}
    assert table["rules"] == rules | {"x": -(2**63)}
    text = render(d.tables(now=0.0), now=0.0)
    assert not any(c in text for c in UNSAFE)
    assert "Friday" in text and "note=Eve[2Jevil" in text
