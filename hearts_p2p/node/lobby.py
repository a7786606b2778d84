"""The lobby: joiners reach the host, take seats, and learn where every other player listens.

Lobby connections are authenticated like any other (signed challenge), under a fixed lobby id,
since a joiner that came by ``--peer`` does not know the game id yet. Every lobby message is
signed by its sender over the connection's handshake transcript, so nobody on the path can
rewrite one (the roster above all) or carry it into another connection. The host answers with
the game id and, once the table is full and every joiner has answered a last check, the roster
of keys and addresses for the full mesh. A seat is the joiner's while its connection lives: one
that leaves frees it, and the same key coming back takes it again. The lobby decides nothing
about cards: the genesis, co-signed by all, is the game's first word.
"""

from __future__ import annotations

import enum
import ipaddress
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

import trio

from ..game.genesis import MAX_NAME
from ..identity import SIGNATURE_BYTES, Identity, PublicIdentity, verify
from ..transport import (
    Connection,
    HandshakeError,
    Member,
    TransportError,
    accept_connection,
    open_connection,
)
from ..wire import WireError, pack, unpack

__all__ = [
    "LOBBY_ID",
    "HostLink",
    "LobbyError",
    "Seat",
    "SeatChange",
    "Welcome",
    "host_lobby",
    "join_lobby",
    "start_players",
]

log = logging.getLogger(__name__)
LOBBY_ID = b"hearts-p2p lobby"
LOBBY_VERSION = 2
HANDSHAKE_TIMEOUT = 10.0
CONNECT_PATIENCE = 20.0  # how long a joiner keeps trying to reach the host
MAX_PENDING = 32  # connections still in the handshake; more are closed at once
CHECK_TIMEOUT = 3.0  # how long a seated joiner has to answer the last check before the start
MAX_REJOINS = 10  # times a joiner takes its seat again after the host let it go before the start
REJOIN_PAUSE = 0.5  # seconds before it does
REJOIN_PATIENCE = 5.0  # how long it keeps trying to reach the host then (it may be gone)
_SIGNING_TAG = b"hearts-p2p lobby message\0"
MAX_CLOCK = 86400  # the longest table clock a welcome may say, in seconds (as announcements)


class LobbyError(Exception):
    """The lobby could not seat this player; the message says why."""


class SeatChange(enum.Enum):
    JOINED = "joined"
    LEFT = "left"
    RETURNED = "came back"


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
    clock: int | None = None  # the host's timeout in seconds, if it says it


@dataclass(eq=False)
class HostLink:
    """The host's end of a seated joiner's lobby connection: sends signed messages on it."""

    conn: Connection
    identity: Identity

    async def send(self, msg: dict[str, Any]) -> None:
        await self.conn.send(_sign(self.identity, self.conn, msg))

    async def aclose(self) -> None:
        await self.conn.aclose()


def _sign(identity: Identity, conn: Connection, msg: dict[str, Any]) -> bytes:
    body = pack(msg)
    return body + identity.sign(_SIGNING_TAG + conn.transcript + body)


async def _receive_signed(conn: Connection) -> Any:
    """The next message from the peer, which must have signed it for this connection."""
    frame = await conn.receive()
    body, signature = frame[:-SIGNATURE_BYTES], frame[-SIGNATURE_BYTES:]
    if len(frame) <= SIGNATURE_BYTES or not verify(
        conn.peer_key, signature, _SIGNING_TAG + conn.transcript + body
    ):
        raise LobbyError("a lobby message not signed by its sender for this connection")
    return unpack(body)


