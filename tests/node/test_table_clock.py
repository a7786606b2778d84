"""Every node follows the table's clock, however it joined: the host's welcome says it, so a
joiner that came by address (no announcement heard) takes it as one that found the table."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from hearts_p2p.identity import Identity
from hearts_p2p.node.lobby import LobbyError, _welcome, host_lobby, join_lobby, start_players
from hearts_p2p.transport import Member
from tests.cli.pty_term import free_port, hearts_env

GAME = bytes(range(16))
HOST = Identity.from_seed(b"h" * 32)


async def test_the_welcome_carries_the_table_clock() -> None:
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    port = listener.socket.getsockname()[1]
    joiner = Identity.from_seed(b"j" * 32)

    async def host() -> None:
        joined, links = await host_lobby(listener, HOST, GAME, "t", {}, 1, lambda *_: None,
                                         clock=7)  # fmt: skip
        roster = [Member(HOST.public_key, ("127.0.0.1", port))]
        roster += [Member(s.who.public_key, s.address) for s in joined]
        await start_players(links, roster, 2.0)

    with trio.fail_after(20):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(host)
            welcome = await join_lobby(
                "127.0.0.1", port, joiner, "J", b"d" * 32, False, ("127.0.0.1", 9)
            )
    assert welcome.clock == 7 and welcome.game_id == GAME and len(welcome.roster) == 2


@pytest.mark.parametrize("clock", [0, -1, 86401, 7.5, "7", True])
def test_a_welcome_with_a_malformed_clock_is_refused(clock: object) -> None:
    answer = {"t": "welcome", "game": GAME, "table": "t", "rules": {}, "clock": clock}
    with pytest.raises(LobbyError, match="malformed welcome"):
        _welcome(answer, HOST.public_key)


def test_a_welcome_without_a_clock_is_a_older_hosts() -> None:
    answer = {"t": "welcome", "game": GAME, "table": "t", "rules": {}}
    assert _welcome(answer, HOST.public_key).clock is None


def test_a_joiner_by_address_follows_the_hosts_clock(tmp_path: Path) -> None:
    """A headless host with a 7 s clock; a bot joins by ``--peer`` with no ``--timeout``: it
    says the table's clock and keeps it for the game (its saved state), not its own 120 s."""
    port = str(free_port())
    disc = str(free_port(socket.SOCK_DGRAM))
    common = ["--discovery-port", disc]
    host = subprocess.Popen(
        [sys.executable, "-m", "hearts_p2p.cli.main", "host", "--headless", "--bots", "2",
         "--timeout", "7", "--target", "1", "--bot-strategy", "heuristic", "--port", port,
         "--name", "Ada", "--data-dir", str(tmp_path / "ada"), *common],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=hearts_env(),
    )  # fmt: skip
    try:
        bot = subprocess.run(
            [sys.executable, "-m", "hearts_p2p.cli.main", "bot", "--peer", f"127.0.0.1:{port}",
             "--strategy", "heuristic", "--name", "Robo", "--data-dir", str(tmp_path / "robo"),
             *common],
            capture_output=True, text=True, timeout=120, env=hearts_env(),
        )  # fmt: skip
        host.communicate(timeout=60)
    finally:
        if host.poll() is None:
            host.kill()
            host.communicate()
    assert bot.returncode == 0, bot.stdout + bot.stderr
    assert "waiting for the table to fill; a move is played for you after 5 s, a silent seat " \
        "is taken over after 7 s" in bot.stdout, bot.stdout  # fmt: skip
    (saved,) = (tmp_path / "robo" / "games").glob("*.json")
    assert json.loads(saved.read_text())["timeout"] == 7.0
