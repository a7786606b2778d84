"""Gong Zhu across processes: a host and three bot peers, each its own OS process on loopback.

`hearts list` shows the table's game while it waits; the game plays to its end; every peer's log
is the same bytes and audits valid, exposures and results included.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from pathlib import Path

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.log import read_log

from .procs import env, free_port, game_log, hearts, start
from .test_processes import first_difference

pytestmark = pytest.mark.slow


def test_a_gongzhu_game_between_four_processes_audits_valid(tmp_path: Path) -> None:
    dirs = [tmp_path / f"p{i}" for i in range(4)]
    port = str(free_port())
    disc = str(free_port(socket.SOCK_DGRAM))
    common = ["--discovery-port", disc]
    host = ["host", "--headless", "--bot-strategy", "heuristic", "--game", "gongzhu"]
    host += ["--limit", "300", "--table", "GZ"]
    cmds = [hearts(*host, "--port", port, "--data-dir", str(dirs[0]), "--name", "P0", *common)]
    for i in (1, 2, 3):
        bot = ["bot", "--peer", f"127.0.0.1:{port}", "--strategy", "heuristic", "--seed", str(i)]
        cmds.append(hearts(*bot, "--name", f"P{i}", "--data-dir", str(dirs[i]), *common))
    outs = [tmp_path / f"p{i}.out" for i in range(4)]
    procs = [start(cmds[0], outs[0])]
    try:
        listed: list[dict[str, object]] = []
        deadline = time.monotonic() + 30
        while not listed and time.monotonic() < deadline:
            found = subprocess.run(
                hearts("list", "--json", "--wait", "1", "--port", disc),
                capture_output=True, text=True, timeout=30, env=env(),
            )  # fmt: skip
            listed = [t for t in json.loads(found.stdout or "[]") if t["name"] == "GZ"]
        assert listed, "the host's table was never heard"
        assert listed[0]["rules"]["game"] == "gongzhu"  # type: ignore[index]
        text = subprocess.run(
            hearts("list", "--wait", "1", "--port", disc),
            capture_output=True, text=True, timeout=30, env=env(),
        )  # fmt: skip
        assert "Gong Zhu, 4 players, to −300" in text.stdout, text.stdout
        procs += [start(cmd, out) for cmd, out in zip(cmds[1:], outs[1:], strict=True)]
        codes = [p.wait(timeout=300) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    detail = "\n".join(o.read_text()[-2000:] for o in outs)
    assert codes == [0, 0, 0, 0], detail
    assert "final scores: " in outs[0].read_text()
    logs = [read_log(game_log(d)).entries for d in dirs]
    assert all(log == logs[0] for log in logs), first_difference(logs)
    report = audit_log(game_log(dirs[0]))
    assert report.valid and report.status == "finished", report.problems
    assert report.rules.startswith("Gong Zhu")
    assert len(report.results) == 4 and sum(report.results) == 0
    assert min(report.totals) <= -300
    assert all(len(h.exposed) == 4 for h in report.hands)
