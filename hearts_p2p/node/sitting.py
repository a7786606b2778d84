"""A newcomer takes an open seat of a running table: ``hearts join`` of a game that plays.

The newcomer holds an identity key no roster names. It finds the table's announcement (which
says the seats a newcomer may take), connects to the announcing node as a watcher, and takes
the log so far through the audit's observer. It sits only if that log is sound as far as it
goes (every frame signed by a player, the audit finding nothing but its open end) and the seat
is still open; else it says why and leaves. Then it signs its ``sit`` and sends it over the
watch connection; the node checks it as every peer does and answers with the seats'
addresses. The newcomer dials every seat (no roster gives its address: the seats accept it
once they hold its sit) and follows the game as a mesh peer: its node re-keys with the table at
the next hand boundary and plays the seat from the hand the protocol gives (SPEC 6.15). If the
table does not seat it at that boundary (an ``ask`` table's refusal, or another newcomer
first), it says so and leaves; it never blamed anyone, and signs nothing more.

Every wait is bounded: the feed's silence, the catching up, the answer to the sit.
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import trio

from ..audit import audit_log
from ..discovery import TableState, open_browser
from ..discovery.directory import TableInfo
from ..frontend import FrontEnd, Notice, shows_plays
from ..game import (
    GameProtocol,
    Genesis,
    GenesisError,
    ProtocolError,
    SeatedRoster,
    Status,
)
from ..game.sitdown import SIT
from ..identity import Identity
from ..log import GameLog
from ..rules import OpenSeats
from ..text import clean, quoted
from ..transport import Connection, Member, TransportError
from ..wire import SignedMessage, WireError, decode_frame
from .runner import GameRunner
from .session import Outcome, PeerOptions, SessionError, _identity, _listen, _locked, _play
from .store import DataDir
from .watch import hello_frame, parse_live, parse_peers
from .watch_client import LiveAudit, WatchError, _reach, _refusal

__all__ = ["SitTimes", "find_open_seat", "sit_down", "wanted_table"]


_T = TypeVar("_T")
MAX_ASKS = 6  # sits sent over the watch connection before the newcomer gives up: one that
# starts hands behind a fast table (checking the log so far took that long) asks for each
# boundary as it catches up
MAX_EARLY = 4096  # feed frames kept while the log so far is checked, before the sit is sent
MAX_BOUNDARIES = 3  # hand boundaries an ``anyone`` table may pass without seating it
PROBE_EVERY = 1.0  # seconds between probes while waiting for a seat to open


@dataclass(frozen=True)
class SitTimes:
    """The newcomer's bounds: the longest the catching up may take, and how long the node may
    take to answer the sit."""

    catch_up: float = 60.0
    answer: float = 10.0


def wanted_table(table: str | None, seat: int | None) -> Callable[[TableInfo], bool]:
    """The predicate of a playing table named ``table`` with an open seat (``seat`` if given)."""

    def wanted(t: TableInfo) -> bool:
        a = t.announcement
        if a.state is not TableState.PLAYING or not a.open_seats:
            return False
        if seat is not None and seat not in a.open_seats:
            return False
        return (
            table is None
            or table in (a.table_name, a.table_id.hex())
            or (len(table) >= 4 and a.table_id.hex().startswith(table.lower()))
        )

    return wanted


async def find_open_seat(opts: PeerOptions, table: str | None, seat: int | None,
                         timeout: float) -> TableInfo | None:  # fmt: skip
    """The announcement of a playing table with an open seat, heard within ``timeout``."""
    wanted = wanted_table(table, seat)
    async with open_browser(opts.interfaces, config=opts.discovery) as browser:
        with trio.move_on_after(timeout):
            while True:  # probing anew each second: a seat opens while the newcomer waits
                with trio.move_on_after(PROBE_EVERY):
                    return await browser.wait_for(wanted)
                await browser.probe()
    return None


async def sit_down(
    opts: PeerOptions,
    front: FrontEnd,
    info: TableInfo,
    seat: int | None = None,
    times: SitTimes = SitTimes(),
    *,
    task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED,
) -> Outcome:
    """Take an open seat of the table ``info`` announces (``seat``, else the first open one)
    and play it to the end; a ``SessionError`` says why not."""
    store = _locked(opts)
    identity = await _identity(store, opts, front)
    ad = info.announcement
    want = seat if seat is not None else ad.open_seats[0]
    await front.notify(Notice(f"{quoted(ad.table_name)} plays: following it from "
                              f"{clean(ad.host_name)}'s node to take seat {want}"))  # fmt: skip
    try:
        conn = await _reach(info.address, ad.port, identity, ad.table_id, ad.host_key)
    except WatchError as e:
        raise SessionError(str(e)) from None
    async with conn:
        try:
            await conn.send(hello_frame(identity, conn.transcript, opts.name, sit=True))
        except TransportError as e:
            raise SessionError(f"the table's node closed the connection: {e}") from None
        path = store.root / "watched" / f"{ad.table_id.hex()}.log"
        path.parent.mkdir(parents=True, exist_ok=True)
        seats: list[SeatedRoster] = []
        try:
            live = await _catch_up(conn, ad.table_id, path, times, seats)
        except TransportError as e:
            raise SessionError(f"the table's feed ended before the seat could be asked for "
                               f"({e}): the game may be over; not sitting") from None  # fmt: skip
        early: list[bytes] = []

        def check_and_ask() -> tuple[GameProtocol, SignedMessage]:
            return _ask(store, identity, opts, live, _check(live, path, want), shows_plays(front))

        try:
            proto, sit = await _reading_on(conn, early, check_and_ask)
        finally:
            live.close()
        for shown in seats if shows_plays(front) else ():
            await front.notify(shown)  # a person's screen names the seats
        await front.notify(Notice(f"The log so far audits sound: asking for seat {want}"))
        try:
            log_path = store.game(proto.game_id).log
            roster, hand = await _asking(conn, proto, log_path, sit, times, early)
        except TransportError as e:
            raise SessionError(f"the table's feed ended while asking ({e}): not sitting") from None
    await front.notify(Notice(f"Asked for seat {want} from hand {hand}; joining the table"))
    listener = await _listen(opts.address, opts.port)
    outcome: Outcome | None = None
    why: list[str] = []
    genesis = proto.genesis
    ask = genesis is not None and genesis.rules.open_seats is OpenSeats.ASK
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_refused_watch, proto, hand, 2 * opts.absent_timeout, why,
                           nursery.cancel_scope, 1 if ask else MAX_BOUNDARIES,
                           front)  # fmt: skip
        outcome = await _play(store, "sit", identity, proto, roster, listener, opts, front,
                              dial_all=True, task_status=task_status)  # fmt: skip
        nursery.cancel_scope.cancel()
    if why:
        raise SessionError(why[0])
    assert outcome is not None
    return outcome


async def _catch_up(
    conn: Connection, game_id: bytes, path: Path, times: SitTimes, seats: list[SeatedRoster]
) -> LiveAudit:
    """The log so far, through the audit's observer, until the node says it is all (``live``);
    the seats as drawn go to ``seats``, for the newcomer's screen."""
    live: LiveAudit | None = None
    with trio.move_on_after(times.catch_up):
        while not parse_live(frame := await conn.receive()):
            if live is None:
                if (reason := _refusal(frame)) is not None:
                    raise SessionError(f"the table's node refused: {reason}")
                live = LiveAudit(game_id, _host_key(frame), path)
            seats += [e for e in live.take(frame) if isinstance(e, SeatedRoster)]
        if live is not None:
            return live
    if live is not None:
        live.close()
    raise SessionError("the table's node did not send its log in time: not sitting")