def _join_request(msg: Any) -> tuple[str, bytes, bool, tuple[str, int]]:
    if not isinstance(msg, dict) or msg.get("t") != "join" or msg.get("v") != LOBBY_VERSION:
        raise LobbyError("not a join request of this version")
    name, dh, bot, port = msg.get("name"), msg.get("dh"), msg.get("bot"), msg.get("port")
    host = msg.get("host")
    if not isinstance(name, str) or not 0 < len(name) <= MAX_NAME:
        raise LobbyError(f"a player name is 1 to {MAX_NAME} characters")
    if not isinstance(dh, bytes) or len(dh) != 32 or not isinstance(bot, bool):
        raise LobbyError("malformed join request")
    if not _is_ipv4(host) or not isinstance(port, int) or not 0 < port < 65536:
        raise LobbyError("a joiner must give the IPv4 address and port it listens on")
    assert isinstance(host, str)
    return name, dh, bot, (host, port)


def _is_ipv4(value: object) -> bool:
    try:
        return isinstance(value, str) and str(ipaddress.IPv4Address(value)) == value
    except ValueError:
        return False


@dataclass(eq=False)
class _Seated:
    seat: Seat
    link: HostLink
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)
    checked: bool = False


class _Lobby:
    """The host's seats, in joining order, each held by a live connection."""

    def __init__(
        self,
        identity: Identity,
        welcome: dict[str, Any],
        seats: int,
        on_change: Callable[[list[Seat], Seat, SeatChange], None],
    ) -> None:
        self.identity = identity
        self.welcome = welcome
        self.size = seats
        self.on_change = on_change
        self.seated: list[_Seated] = []
        self.changed = trio.Event()
        self.closed = False  # the start is decided: nobody else is seated
        self.pending = 0  # connections not yet authenticated with a join request

    def _notify(self, seated: _Seated, change: SeatChange) -> None:
        self.on_change([s.seat for s in self.seated], seated.seat, change)
        self.changed.set()
        self.changed = trio.Event()

    def refusal(self, key: bytes, dh: bytes) -> str | None:
        others = [s for s in self.seated if s.seat.who.public_key != key]
        if dh in {s.seat.dh for s in others}:
            return "another player has this pass key"
        if self.closed or (len(others) == len(self.seated) and len(others) >= self.size):
            return "the table is full"
        return None

    def take(self, seated: _Seated) -> None:
        """Seat a joiner; the same key coming back takes its old seat in its old place."""
        key = seated.seat.who.public_key
        for i, old in enumerate(self.seated):
            if old.seat.who.public_key == key:
                old.scope.cancel()
                self.seated[i] = seated
                self._notify(seated, SeatChange.RETURNED)
                return
        self.seated.append(seated)
        self._notify(seated, SeatChange.JOINED)

    def free(self, seated: _Seated) -> None:
        if seated in self.seated and not self.closed:
            self.seated.remove(seated)
            self._notify(seated, SeatChange.LEFT)

    async def serve(self, stream: trio.SocketStream) -> None:
        self.pending += 1
        try:
            with trio.fail_after(HANDSHAKE_TIMEOUT):
                conn = await accept_connection(stream, self.identity, LOBBY_ID)
                name, dh, bot, address = _join_request(await _receive_signed(conn))
        except (TransportError, WireError, LobbyError, trio.TooSlowError, OSError) as e:
            log.info("lobby: refused a connection: %s", e)
            await trio.aclose_forcefully(stream)
            return
        finally:
            self.pending -= 1
        link = HostLink(conn, self.identity)
        reason = self.refusal(conn.peer_key, dh)
        if reason is not None:
            await _send_quietly(link, {"t": "refused", "reason": reason})
            await conn.aclose()
            return
        seated = _Seated(Seat(PublicIdentity(name, conn.peer_key), dh, bot, address), link)
        self.take(seated)
        await _send_quietly(link, self.welcome)
        await self._watch(seated)

    async def _watch(self, seated: _Seated) -> None:
        """Read the joiner's answers until it leaves (or the start), then free its seat."""
        with seated.scope:
            try:
                while True:
                    msg = await _receive_signed(seated.link.conn)
                    if not isinstance(msg, dict) or msg.get("t") != "here":
                        raise LobbyError("unexpected lobby message")
                    seated.checked = True
                    self.changed.set()
                    self.changed = trio.Event()
            except (TransportError, WireError, LobbyError) as e:
                log.info("lobby: %s left: %s", seated.seat.who.name, e)
        if not self.closed:
            self.free(seated)
            await trio.aclose_forcefully(seated.link.conn)

    async def wait_ready(self) -> None:
        """Return once every seat is taken by a joiner that answered the last check."""
        while True:
            while len(self.seated) < self.size:
                await self.changed.wait()
            await self._check()
            if len(self.seated) == self.size:
                self.closed = True
                return

    async def _check(self) -> None:
        """Ask every seat whether its joiner is still there; free the seats that do not say.

        A seat that empties meanwhile ends the check: the table waits to be full again.
        """
        asked: set[_Seated] = set()
        with trio.move_on_after(CHECK_TIMEOUT) as waiting:
            while len(self.seated) == self.size and not all(s.checked for s in self.seated):
                for s in [s for s in self.seated if s not in asked]:
                    asked.add(s)
                    await _send_quietly(s.link, {"t": "check"})
                await self.changed.wait()
        if waiting.cancelled_caught:
            for s in [s for s in self.seated if not s.checked]:
                s.scope.cancel()
                self.free(s)
                await trio.aclose_forcefully(s.link.conn)
        if len(self.seated) < self.size:
            for s in self.seated:
                s.checked = False


