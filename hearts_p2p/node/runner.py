"""Running one game over the network: the trio side of a node.

One task alone advances the game: readers (one per peer) and the seat's front end only put
things on its queue. Before anything is sent, the log entries it depends on are on disk, and the
seat's secrets are saved before any message that uses them, so a peer killed at any point
restarts, replays its log and rejoins with the same messages it would have sent.

Nothing a peer does can hold that task: sends only queue frames (the mesh drops a peer that does
not take them), a sync is answered with a bounded slice of the log and at most once per
``sync_interval`` per peer, and a quit ends everything, the last words to the peers included,
within ``leave_within``.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import trio

from ..bots import make_bot
from ..control import Chat, Control, Done, Sync, Synced, Watching, encode, parse_control
from ..engine import Action, ChooseMoon, PassCards, PlayCard, SeatView
from ..frontend import (
    Aborted,
    ChatLine,
    Event,
    FrontEnd,
    GameOver,
    Notice,
    PeerState,
    PeerStatus,
    shows_plays,
)
from ..game import GameProtocol, HandStarted, ProtocolError, SitAsked, Status, StepKind
from ..game.sitdown import SIT
from ..game.timebank import TimeBank
from ..log import GameLog, SecretStore
from ..system import current
from ..wire import SignedMessage, WireError, decode_frame, decode_peer_frame
from .watch import watching_line

__all__ = ["GameRunner", "Links", "RunnerConfig"]

log = logging.getLogger(__name__)
_SYNC_BATCH = 64  # log entries read back at a time to catch a peer up


class Links(Protocol):
    """Authenticated connections to the other players, by identity key (a mesh)."""

    peers: tuple[bytes, ...]

    def inbox(self, peer: bytes) -> trio.MemoryReceiveChannel[bytes]: ...

    def is_connected(self, peer: bytes) -> bool: ...

    async def wait_change(self) -> None: ...

    async def send(self, peer: bytes, payload: bytes) -> None: ...

    async def relay(self, peer: bytes, payload: bytes) -> None:
        """``send`` of another's message passed on: it may wait a moment for company."""

    async def broadcast(self, payload: bytes) -> frozenset[bytes]: ...

    def add_member(self, key: bytes) -> None: ...


# Where a clock may give up on a peer: before the genesis, on the host that never sent it.
_PLAYING = (Status.RUNNING, Status.AWAITING_GENESIS)
ISOLATED_SHARE = 3.0  # of the absent timeout: a node cut off from every peer waits this long
MOVE_CLOCK_SHARE = 0.75  # of the absent timeout: an honest node decides well before others wait
MOVE_WARNING = 20.0  # seconds before the move clock runs out that the person is told
SYNC_SPACING = 0.25  # seconds between two fsyncs of the log: power loss costs at most this much


def _rss() -> int:
    """This process's resident memory in bytes (its peak where only that is known)."""
    return current().memory.resident()


def _tidy(first: bool) -> None:
    """Once a hand, after this peer has sent what the deal asked of it: a full garbage
    collection, so a long game's memory stays flat (measured by ``hearts bench handstart``:
    without it a peer's resident memory grew by 0.021 MB a hand, with it 0.013, over 50 hands).
    At the runner's first hand it then freezes what lives (imports, keys, the lobby's leftovers)
    out of every later collection, which looks at the game's newer objects only: well under a
    millisecond, against some 40 for the whole heap. (Per runner, not per process: where many
    runners share a process, as in the tests, each freezes its own start.)"""
    gc.collect()
    if first:
        gc.freeze()


@dataclass(frozen=True)
class RunnerConfig:
    """``absent_timeout`` bounds every wait on another peer: disconnected, or holding up any
    step. This peer's own decisions are bounded by the move clock, three quarters of it: past
    that the computer plays for the person, so an honest node never holds up the table."""

    absent_timeout: float = 120.0  # a player disconnected this long, or holding up a step
    linger: float = 2.0  # after the end, keep answering peers that are catching up
    leave_within: float = 1.5  # after a quit, stop this soon whatever the peers do
    sit_answer_within: float = 5.0  # a newcomer's sit is answered this soon (it waits 10 s)
    sync_bytes: int = 256 * 1024  # the most log one sync answer carries (at least one entry)
    sync_interval: float = 0.25  # one sync answer per peer this often; asks meanwhile coalesce
    frames_per_peer: int = 16  # a peer's frames waiting for the game task, at most
    timings: Path | None = None  # append when each play is sent and verified (benchmarks)
    leaves_with_people: bool = False  # a bot: once every person has quit, it leaves too