def _host_key(frame: bytes) -> bytes:
    """The host's key, as the feed's first entry, the genesis, names it (the node serving the
    feed may be another player's, once the table plays the host's seat)."""
    try:
        env = decode_frame(frame).envelope
        return Genesis.from_wire(env.game_id, env.body).players[0].key
    except (WireError, GenesisError, IndexError) as e:
        raise SessionError(f"the feed does not start with a genesis ({e}): not sitting") from None


async def _reading_on(conn: Connection, frames: list[bytes], work: Callable[[], _T]) -> _T:
    """``work`` in a worker thread while the feed goes on into ``frames`` (at most
    ``MAX_EARLY``): checking the log so far takes seconds, and a node drops a watcher that stops
    reading for its send timeout. A feed that ends here ends the asking that follows."""
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            with contextlib.suppress(TransportError):
                while len(frames) < MAX_EARLY:
                    frames.append(await conn.receive())

        nursery.start_soon(read)
        result = await trio.to_thread.run_sync(work)
        nursery.cancel_scope.cancel()
    return result


def _check(live: LiveAudit, path: Path, seat: int) -> int:
    """The player at ``seat``, once the log so far is sound and that seat open; else why not."""
    if live.problems:
        raise SessionError(f"the feed held {live.problems} frame(s) no player signed: it is "
                           "damaged or forged, so not sitting")  # fmt: skip
    report = audit_log(path)
    if not report.sound_so_far:
        problems = "; ".join(str(p) for p in report.problems if p != report.open_end)
        raise SessionError(f"the log so far does not audit: {problems or report.status.value}; "
                           "not sitting")  # fmt: skip
    p = live.proto
    if p.status is not Status.RUNNING or not p.player_at:
        raise SessionError("the game is not running: no seat to take")
    player = p.player_at[seat] if 0 <= seat < len(p.player_at) else None
    if player is None or player not in p.table_seats:
        raise SessionError(f"seat {seat} is not open: the table does not play it")
    return player