async def host_lobby(
    listener: trio.SocketListener,
    identity: Identity,
    game_id: bytes,
    table_name: str,
    rules: dict[str, Any],
    seats: int,
    on_change: Callable[[list[Seat], Seat, SeatChange], None],
    clock: int | None = None,
) -> tuple[list[Seat], list[HostLink]]:
    """Seat joiners until ``seats`` are taken by joiners still there; them and their links.
    ``clock``, the table's timeout, goes in the welcome: a joiner that came by address heard
    no announcement, and must follow the table's clock all the same."""
    welcome: dict[str, Any] = {"t": "welcome", "game": game_id, "table": table_name, "rules": rules}
    if clock is not None:
        welcome["clock"] = clock
    lobby = _Lobby(identity, welcome, seats, on_change)
    async with trio.open_nursery() as nursery:

        async def accept_loop() -> None:
            while True:
                try:
                    stream = await listener.accept()
                except OSError as e:  # out of file descriptors, say: back off, do not die
                    log.warning("lobby: accept failed: %s", e)
                    await trio.sleep(1.0)
                    continue
                if lobby.pending >= MAX_PENDING:
                    await trio.aclose_forcefully(stream)  # a flood costs the flooder only
                    continue
                nursery.start_soon(lobby.serve, stream)

        nursery.start_soon(accept_loop)
        await lobby.wait_ready()
        nursery.cancel_scope.cancel()  # the seated keep their connections for the start
    return [s.seat for s in lobby.seated], [s.link for s in lobby.seated]


async def _send_quietly(link: HostLink, msg: dict[str, Any]) -> None:
    try:
        await link.send(msg)
    except TransportError as e:
        log.info("lobby: could not answer a joiner: %s", e)


async def start_players(links: list[HostLink], roster: list[Member], genesis_wait: float) -> None:
    """Tell every joiner the roster (keys and addresses) and close the lobby connections."""
    start = {
        "t": "start",
        "roster": [
            {"key": m.public_key, "host": m.address[0] if m.address else "", "port":
             m.address[1] if m.address else 0}
            for m in roster
        ],
    }  # fmt: skip
    for link in links:
        await _send_quietly(link, start)
    with trio.move_on_after(genesis_wait):
        for link in links:
            await link.aclose()


