"""The lobby: joiners reach the host, take seats, and learn where every other player listens.

Lobby connections are authenticated like any other (signed challenge), under a fixed lobby id,
since a joiner that came by ``--peer`` does not know the game id yet. The host answers with the
game id and, once the table is full, the roster of keys and addresses for the full mesh. The
lobby decides nothing about cards: the genesis, co-signed by all, is the game's first word.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio

from ..game.genesis import MAX_NAME
from ..identity import Identity, PublicIdentity
from ..transport import (
    Connection,
    HandshakeError,
    Member,
    TransportError,
    accept_connection,
    open_connection,
)
from ..wire import WireError, pack, unpack

__all__ = ["LOBBY_ID", "LobbyError", "Seat", "Welcome", "host_lobby", "join_lobby"]

log = logging.getLogger(__name__)
LOBBY_ID = b"hearts-p2p lobby"
LOBBY_VERSION = 1
HANDSHAKE_TIMEOUT = 10.0
CONNECT_PATIENCE = 20.0  # how long a joiner keeps trying to reach the host


class LobbyError(Exception):
    """The lobby could not seat this player; the message says why."""


@dataclass(frozen=True)
class Seat:
    """A joiner as the host knows it: who, its pass key, where it listens."""

    who: PublicIdentity
    dh: bytes
    bot: bool
    address: tuple[str, int]


@dataclass(frozen=True)
class Welcome:
    """What a joiner learns: the game, its rules and table, and (at the start) the roster."""

    game_id: bytes
    host_key: bytes
    table_name: str
    rules: dict[str, Any]
    roster: tuple[Member, ...]


def _join_request(msg: Any) -> tuple[str, bytes, bool, int]:
    if not isinstance(msg, dict) or msg.get("t") != "join" or msg.get("v") != LOBBY_VERSION:
        raise LobbyError("not a join request of this version")
    name, dh, bot, port = msg.get("name"), msg.get("dh"), msg.get("bot"), msg.get("port")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
        raise LobbyError(f"a player name is 1 to {MAX_NAME} characters")
    if not isinstance(dh, bytes) or len(dh) != 32 or not isinstance(bot, bool):
        raise LobbyError("malformed join request")
    if not isinstance(port, int) or not 0 < port < 65536:
        raise LobbyError("a joiner must give the port it listens on")
    return name, dh, bot, port


async def host_lobby(
    listener: trio.SocketListener,
    identity: Identity,
    game_id: bytes,
    table_name: str,
    rules: dict[str, Any],
    seats: int,
    on_change: Callable[[list[Seat]], None],
) -> tuple[list[Seat], list[Connection]]:
    """Accept joiners until ``seats`` have joined; returns them with their open connections."""
    joined: list[Seat] = []
    conns: list[Connection] = []
    full = trio.Event()

    async def serve(stream: trio.SocketStream) -> None:
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                conn = await accept_connection(stream, identity, LOBBY_ID)
                request = _join_request(unpack(await conn.receive()))
        except (TransportError, WireError, LobbyError, trio.TooSlowError, OSError) as e:
            log.info("lobby: refused a connection: %s", e)
            await trio.aclose_forcefully(stream)
            return
        name, dh, bot, port = request
        keys = {s.who.public_key for s in joined} | {identity.public_key}
        taken = conn.peer_key in keys or dh in {s.dh for s in joined}
        if full.is_set() or taken:
            reason = "the table is full" if full.is_set() else "this key is seated already"
            await _send_quietly(conn, {"t": "refused", "reason": reason})
            await conn.aclose()
            return
        remote = conn.remote or ("127.0.0.1", 0)
        seat = Seat(PublicIdentity(name, conn.peer_key), dh, bot, (remote[0], port))
        joined.append(seat)
        conns.append(conn)
        on_change(list(joined))
        if len(joined) == seats:
            full.set()
        welcome = {"t": "welcome", "game": game_id, "table": table_name, "rules": rules}
        await _send_quietly(conn, welcome)

    async with trio.open_nursery() as nursery:
        accepting = trio.CancelScope()

        async def accept_loop() -> None:
            with accepting:
                while True:
                    stream = await listener.accept()
                    nursery.start_soon(serve, stream)

        nursery.start_soon(accept_loop)
        await full.wait()
        accepting.cancel()  # seated joiners still get their welcome; latecomers are refused
    return joined, conns


async def _send_quietly(conn: Connection, msg: dict[str, Any]) -> None:
    try:
        await conn.send(pack(msg))
    except TransportError as e:
        log.info("lobby: could not answer a joiner: %s", e)


async def start_players(conns: list[Connection], roster: list[Member], genesis_wait: float) -> None:
    """Tell every joiner the roster (keys and addresses) and close the lobby connections."""
    frame = pack(
        {
            "t": "start",
            "roster": [
                {"key": m.public_key, "host": m.address[0] if m.address else "", "port":
                 m.address[1] if m.address else 0}
                for m in roster
            ],
        }
    )  # fmt: skip
    for conn in conns:
        try:
            await conn.send(frame)
        except TransportError as e:
            log.info("lobby: a joiner left before the start: %s", e)
    with trio.move_on_after(genesis_wait):
        for conn in conns:
            await conn.aclose()


async def join_lobby(
    host: str,
    port: int,
    identity: Identity,
    name: str,
    dh: bytes,
    bot: bool,
    listen_port: int,
    host_key: bytes | None = None,
    on_welcome: Callable[[Welcome], Awaitable[None]] | None = None,
) -> Welcome:
    """Take a seat at the table at ``host:port`` and wait for the game to start."""
    conn = await _reach(host, port, identity, host_key)
    async with conn:
        request = {"t": "join", "v": LOBBY_VERSION, "name": name, "dh": dh, "bot": bot,
                   "port": listen_port}  # fmt: skip
        try:
            await conn.send(pack(request))
            answer = unpack(await conn.receive())
            if not isinstance(answer, dict) or answer.get("t") != "welcome":
                reason = answer.get("reason") if isinstance(answer, dict) else None
                raise LobbyError(f"the host refused: {reason or 'no reason given'}")
            game_id, table, rules = answer.get("game"), answer.get("table"), answer.get("rules")
            if not isinstance(game_id, bytes) or len(game_id) != 16:
                raise LobbyError("the host sent a malformed welcome")
            if not isinstance(table, str) or not isinstance(rules, dict):
                raise LobbyError("the host sent a malformed welcome")
            welcome = Welcome(game_id, conn.peer_key, table, rules, ())
            if on_welcome is not None:
                await on_welcome(welcome)
            start = unpack(await conn.receive())
        except (TransportError, WireError) as e:
            raise LobbyError(f"the host closed the lobby: {e}") from None
    return Welcome(game_id, welcome.host_key, table, rules, _roster(start))


async def _reach(host: str, port: int, identity: Identity, host_key: bytes | None) -> Connection:
    """Connect and authenticate, trying again for a while: on a lossy link a connection can
    fail outright (an unanswered ARP request is "no route to host"), not only slowly."""
    error: Exception | None = None
    with trio.move_on_after(CONNECT_PATIENCE):
        while True:
            try:
                with trio.fail_after(HANDSHAKE_TIMEOUT):
                    return await open_connection(host, port, identity, LOBBY_ID, expected=host_key)
            except (OSError, TransportError, trio.TooSlowError) as e:
                error = e
                if isinstance(e, HandshakeError) and e.reason in ("unknown-peer", "table"):
                    break  # a definite answer: someone else is at that address
            await trio.sleep(0.5)
    raise LobbyError(f"cannot reach the table at {host}:{port}: {error or 'timed out'}")


def _roster(msg: Any) -> tuple[Member, ...]:
    if (
        not isinstance(msg, dict)
        or msg.get("t") != "start"
        or not isinstance(msg.get("roster"), list)
    ):
        raise LobbyError("the host sent a malformed start")
    out = []
    for m in msg["roster"]:
        if not isinstance(m, dict):
            raise LobbyError("the host sent a malformed roster")
        key, host, port = m.get("key"), m.get("host"), m.get("port")
        if not isinstance(key, bytes) or len(key) != 32 or not isinstance(host, str):
            raise LobbyError("the host sent a malformed roster")
        if not isinstance(port, int) or not 0 <= port < 65536:
            raise LobbyError("the host sent a malformed roster")
        out.append(Member(key, (host, port) if host and port else None))
    return tuple(out)