def _ask(store: DataDir, identity: Identity, opts: PeerOptions, live: LiveAudit,
         player: int, views: bool) -> tuple[GameProtocol, SignedMessage]:  # fmt: skip
    """The newcomer's protocol on the audited log, its fresh secret saved, and its sit."""
    p = live.proto
    secret = secrets.token_bytes(32)
    files = store.game(p.game_id)
    files.secrets.save({"secret": secret, "choices": {}})
    genesis = p.genesis
    assert genesis is not None
    proto = GameProtocol(p.game_id, genesis.players[0].key, identity, secret, views=views)
    files.log.unlink(missing_ok=True)
    proto.resume(p.entries)
    log = GameLog.open(files.log)  # the log the mesh peer goes on with
    for entry in p.entries:
        log.append(entry)
    log.close()
    try:
        proto.ask_seat(player, opts.name, opts.is_bot)
    except ProtocolError as e:  # this key plays here already, say
        raise SessionError(f"cannot ask for that seat: {e}") from None
    out, _, _ = proto.drain()
    sits = [m for m in out if m.envelope.kind == "sit"]
    if not sits:
        raise SessionError("the seat cannot be asked for now (the table's rules do not allow it)")
    files.secrets.save({"secret": secret, "choices": dict(proto.choices)})
    return proto, sits[0]


def _take(
    proto: GameProtocol, log: GameLog, frames: Sequence[bytes], sit: SignedMessage
) -> SignedMessage:
    """Feed ``frames`` to the newcomer's protocol and log what it takes: the sit to send next
    (each boundary passed makes the protocol sign one for the hand after: the newest is the one
    the table can still take), else ``sit``."""
    for frame in frames:
        with contextlib.suppress(WireError):
            proto.receive(decode_frame(frame))
    out, entries, _ = proto.drain()
    for entry in entries:
        log.append(entry)
    sits = [m for m in out if m.envelope.kind == SIT]
    return sits[-1] if sits else sit


async def _asking(
    conn: Connection,
    proto: GameProtocol,
    log_path: Path,
    sit: SignedMessage,
    times: SitTimes,
    early: Sequence[bytes] = (),
) -> tuple[Sequence[Member], int]:
    """Send the sit over the watch connection until the node takes one: the seats' addresses
    and the hand it is for. One the node did not take (the table passed a boundary while this
    newcomer audited) is followed by the next the protocol signs, as the feed goes on; the
    ``early`` frames, read while the log so far was checked, come first."""
    log = GameLog.open(log_path)
    try:
        sit = _take(proto, log, early, sit)
        for _ in range(MAX_ASKS):
            await conn.send(sit.raw)
            with trio.move_on_after(times.answer):
                while (answer := parse_peers(frame := await conn.receive())) is None:
                    sit = _take(proto, log, (frame,), sit)
                peers, taken = answer
                if taken:
                    me = proto.identity
                    keep = [Member(k, a) for k, a in peers if me is None or k != me.public_key]
                    return keep, sit.envelope.hand
                continue
            break
    finally:
        log.close()
    raise SessionError("the table's node did not take the sit: not sitting")


async def _refused_watch(
    proto: GameProtocol,
    hand: int,
    stall: float,
    why: list[str],
    scope: trio.CancelScope,
    boundaries: int = 1,
    front: FrontEnd | None = None,
) -> None:
    """End the newcomer's session once ``boundaries`` hands, from the one it asked for, are
    dealt without it, or while unseated the game stands still for ``stall`` seconds (the table
    does not answer). At an ``anyone`` table a boundary passed without it is most often its
    own escrow come too late (a loaded machine, a slow link), or its sit reaching the others
    after they passed that hand's ``seats``: its protocol asks again for the next hand, so it
    waits for that one. At an ``ask`` table the first is a refusal. The dealt
    hand counts, not the step's: the next hand's deck is shuffled ahead, during the hand
    before."""
    seen, since = proto.step, trio.current_time()
    left = boundaries
    while proto.status is Status.RUNNING:
        await trio.sleep(0.25)
        step = proto.step
        if step is not seen:
            seen, since = step, trio.current_time()
        game = proto.game
        if proto.me is None and game is not None and game.number >= hand:
            left -= 1
            if left > 0:
                if front is not None:
                    again = f"asking again for hand {game.number + 1}"
                    await front.notify(Notice(f"The table did not seat you at hand {hand}: "
                                              f"{again}"))  # fmt: skip
                hand = game.number + 1
                continue
            why.append(f"the table did not seat you at hand {hand}: the seat stays the table's, "
                       "and nobody is blamed")  # fmt: skip
            scope.cancel()
            return
        if proto.me is None and trio.current_time() - since > stall:
            why.append(f"the table stopped answering for {stall:g} s: leaving")
            scope.cancel()
            return