async def join_lobby(
    host: str,
    port: int,
    identity: Identity,
    name: str,
    dh: bytes,
    bot: bool,
    listen_at: tuple[str, int],
    host_key: bytes | None = None,
    on_welcome: Callable[[Welcome], Awaitable[None]] | None = None,
) -> Welcome:
    """Take a seat at the table at ``host:port`` and wait for the game to start.

    ``listen_at`` is where this joiner listens for the mesh: signed, so nobody on the path
    can point the others elsewhere (the host does not take the connection's source address).
    ``host_key`` is the key the table was announced with: the handshake refuses anyone else.
    """
    request = {"t": "join", "v": LOBBY_VERSION, "name": name, "dh": dh, "bot": bot,
               "host": listen_at[0], "port": listen_at[1]}  # fmt: skip
    seated = False
    for rejoin in range(MAX_REJOINS + 1):
        if rejoin:
            await trio.sleep(REJOIN_PAUSE)
        patience = REJOIN_PATIENCE if rejoin else CONNECT_PATIENCE
        conn = await _reach(host, port, identity, host_key, patience)
        host_key = conn.peer_key  # joining again must reach the same host
        async with conn:
            try:
                await conn.send(_sign(identity, conn, request))
                welcome = _welcome(await _receive_signed(conn), conn.peer_key)
                if not seated and on_welcome is not None:
                    await on_welcome(welcome)
                seated = True
                while True:
                    msg = await _receive_signed(conn)
                    if not (isinstance(msg, dict) and msg.get("t") == "check"):
                        break
                    await conn.send(_sign(identity, conn, {"t": "here"}))
            except (TransportError, WireError) as e:
                # Seated, then let go before the start: on a lossy link the host's last check
                # can miss this joiner's answer, and frees the seat. It is free: take it again.
                if not seated or rejoin == MAX_REJOINS:
                    raise LobbyError(f"the host closed the lobby: {e}") from None
                log.info("lobby: the host let this seat go before the start (%s); joining again", e)
                continue
        roster = _roster(msg, conn.peer_key, identity.public_key)
        return replace(welcome, roster=roster)
    raise AssertionError("unreachable: the last try returns or raises")


def _welcome(answer: Any, host_key: bytes) -> Welcome:
    if not isinstance(answer, dict) or answer.get("t") != "welcome":
        reason = answer.get("reason") if isinstance(answer, dict) else None
        raise LobbyError(f"the host refused: {reason or 'no reason given'}")
    game_id, table, rules = answer.get("game"), answer.get("table"), answer.get("rules")
    if not isinstance(game_id, bytes) or len(game_id) != 16:
        raise LobbyError("the host sent a malformed welcome")
    if not isinstance(table, str) or not isinstance(rules, dict):
        raise LobbyError("the host sent a malformed welcome")
    clock = answer.get("clock")
    if clock is not None and (type(clock) is not int or not 1 <= clock <= MAX_CLOCK):
        raise LobbyError("the host sent a malformed welcome")
    return Welcome(game_id, host_key, table, rules, (), clock)


async def _reach(
    host: str, port: int, identity: Identity, host_key: bytes | None, patience: float
) -> Connection:
    """Connect and authenticate, trying again for a while: on a lossy link a connection can
    fail outright (an unanswered ARP request is "no route to host"), not only slowly."""
    error: Exception | None = None
    with trio.move_on_after(patience):
        while True:
            try:
                with trio.fail_after(HANDSHAKE_TIMEOUT):
                    return await open_connection(host, port, identity, LOBBY_ID, expected=host_key)
            except (OSError, TransportError, trio.TooSlowError) as e:
                error = e
                if isinstance(e, HandshakeError) and e.reason in ("unknown-peer", "refused"):
                    break  # a definite answer: someone else is at that address
            await trio.sleep(0.5)
    raise LobbyError(f"cannot reach the table at {host}:{port}: {error or 'timed out'}")


def _roster(msg: Any, host_key: bytes, own_key: bytes) -> tuple[Member, ...]:
    """The start's roster: the host first, this joiner once, no key twice."""
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
    keys = [m.public_key for m in out]
    if not keys or keys[0] != host_key or keys.count(own_key) != 1 or len(set(keys)) != len(keys):
        raise LobbyError("the host sent a roster without it first, without us, or with a key twice")
    return tuple(out)
