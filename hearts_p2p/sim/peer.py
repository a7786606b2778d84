"""One simulated peer: the real ``GameProtocol`` in a shell that does what a node's does, on the
simulated network and clock.

The shell mirrors ``hearts_p2p.node.runner.GameRunner`` decision for decision: it logs what the
protocol gives, relays what it takes to every peer but the signer, catches peers up from its log
when a connection comes back, decides for its seat through a bot (the computer plays for its
person at the move clock, three quarters of the timeout), and keeps the runner's clocks: a peer
disconnected for the timeout is given up on, a step held up for the timeout names its staller,
and a first lead nobody makes has this seat say the card is not its. A crash loses the process
and keeps the files: the log (its last record torn, maybe) and the saved choices; a restart
replays the log as ``session._replay_own_log`` does.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..bots import make_bot
from ..control import Done, Sync, Synced, encode, parse_control
from ..engine import Action, SeatView
from ..game import GameProtocol, ProtocolError, SitAsked, Status
from ..game.state import Window
from ..game.timebank import TimeBank
from ..identity import Identity
from ..wire import SignedMessage, WireError, decode_frame, decode_peer_frame

if TYPE_CHECKING:
    from .world import World

__all__ = ["SimPeer"]

_PLAYING = (Status.RUNNING, Status.AWAITING_GENESIS)
ISOLATED_SHARE = 3.0  # as the runner's: a peer cut off from all waits three timeouts
MOVE_CLOCK_SHARE = 0.75  # as the runner's: an honest node decides well before others wait
WINDOW = Window(trim_at=48, keep=16, steps=8)  # the log read back often, as a long game does


class SimPeer:
    """An honest peer of the simulated table, player ``index``."""

    hostile = False

    def __init__(
        self, world: World, index: int, identity: Identity, secret: bytes, bot: str
    ) -> None:
        self.world = world
        self.index = index
        self.identity = identity
        self.secret = secret
        self.rng = random.Random(world.rng.getrandbits(64))
        self.bot = make_bot(bot, self.rng.getrandbits(32))
        self.log: list[bytes] = []  # the log file
        self.saved: dict[str, Any] = {}  # the secrets file's choices
        self.alive = True
        self.gone_for_good = False
        self.quit_at: float | None = None
        self.slow = 0.0  # share of the move clock each decision takes (the honest but slow)
        self._generation = 0  # the process's life: a crash or restart ends its timers
        self.protocol = self._fresh()
        self.protocol.keep_history(self._read, WINDOW)
        self._reset_shell(resuming=False)

    # -- the process -----------------------------------------------------------------------

    def _fresh(self) -> GameProtocol:
        w = self.world
        return GameProtocol(
            w.game_id, w.host_key, self.identity, self.secret, self.saved,
            min_proof_rounds=w.proof_rounds, views=False,
        )  # fmt: skip

    def _read(self, start: int, stop: int) -> list[bytes]:
        return self.log[start:stop]

    def _reset_shell(self, *, resuming: bool) -> None:
        n = self.world.n
        self._choosing = 0  # a decision's token; 0: none under way
        self._token = 0
        self._gone_since: dict[int, float] = {}
        self._unsynced: set[int] = (
            {j for j in range(n) if j != self.index and self.world.net.up(self.index, j)}
            if resuming
            else set()
        )
        self._asked: dict[int, int] = {}
        self._done: set[int] = set()
        self._progress = self._progress_now()
        self._since_step = self.world.clock.now
        self._began = self.protocol.step.prev
        self._since_began = self.world.clock.now
        self._nolead_said = False
        self._bank = TimeBank(self.world.timeout)
        self._generation += 1
        self._status = self.protocol.status

    def start(self) -> None:
        """The process begins: its clocks tick."""
        self._tick_later(self._generation)

    def crash(self, torn: bool) -> None:
        """The process dies: its connections drop; the files stay, the last record torn (lost)
        when ``torn``."""
        self.alive = False
        self._generation += 1
        if torn and self.log:
            self.log.pop()
        self.world.peer_down(self.index)

    def restart(self) -> None:
        """Run the same command again: replay the log, reconnect, catch up."""
        if self.alive or self.gone_for_good:
            return
        self.alive = True
        self.protocol = self._fresh()
        written = list(self.log)
        self.protocol.resume(written)
        kept = self.protocol.log_kept
        if written[:kept] != self.protocol.entries[:kept]:
            raise AssertionError(f"player {self.index}'s log does not replay")
        del self.log[kept:]
        self.log += self.protocol.take_entries()
        self.protocol.keep_history(self._read, WINDOW)
        self.world.peer_up(self.index)
        self._reset_shell(resuming=True)
        self.start()
        self.flush()
        for j in range(self.world.n):
            if j != self.index and self.world.net.up(self.index, j):
                self._ask_sync(j)

    @property
    def protocol_name(self) -> str:
        """The name the genesis gives this player."""
        return self.world.scenario.names[self.index]

    @property
    def finished(self) -> bool:
        return self.protocol.status in (Status.FINISHED, Status.ABORTED)

    # -- sending and taking --------------------------------------------------------------

    def send(self, j: int, frame: bytes) -> None:
        self.world.net.send(self.index, j, frame)

    def broadcast(self, frame: bytes) -> None:
        for j in range(self.world.n):
            if j != self.index:
                self.send(j, frame)

    def flush(self) -> None:
        """What the runner's ``_flush`` does: secrets, log, relays, own messages, events."""
        p = self.protocol
        if not self.alive:
            return
        if p.wants_secret:
            p.come_back(self.rng.randbytes(32))
        kept = p.log_kept
        out, entries, events = p.drain()
        relays = p.take_relays()
        self.saved = dict(p.choices)
        del self.log[kept:]
        self.log += entries
        self._heard(relays)
        for msg in relays:
            self._relay(msg)
        for msg in out:
            self.world.note_sent(self, msg)
        for msg in self.outgoing(out):
            self.broadcast(msg.raw)
        for ev in events:
            if isinstance(ev, SitAsked):
                p.consent(ev.key, True)
        self._bank_tick()
        self._maybe_choose()
        if p.status is not self._status:
            self._status = p.status
            self.world.note(self, f"{p.status.value}: {_ending(p)}")
        if self.finished:
            self.broadcast(encode(Done()))

    def outgoing(self, out: list[SignedMessage]) -> list[SignedMessage]:
        """This peer's own messages as they leave (an adversary's shell changes them)."""
        return out

    def _heard(self, taken: list[SignedMessage]) -> None:
        """The runner's ``_heard``: a peer whose new messages come through relays is there."""
        for msg in taken:
            peer = self.world.holder_index(self.protocol, msg.envelope.sender)
            if peer in self._gone_since and not self.protocol.forged(msg):
                self._gone_since[peer] = self.world.clock.now

    def _relay(self, msg: SignedMessage) -> None:
        named = self.protocol.key_for(msg.envelope)
        forged = self.protocol.forged(msg)
        keys = self.world.keys
        for j in range(self.world.n):
            if j != self.index and (keys[j] != named or forged):
                self.send(j, msg.raw)

    def deliver(self, sender: int, frame: bytes) -> None:
        """A frame from ``sender``'s connection, as the runner's ``_handle`` takes it."""
        if not self.alive:
            return
        p = self.protocol
        if p.has_frame(frame):
            return
        try:
            decoded = decode_peer_frame(frame)
        except WireError:
            return
        if isinstance(decoded, SignedMessage):
            self.world.note_message(self, decoded)
            p.receive(decoded)
            self.flush()
            return
        control = parse_control(decoded)
        if isinstance(control, Sync):
            self._answer_sync(sender, control.have)
        elif isinstance(control, Synced):
            if control.more_from is None:
                self._unsynced.discard(sender)
                self._maybe_choose()
            elif control.more_from > self._asked.get(sender, control.more_from):
                self._ask_sync(sender, control.more_from)
        elif isinstance(control, Done):
            self._done.add(sender)

    def _ask_sync(self, j: int, start: int = 0) -> None:
        have = max(self.protocol.log_count, start)
        self._asked[j] = have
        self.send(j, encode(Sync(have)))

    def _answer_sync(self, j: int, have: int) -> None:
        p = self.protocol
        count = p.log_count
        start = min(max(have, 0), count)
        end = min(count, start + 64)
        for raw in p.read_entries(start, end):
            self.send(j, raw)
        if end < count:
            self.send(j, encode(Synced(end)))
            return
        for msg in p.pending():
            self.send(j, msg.raw)
        self.send(j, encode(Synced()))

    def link_changed(self, other: int, up: bool) -> None:
        """The runner's ``_watch_links``: the gone clock, and a sync when a peer is back."""
        if not self.alive:
            return
        if up:
            self._gone_since.pop(other, None)
            self._ask_sync(other)
        else:
            self._gone_since[other] = self.world.clock.now

    # -- deciding --------------------------------------------------------------------------

    def _maybe_choose(self) -> None:
        if self._choosing or self._unsynced or not self.alive:
            return
        view = self.protocol.choice_needed()
        if view is None:
            return
        self._token += 1
        token = self._choosing = self._token
        self.world.clock.after(self.think_time(), lambda: self._decide(token, view))

    def think_time(self) -> float:
        """How long this seat's person (or bot) takes: the computer plays at the move clock,
        three quarters of the timeout and never past the seat's bank for the hand."""
        p = self.protocol
        left = self._bank.left(p.me, p.step.hand) if p.me is not None else self._bank.bank
        clock = min(self.world.timeout * MOVE_CLOCK_SHARE, left)
        if self.slow:
            return clock * self.slow
        return min(clock, self.rng.expovariate(1 / 0.3))

    def choose(self, view: SeatView) -> Action:
        return self.bot.choose(view)

    def _decide(self, token: int, view: SeatView) -> None:
        if self._choosing != token or not self.alive:
            return
        self._choosing = 0
        with contextlib.suppress(ProtocolError):  # chosen too late: the step moved on
            self.protocol.submit(self.choose(view))
        self.flush()

    # -- clocks ----------------------------------------------------------------------------

    def _progress_now(self) -> tuple[object, tuple[int, ...]]:
        p = self.protocol
        return p.step, tuple(p.waiting_for())

    def _tick_later(self, generation: int) -> None:
        period = min(1.0, self.world.timeout / 4)
        self.world.clock.after(period, lambda: self._tick(generation))

    def _tick(self, generation: int) -> None:
        """The runner's ``_watch_absence``, one look."""
        if generation != self._generation or not self.alive or self.finished:
            return
        self._tick_later(generation)
        now, timeout = self.world.clock.now, self.world.timeout
        for peer, since in list(self._gone_since.items()):
            if self.world.net.up(self.index, peer):
                self._gone_since.pop(peer, None)
            elif now - since >= timeout:
                self._job(self._give_up, peer)
        p = self.protocol
        if p.step.prev != self._began:
            self._began, self._since_began, self._nolead_said = p.step.prev, now, False
        elif not self._nolead_said and now - self._since_began >= timeout:
            began = self._began
            self._job(self._say_nolead, began)
            self._nolead_said = True
        progress = self._progress_now()
        if progress != self._progress:
            self._progress, self._since_step = progress, now
        elif now - self._since_step >= timeout:
            self._job(self._give_up_on_staller, progress)
        self._bank_tick()

    def _bank_tick(self) -> None:
        """The runner's ``_bank_tick``."""
        p = self.protocol
        for player in self._bank.tick(self.world.clock.now, p.step.hand, p.owing()):
            if player != p.me:
                self._job(self._out_of_time, player)

    def _out_of_time(self, player: int) -> None:
        p = self.protocol
        if p.status is Status.RUNNING and player in p.owing() and not self._gone(player):
            self.world.note(self, f"p{player} has used its time for the hand")
            self.world.note_give_up(self, player, stalled=True)
            p.give_up_on(player, self.world.timeout, stalled=True)
            self.flush()

    def _job(self, job: Callable[[Any], None], arg: Any) -> None:
        """A job the clock posts to the game task: it runs after what is queued already."""
        self.world.clock.after(0.0, functools.partial(self._run_job, self._generation, job, arg))

    def _run_job(self, generation: int, job: Callable[[Any], None], arg: Any) -> None:
        if generation == self._generation and self.alive:
            job(arg)

    def _say_nolead(self, began: bytes) -> None:
        if self.protocol.step.prev == began and self.protocol.roll_call():
            self.flush()

    def _give_up_on_staller(self, progress: tuple[object, tuple[int, ...]]) -> None:
        p = self.protocol
        if self._progress_now() != progress:
            return
        if p.roll_call():
            self.flush()
            return
        waiting = [w for w in p.waiting_for() if w != p.me]
        if not p.waiting_on_machines() and len(waiting) != 1:
            return
        if any(self._gone(w) for w in waiting):
            return
        if p.status in _PLAYING and waiting:
            self.world.note_give_up(self, waiting[0], stalled=True)
            p.give_up_on(waiting[0], self.world.timeout, stalled=True)
            self.flush()

    def _gone(self, player: int) -> bool:
        holder = self.world.holder_index(self.protocol, player)
        return holder is not None and holder in self._gone_since

    def _cut_off(self) -> bool:
        """The runner's ``_cut_off``: every peer lost, for less than the isolation bound."""
        gone = self._gone_since
        others = [j for j in range(self.world.n) if j != self.index]
        if any(j not in gone for j in others):
            return False
        return self.world.clock.now - max(gone[j] for j in others) < (
            ISOLATED_SHARE * self.world.timeout
        )

    def _give_up(self, peer: int) -> None:
        if self._cut_off():
            return
        player = self.world.player_of(self.protocol, peer)
        if player is None and peer == 0 and self.protocol.genesis is None:
            player = 0  # the host, gone before it started the game
        if player is not None and self.protocol.status in _PLAYING:
            self.world.note_give_up(self, player, stalled=False)
            self.protocol.give_up_on(player, self.world.timeout)
            self.flush()

    # -- a person's choices ----------------------------------------------------------------

    def quit(self) -> None:
        """The person quits: the node signs it leaves and is gone soon after, for good."""
        if not self.alive:
            return
        p = self.protocol
        me = p.me
        name = p.genesis.players[me].name if p.genesis is not None and me is not None else "?"
        p.quit(name)
        self.flush()
        self.gone_for_good = True
        self.world.clock.after(1.5, self._leave)

    def _leave(self) -> None:
        if self.alive:
            self.crash(torn=False)

    def decoded_log(self) -> list[SignedMessage]:
        out = []
        for raw in self.log:
            try:
                out.append(decode_frame(raw))
            except WireError:
                continue
        return out


def _ending(p: GameProtocol) -> str:
    a = p.abort
    if a is None:
        return str(p.step)
    return f"{a.termination.value}, p{a.culprit}: {a.reason}"
