"""Whether an unfinished game can go on, asked of its players in a bounded time, and what
forgetting one does. Real sockets on loopback; a peer is a real mesh serving watchers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio

from hearts_p2p.identity import Identity
from hearts_p2p.node.store import DataDir
from hearts_p2p.node.unfinished import Role, forget, probe, unfinished
from hearts_p2p.rules import Rules
from hearts_p2p.transport import Connection, Member, open_mesh
from tests.ports import own_port

from .unfinished_game import left_unfinished

NOBODY = [("127.0.0.1", own_port()) for _ in range(3)]  # ports nothing listens on


@asynccontextmanager
async def a_peer(identity: Identity, game_id: bytes) -> AsyncIterator[tuple[str, int]]:
    """A player's node in game ``game_id``, as ``hearts`` runs one: a mesh that takes
    strangers (watchers) on its listener; yields its address."""
    listener = (await trio.open_tcp_listeners(0, host="127.0.0.1"))[0]
    roster = [Member(identity.public_key), Member(Identity.generate().public_key, NOBODY[0])]
    async with trio.open_nursery() as nursery:

        def stranger(conn: Connection) -> None:
            nursery.start_soon(conn.aclose)

        async with open_mesh(
            identity, game_id, roster, listeners=[listener], strangers=stranger, dial_all=False
        ):
            yield listener.socket.getsockname()[:2]
            nursery.cancel_scope.cancel()


async def test_a_game_one_of_whose_players_answers_can_go_on(tmp_path: Path) -> None:
    bot, game_id = Identity.generate(), os.urandom(16)
    store = DataDir(tmp_path)
    async with a_peer(bot, game_id) as address:
        left_unfinished(tmp_path, [address, *NOBODY[:2]], others=[bot], game_id=game_id)
        (game,) = unfinished(store)
        start = time.monotonic()
        live = await probe(store, game, window=5.0)
        took = time.monotonic() - start
    assert live.goes_on and live.answered == ("Bot 1",), live
    assert live.text() == "Bot 1 answers"
    assert took < 2.0  # at once, not at the end of the window


async def test_a_game_nobody_answers_cannot_go_on_and_the_test_ends_in_its_window(
    tmp_path: Path,
) -> None:
    store = DataDir(tmp_path)
    left_unfinished(tmp_path, NOBODY)
    (game,) = unfinished(store)
    start = time.monotonic()
    live = await probe(store, game, window=1.0)
    took = time.monotonic() - start
    assert not live.goes_on and live.asked == 3
    assert live.text(1.0) == "none of its 3 other players answered within 1 s"
    assert 1.0 <= took < 2.0


async def test_a_node_of_another_game_does_not_answer_for_this_one(tmp_path: Path) -> None:
    """The same player's node, playing another game at the address: the game is gone."""
    bot = Identity.generate()
    store = DataDir(tmp_path)
    async with a_peer(bot, os.urandom(16)) as address:
        left_unfinished(tmp_path, [address, *NOBODY[:2]], others=[bot])
        (game,) = unfinished(store)
        live = await probe(store, game, window=1.0)
    assert not live.goes_on and not live.answered


async def test_a_stranger_at_the_address_does_not_answer_for_the_player(tmp_path: Path) -> None:
    """Another key at the player's address, in the same game: not the player."""
    store, game_id = DataDir(tmp_path), os.urandom(16)
    async with a_peer(Identity.generate(), game_id) as address:
        left_unfinished(tmp_path, [address, *NOBODY[:2]], game_id=game_id)
        (game,) = unfinished(store)
        live = await probe(store, game, window=1.0)
    assert not live.goes_on


async def test_the_hosts_own_stopped_bots_let_the_game_go_on_without_asking(
    tmp_path: Path,
) -> None:
    store = DataDir(tmp_path)
    left_unfinished(tmp_path, NOBODY, bots=3)
    DataDir(tmp_path / "bots" / "bot2").finished("join")  # its game ended: it cannot resume
    (game,) = unfinished(store)
    live = await probe(store, game, window=5.0)
    assert live.goes_on and live.restartable == ("Bot 1", "Bot 3")
    assert live.text() == "its bots Bot 1, Bot 3 start again"


def test_the_list_reads_the_table_the_rules_and_the_start_from_the_log(tmp_path: Path) -> None:
    rules = Rules(players=3, target=50)
    left_unfinished(tmp_path, NOBODY[:2], table="Friday", rules=rules)
    (game,) = unfinished(DataDir(tmp_path))
    assert (game.role, game.table, game.rules, game.started) == (
        Role.HOST, "Friday", rules, 1_800_000_000
    )  # fmt: skip
    assert game.named("Friday") and game.named(game.state.game_id.hex()[:6])
    assert not game.named("Frida") and not game.named(game.state.game_id.hex()[:3])
    assert game.last_played is not None and abs(game.last_played - time.time()) < 60


def test_an_unreadable_log_is_listed_as_such(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY)
    DataDir(tmp_path).game(state.game_id).log.write_bytes(b"not a log")
    (game,) = unfinished(DataDir(tmp_path))
    assert game.genesis is None and game.table is None


def test_forgetting_keeps_the_log_and_makes_the_bots_still_playing_leave(tmp_path: Path) -> None:
    state = left_unfinished(tmp_path, NOBODY, bots=2)
    store = DataDir(tmp_path)
    bot_dir = tmp_path / "bots" / "bot1"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import signal, sys, time
            from pathlib import Path
            from hearts_p2p.node.store import DataDir
            held = DataDir(Path({str(bot_dir)!r}))
            held.lock()
            signal.signal(signal.SIGTERM, lambda *_: sys.exit(7))  # a bot's quit
            print("holding", flush=True)
            time.sleep(60)
        """)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        assert DataDir(bot_dir).holder() == holder.pid
        (game,) = unfinished(store)
        start = time.monotonic()
        forget(store, game)
        assert holder.wait(timeout=5) == 7  # told to leave, and gone before forget returned
        assert time.monotonic() - start < 3.0
    finally:
        if holder.poll() is None:
            holder.send_signal(signal.SIGKILL)
            holder.wait()
    assert unfinished(store) == []
    assert DataDir(bot_dir).unfinished("join") is None
    assert DataDir(tmp_path / "bots" / "bot2").unfinished("join") is None
    assert store.game(state.game_id).log.exists()