class GameRunner:
    def __init__(
        self,
        protocol: GameProtocol,
        links: Links,
        front: FrontEnd,
        game_log: GameLog,
        secrets: SecretStore,
        config: RunnerConfig = RunnerConfig(),
        secret_seed: bytes = b"",
        resuming: bool = False,
    ) -> None:
        self.protocol = protocol
        self.links = links
        self.front = front
        self.log = game_log
        protocol.keep_history(game_log.read)  # the log is this runner's: memory stays flat
        self.secrets = secrets
        self.config = config
        self._secret_seed = secret_seed
        self._saved_choices: dict[str, Any] = dict(protocol.choices)
        # The peers' frames take at most frames_per_peer each of it: the rest is room for the
        # watchers and the front end, so their jobs are never turned away.
        room = max(1024, 2 * config.frames_per_peer * len(links.peers))
        self._queue_in, self._queue = trio.open_memory_channel[Callable[[], Awaitable[None]]](room)
        self._choosing = False
        self._tidied = False  # a hand has begun: what lived then is frozen (_tidy)
        self._gone_since: dict[bytes, float] = {}
        self._bank = TimeBank(config.absent_timeout)
        self._nursery: trio.Nursery | None = None
        self._timings = open(config.timings, "a") if config.timings else None  # noqa: SIM115
        if self._timings is not None:  # the game starts here: for the host, the lobby is full
            self._timings.write(f'{{"step": "0:start", "seen": {time.monotonic()}}}\n')
        self._reading: set[bytes] = set()  # the peers whose frames are read
        self._syncing = False
        self._sync_again = False
        self._done_peers: set[bytes] = set()
        self._all_done: trio.CancelScope | None = None
        # A resumed peer asks for no decision until every peer has caught it up: a message it
        # sent before the crash may be out there, and choosing anew would contradict it.
        self._unsynced: set[bytes] = set(links.peers) if resuming else set()
        self._asked: dict[bytes, int] = {}  # the entry each peer was last asked to sync from
        self._sync_wanted: dict[bytes, int] = {}  # asks that came while a peer's answer cooled
        self._sync_cooling: set[bytes] = set()
        self._leaving = trio.CancelScope()  # given a deadline by quit
        self._quitting = False
        self._quit_done = False
        self.dropped_frames = 0

    @property
    def log_path(self) -> str:
        return str(self.log.path)

    async def run(
        self, *, task_status: trio.TaskStatus[GameRunner] = trio.TASK_STATUS_IGNORED
    ) -> Status:
        """Play the game to its end (finished or aborted) and return how it ended. Started with
        ``nursery.start``, it hands back itself once running: the front end's handle on the game
        (to chat, to quit)."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            self._reading = set(self.links.peers)
            for peer in self.links.peers:
                nursery.start_soon(self._read, peer)
            nursery.start_soon(self._watch_links)
            nursery.start_soon(self._watch_absence)
            task_status.started(self)
            with self._leaving:
                await self._flush()
                for peer in self.links.peers:
                    if self.links.is_connected(peer):
                        await self._ask_sync(peer)
                async for job in self._queue:
                    if self._quitting:
                        await self._quit()  # first, even when the queue was too full to take it
                    await job()
                    if self.protocol.status in (Status.FINISHED, Status.ABORTED):
                        break
                await self._linger()
            nursery.cancel_scope.cancel()
        self.log.close()
        if self._timings is not None:
            self._timings.close()
        return self.protocol.status

    async def _linger(self) -> None:
        """Keep answering peers that are still catching up, until each says it is done too (or
        has gone), for at most ``linger`` seconds."""
        await self._broadcast_raw(encode(Done()))
        with trio.move_on_after(self.config.linger) as scope:
            self._all_done = scope
            self._check_all_done()
            async for job in self._queue:
                await job()

    def _check_all_done(self) -> None:
        links = self.links
        if self._all_done is not None and all(
            p in self._done_peers or not links.is_connected(p) for p in links.peers
        ):
            self._all_done.cancel()

    # -- controls for the front end -----------------------------------------------------------

    def consent(self, newcomer: bytes, yes: bool) -> None:
        """This seat's person's answer to a newcomer's ask (``SitAsked``) at an ``ask`` table."""

        async def answer() -> None:
            self.protocol.consent(newcomer, yes)

        self._post(answer)

    async def take_sit(self, frame: bytes) -> bool | None:
        """A frame a watcher of this node sent, if it is a sit for this game (a newcomer's ask,
        SPEC 6.15): whether the game took it, checked as every peer checks it (and relayed to
        them); None for any other frame."""
        try:
            msg = decode_frame(frame)
        except WireError:
            return None
        if msg.envelope.kind != SIT or msg.envelope.game_id != self.protocol.game_id:
            return None
        done = trio.Event()
        taken, started, late = False, False, False

        async def take() -> None:
            nonlocal taken, started
            if late:  # answered "not taken" already: the game must not take it behind that
                return
            started = True
            self.protocol.receive(msg)
            taken = self.protocol.has_frame(msg.raw)
            await self._flush()
            done.set()

        self._post(take)
        with trio.move_on_after(self.config.sit_answer_within):
            await done.wait()
        if not done.is_set():
            if not started:
                late = True
                return False
            with trio.move_on_after(self.config.sit_answer_within):
                await done.wait()  # decided: only its flush is left, the log written
        return taken

    def say(self, text: str) -> None:
        frame = encode(Chat(text))
        self._post(lambda: self._broadcast_raw(frame))

    def quit(self) -> None:
        """Leave the game, telling the peers; the node is gone within ``leave_within``."""
        if not self._quitting:
            self._quitting = True
            self._leaving.deadline = trio.current_time() + self.config.leave_within
        self._post(self._quit)

    async def _quit(self) -> None:
        if self._quit_done:
            return
        self._quit_done = True
        me = self.protocol.me
        name = (
            self.protocol.genesis.players[me].name
            if self.protocol.genesis and me is not None
            else "?"
        )
        self.protocol.quit(name)
        await self._flush()

    def _post(self, job: Callable[[], Awaitable[None]]) -> None:
        try:
            self._queue_in.send_nowait(job)
        except (trio.WouldBlock, trio.ClosedResourceError):
            log.warning("control queue full; dropped a request")

    # -- the game task ------------------------------------------------------------------------

    async def _flush(self) -> None:
        p = self.protocol
        if p.wants_secret:
            # Its seat is the table's: it asks it back with a fresh secret, saved with the
            # choices below before the reclaim leaves, so a restart asks with the same one.
            p.come_back(os.urandom(32))
        kept = p.log_kept  # read before drain, which counts the entries it hands out as kept
        out, entries, events = p.drain()
        relays = p.take_relays()
        if p.choices != self._saved_choices:
            self._saved_choices = dict(p.choices)
            self.secrets.save({"secret": self._secret_seed, "choices": self._saved_choices})
        if kept < len(self.log):
            self.log.truncate(kept)  # a verdict cut the log back to its evidence
        for e in entries:
            self.log.append(e)
        if self._timings is not None:
            self._record(out, entries)
        self._heard(relays)
        for msg in relays:
            await self._relay(msg)
        for msg in out:
            await self._broadcast_raw(msg.raw)
        for ev in events:
            if isinstance(ev, SitAsked):
                self._sit_asked(ev)
            await self.front.notify(self._with_paths(ev))
        self._bank_tick(trio.current_time())
        if self.config.leaves_with_people and p.people_gone and not self._quitting:
            self.quit()  # bots playing on for nobody: the game ends with the last person
            return
        self._maybe_choose()
        if entries and self._step_ends_phase():
            self._request_sync()
        if any(isinstance(ev, HandStarted) for ev in events):
            _tidy(first=not self._tidied)
            self._tidied = True

    def _sit_asked(self, ev: SitAsked) -> None:
        """A newcomer asks for a seat: its node may now connect as a peer (it dials every seat),
        and a bot or headless peer says yes (SPEC 6.15); a person answers on screen."""
        identity = self.protocol.identity
        if identity is None or ev.key == identity.public_key:
            return
        self.links.add_member(ev.key)
        if not shows_plays(self.front):
            self.protocol.consent(ev.key, True)

    def _request_sync(self) -> None:
        """fsync in a worker thread, off the path of the game, at most once per
        ``SYNC_SPACING``: the requests made meanwhile share the next one. A handoff to the
        thread costs the game's loop more than the fsync itself, and a bot game asks for one
        every few milliseconds."""
        if self._syncing:
            self._sync_again = True
            return
        self._syncing = True

        async def sync() -> None:
            try:
                while True:
                    self._sync_again = False
                    # Abandoned on cancel: closing the log syncs it again, so leaving never waits.
                    await trio.to_thread.run_sync(self.log.sync, abandon_on_cancel=True)
                    await trio.sleep(SYNC_SPACING)
                    if not self._sync_again:
                        return
            finally:
                self._syncing = False

        assert self._nursery is not None
        self._nursery.start_soon(sync)

    def _step_ends_phase(self) -> bool:
        """fsync at phase ends (each trick, each deck step), not on every play.

        Entries reach the OS before anything is sent, which is all a killed process needs to
        resume; fsync guards against power loss only, so it need not hold up the game.
        """
        return not self.protocol.mid_trick

    def _record(self, out: list[SignedMessage], entries: list[bytes]) -> None:
        now = time.monotonic()
        assert self._timings is not None
        for msg in out:
            env = msg.envelope
            if env.kind == StepKind.OPEN:
                self._timings.write(f'{{"step": "{env.hand}:{env.step}", "sent": {now}}}\n')
        for raw in entries:
            env = decode_frame(raw).envelope
            self._timings.write(f'{{"step": "{env.hand}:{env.step}", "seen": {now}}}\n')
            if env.step == StepKind.DEAL:  # each hand's memory, for the bench to see it flat
                self._timings.write(f'{{"step": "{env.hand}:deal", "rss": {_rss()}}}\n')
        self._timings.flush()

    def _with_paths(self, ev: Event) -> Event:
        if isinstance(ev, GameOver | Aborted):
            return replace(ev, log_path=self.log_path)
        return ev

    async def _broadcast_raw(self, raw: bytes) -> None:
        await self.links.broadcast(raw)

    async def _relay(self, msg: SignedMessage) -> None:
        """Pass another player's message on to every peer but the one it names, so that what
        one peer took, all take: an equivocation shows as two signed messages, everywhere."""
        named = self.protocol.key_for(msg.envelope)  # the seat's holder (a newcomer's key)
        forged = self.protocol.forged(msg)
        for peer in self.links.peers:
            if peer != named or forged:
                try:
                    await self.links.relay(peer, msg.raw)
                except Exception as e:  # a peer gone mid-send: the watcher sees it
                    log.debug("relay to a peer failed: %s", e)

    def _maybe_choose(self) -> None:
        if self._choosing or self._unsynced:
            return
        view = self.protocol.choice_needed()
        if view is None:
            return
        self._choosing = True

        async def ask() -> None:
            action = await self._decide(view)
            self._post(lambda: self._submit(action))

        assert self._nursery is not None
        self._nursery.start_soon(ask)

    @property
    def move_clock(self) -> float:
        """How long this seat's front end may take to decide before the computer plays: three
        quarters of the timeout, and never more than what is left of its bank for the hand."""
        p = self.protocol
        left = self._bank.left(p.me, p.step.hand) if p.me is not None else self._bank.bank
        return min(self.config.absent_timeout * MOVE_CLOCK_SHARE, left)

    async def _decide(self, view: SeatView) -> Action:
        """The front end's choice, or, past the move clock, the heuristic bot's for it: a
        person who walks away never holds up the table, and is told before and after."""
        clock = self.move_clock
        async with trio.open_nursery() as nursery:
            if clock > MOVE_WARNING:
                nursery.start_soon(self._warn, clock - MOVE_WARNING)
            with trio.move_on_after(clock):
                action = await self.front.choose(view)
                nursery.cancel_scope.cancel()
                return action
            nursery.cancel_scope.cancel()
        action = make_bot("heuristic", 0).choose(view)
        played = f"the computer plays {_action_text(action)} for you"
        if clock < self.config.absent_timeout * MOVE_CLOCK_SHARE:
            why = f"your time for this hand is used up: {played}"
        else:
            why = f"no move in {clock:.0f} s: {played}"
        await self.front.notify(Notice(why))
        return action

    async def _warn(self, delay: float) -> None:
        await trio.sleep(delay)
        await self.front.notify(
            Notice(f"{MOVE_WARNING:.0f} s left to decide; then the computer plays for you")
        )

    async def _submit(self, action: Action) -> None:
        self._choosing = False
        try:
            self.protocol.submit(action)
        except ProtocolError as e:
            log.debug("the seat chose %s too late: %s", action, e)  # e.g. the game just ended
        await self._flush()

    # -- reading ------------------------------------------------------------------------------

    async def _read(self, peer: bytes) -> None:
        """Hand each of ``peer``'s frames to the game task, at most ``frames_per_peer`` waiting
        at a time: a peer that floods is held back (through TCP) rather than dropped from, and
        it neither crowds out the other peers nor fills the queue that the watchers and the
        front end post to."""
        credit = trio.Semaphore(self.config.frames_per_peer)

        async def job(frame: bytes) -> None:
            credit.release()
            await self._handle(peer, frame)

        async for frame in self.links.inbox(peer):
            await credit.acquire()
            await self._queue_in.send(functools.partial(job, frame))

    async def _handle(self, peer: bytes, frame: bytes) -> None:
        if self.protocol.has_frame(frame):
            return  # a relayed copy of a message already taken
        try:
            decoded = decode_peer_frame(frame)
        except WireError as e:
            log.info("dropped a bad frame from a peer: %s", e)
            self.dropped_frames += 1
            return
        if isinstance(decoded, SignedMessage):
            self.protocol.receive(decoded)
            await self._flush()
            return
        control = parse_control(decoded)
        if control is None:
            self.dropped_frames += 1
            return
        await self._control(peer, control)

    async def _control(self, peer: bytes, control: Control) -> None:
        if isinstance(control, Chat):
            seat = self._seat_of_key(peer)
            if seat is not None:
                await self.front.notify(ChatLine(seat, control.text))
        elif isinstance(control, Sync):
            await self._answer_sync(peer, control.have)
        elif isinstance(control, Watching):  # from whichever node serves them
            await self.front.notify(Notice(watching_line(control.names)))
        elif isinstance(control, Synced):
            if control.more_from is None:
                self._unsynced.discard(peer)
                self._maybe_choose()
            elif control.more_from > self._asked.get(peer, control.more_from):
                await self._ask_sync(peer, control.more_from)
        else:
            self._done_peers.add(peer)
            self._check_all_done()

    def _player_of_key(self, key: bytes) -> int | None:
        """The player ``key`` signs for now, as the key schedule stands: a seat's genesis key
        signs for nothing once a newcomer holds that seat (``GameProtocol.holders``)."""
        p = self.protocol
        if p.genesis is None:
            return None
        for player, new in p.holders.items():
            if new.key == key:
                return player
        first = p.genesis.index_of(key)
        return None if first is None or first in p.holders else first

    def _seat_of_key(self, key: bytes) -> int | None:
        player = self._player_of_key(key)
        if player is None:
            return None
        seats = self.protocol.seat_of
        return seats[player] if seats else player

    # -- catching peers up --------------------------------------------------------------------

    async def _ask_sync(self, peer: bytes, start: int = 0) -> None:
        """Ask ``peer`` for the log from our end, or from ``start`` when it said to go on from
        there (the entries of a step cut short by its last answer are held, not yet logged)."""
        have = max(self.protocol.log_count, start)
        self._asked[peer] = have
        await self._send_quietly(peer, encode(Sync(have)))

    async def _answer_sync(self, peer: bytes, have: int) -> None:
        """Answer at once, then let ``sync_interval`` pass before the next answer to ``peer``:
        asks meanwhile coalesce into one, from the last ``have`` asked."""
        if peer in self._sync_cooling:
            self._sync_wanted[peer] = have
            return
        self._sync_cooling.add(peer)
        assert self._nursery is not None
        self._nursery.start_soon(self._cool_sync, peer)
        await self._send_sync(peer, have)

    async def _cool_sync(self, peer: bytes) -> None:
        try:
            while True:
                await trio.sleep(self.config.sync_interval)
                have = self._sync_wanted.pop(peer, None)
                if have is None:
                    return
                await self._queue_in.send(functools.partial(self._send_sync, peer, have))
        finally:
            self._sync_cooling.discard(peer)

    async def _send_sync(self, peer: bytes, have: int) -> None:
        """The entries after ``have``, up to ``sync_bytes`` of them, then the current step's
        messages if that was all; ``Synced`` says whether to ask on."""
        p = self.protocol
        count = p.log_count
        start = min(max(have, 0), count)
        send: list[bytes] = []
        end, size, full = start, 0, False
        while end < count and not full:
            for raw in p.read_entries(end, min(end + _SYNC_BATCH, count)):
                full = bool(send) and size + len(raw) > self.config.sync_bytes
                if full:
                    break
                send.append(raw)
                size += len(raw)
                end += 1
        for raw in send:  # read before the first send: the log may change meanwhile
            await self._send_quietly(peer, raw)
        if end < count:
            await self._send_quietly(peer, encode(Synced(end)))
            return
        for msg in p.pending():
            await self._send_quietly(peer, msg.raw)
        await self._send_quietly(peer, encode(Synced()))

    async def _send_quietly(self, peer: bytes, frame: bytes) -> None:
        try:
            await self.links.send(peer, frame)
        except Exception as e:  # a peer that went away mid-send is handled by the watcher
            log.debug("send to a peer failed: %s", e)

    async def _watch_links(self) -> None:
        connected = {p: self.links.is_connected(p) for p in self.links.peers}
        for peer, up in connected.items():  # the gone clock starts from this very look
            if not up:
                self._gone_since.setdefault(peer, trio.current_time())
        while True:
            await self.links.wait_change()
            for peer in self.links.peers:
                if peer not in self._reading:  # a newcomer's node, accepted since (add_member)
                    self._reading.add(peer)
                    connected[peer] = False
                    assert self._nursery is not None
                    self._nursery.start_soon(self._read, peer)
                now = self.links.is_connected(peer)
                if now == connected[peer]:
                    continue
                connected[peer] = now
                self._check_all_done()
                if now:
                    self._gone_since.pop(peer, None)
                    self._post(functools.partial(self._ask_sync, peer))
                else:
                    self._gone_since[peer] = trio.current_time()
                seat = self._seat_of_key(peer)
                if seat is not None and self.protocol.seat_of:
                    self._post(functools.partial(self._tell_link, peer, seat, now))

    async def _tell_link(self, peer: bytes, seat: int, up: bool) -> None:
        """Say that a seat's link came back or dropped, judged when the game task gets to it,
        after the frames that came before the drop: a player who quit, or whose seat the table
        plays, is not waited for, and the screen must not say it is."""
        player = self._player_of_key(peer)
        if up:
            status = PeerStatus.CONNECTED
        elif player in self.protocol.left_players or player in self.protocol.table_seats:
            status = PeerStatus.LEFT
        else:
            status = PeerStatus.WAITING
        await self.front.notify(PeerState(seat, status))

    async def _watch_absence(self) -> None:
        # Progress is a new step, or the players awaited in it changing (a takeover round's
        # votes and shares come within the step): each awaited player gets the whole timeout.
        # A roll call's nolead goes out one timeout after the step began, whatever came since:
        # others' noleads change who is awaited, and a clock started again by each would have
        # this seat say its own a whole timeout after theirs, just as their clocks, started
        # again by theirs, name it (rollcall.py).
        progress, since_step = self._progress(), trio.current_time()
        began, since_began, asked = self.protocol.step.prev, since_step, False
        while True:
            await trio.sleep(min(1.0, self.config.absent_timeout / 4))
            now = trio.current_time()
            for peer, since in list(self._gone_since.items()):
                if self.links.is_connected(peer):
                    # Back, without a change seen since the clock started: it is not gone.
                    self._gone_since.pop(peer, None)
                elif now - since >= self.config.absent_timeout:
                    self._post(functools.partial(self._give_up, peer))
            if self.protocol.step.prev != began:
                began, since_began, asked = self.protocol.step.prev, now, False
            elif not asked and now - since_began >= self.config.absent_timeout:
                self._post(functools.partial(self._say_nolead, began))
                asked = True  # once a step: a seat says its nolead once
            if self._progress() != progress:
                progress, since_step = self._progress(), now
            elif now - since_step >= self.config.absent_timeout:
                self._post(functools.partial(self._give_up_on_staller, progress))
            self._bank_tick(now)

    async def _say_nolead(self, began: bytes) -> None:
        """The step has waited a timeout since it began: at a roll call, this seat says the
        card is not its, if it may (``roll_call`` says False anywhere else)."""
        if self.protocol.step.prev == began and self.protocol.roll_call():
            await self._flush()

    def _progress(self) -> tuple[object, tuple[int, ...]]:
        p = self.protocol
        return p.step, tuple(p.waiting_for())

    async def _give_up_on_staller(self, progress: tuple[object, tuple[int, ...]]) -> None:
        """A connected peer that holds up a step past the timeout is stalling the game, and is
        named like an absent one: a message its software sends by itself (a deck key, a
        reveal), or a decision, since an honest node plays for its person at the move clock.
        A decision several players owe (a pass) names none of them; at the first lead, which
        only the card's holder owes, this seat says the card is not its (``roll_call``)."""
        p = self.protocol
        if self._progress() != progress:
            return  # the game moved on while this waited in the queue
        if p.roll_call():
            # Said before naming anyone, even when the others' noleads leave one player: the
            # others wait on this seat until it says it, and would never join a vote on the
            # holder. Every clock then starts again from the last nolead, and names it alike.
            await self._flush()
            return
        me = p.me
        waiting = [w for w in p.waiting_for() if w != me]
        if not p.waiting_on_machines() and len(waiting) != 1:
            return
        if any(self._gone(w) for w in waiting):
            # The gone clock names a disconnected one; a connected peer awaited beside it may
            # only be waiting on it (its vote on a seat that left with another, SPEC 6.14).
            return
        if p.status in _PLAYING and waiting:
            p.give_up_on(waiting[0], self.config.absent_timeout, stalled=True)
            await self._flush()

    def _bank_tick(self, now: float) -> None:
        """Count the time since the last look against the seats that owed their part through
        it (each message may change who owes), and name a seat whose time for the hand is up."""
        p = self.protocol
        for player in self._bank.tick(now, p.step.hand, p.owing()):
            if player != p.me:
                self._post(functools.partial(self._out_of_time, player))

    async def _out_of_time(self, player: int) -> None:
        """``player`` has spent its bank for the hand and a timeout more (``TimeBank``): it is
        holding the table up, step by step, and is named as a staller is."""
        p = self.protocol
        if p.status is Status.RUNNING and player in p.owing() and not self._gone(player):
            p.give_up_on(player, self.config.absent_timeout, stalled=True)
            await self._flush()

    def _gone(self, player: int) -> bool:
        """Whether the peer holding ``player``'s seat is disconnected now."""
        g = self.protocol.genesis
        if g is None or not 0 <= player < len(g.players):
            return False
        holder = self.protocol.holders.get(player, g.players[player])
        return holder.key in self._gone_since

    def _cut_off(self, now: float) -> bool:
        """Whether this node has lost every peer, for less than ``ISOLATED_SHARE`` timeouts:
        then it is the one gone, most likely (its cable, its Wi-Fi), and gives up on no one
        yet. The others take its seat over; when its links come back it catches up and asks
        for its seat at the next hand. Past that bound the game ends for it, as before."""
        gone = self._gone_since
        peers = self.links.peers
        if not peers or any(p not in gone for p in peers):
            return False
        return now - max(gone[p] for p in peers) < ISOLATED_SHARE * self.config.absent_timeout

    def _heard(self, taken: list[SignedMessage]) -> None:
        """A peer whose link is down, yet whose new messages this peer takes through others'
        relays, is there: its gone clock starts again. A link cut between two players, both
        linked to the rest, then names neither (only the stall clock and the time bank can)."""
        now = trio.current_time()
        for msg in taken:
            key = self.protocol.key_for(msg.envelope)
            if key in self._gone_since and not self.protocol.forged(msg):
                self._gone_since[key] = now

    async def _give_up(self, peer: bytes) -> None:
        if self._cut_off(trio.current_time()):
            return
        player = self._player_of_key(peer)
        if player is None and peer == self.protocol.host_key and self.protocol.genesis is None:
            player = 0  # the host, gone before it started the game
        if player is not None and self.protocol.status in _PLAYING:
            self.protocol.give_up_on(player, self.config.absent_timeout)
            await self._flush()


def _action_text(action: Action) -> str:
    if isinstance(action, PlayCard):
        return str(action.card)
    if isinstance(action, PassCards) and action.cards is not None:
        return "a pass of " + " ".join(str(c) for c in action.cards)
    if isinstance(action, ChooseMoon):
        return "the moon: " + ("others +26" if action.add_to_others else "own −26")
    return str(action)
