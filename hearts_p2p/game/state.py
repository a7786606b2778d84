"""The state of one game at one peer, and the shape of a step's rule.

``GameProtocol`` owns a ``GameState`` and never shows it: the step rules (``seating.py``,
``handsteps.py``) and the abort (``abort.py``) change it, the protocol exposes read-only views.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..chain import GENESIS_HEAD, chain
from ..coinflip import CoinFlip
from ..deck.params import PROOF_ROUNDS
from ..engine import Game
from ..identity import Identity
from ..wire import PROTOCOL_VERSION, Envelope, SignedMessage, decode_frame, encode_message
from .escrow import EscrowEntry
from .events import GameEvent
from .genesis import Genesis, Player
from .handflow import HandFlow
from .keys import derive, pass_key, pass_public_key
from .outcome import Abort
from .rekeying import Rekeying
from .replay import HandAction
from .stepindex import StepIndex
from .steps import AHEAD, Step, StepId, StepKind
from .tableseat import Round, TableSeat

__all__ = [
    "MAX_REASON",
    "Ahead",
    "GameState",
    "Status",
    "StepRecord",
    "StepRule",
    "Window",
    "nothing_to_send",
]

MAX_REASON = 200
_SEQ_GAP = 4096  # numbers a player may skip between two logged messages (its votes, say)
_PARTS = 8  # entries read at a time looking for a step's part in the log


class Status(Enum):
    AWAITING_GENESIS = "awaiting genesis"
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


# A game's status moves only this way (``GameState.move_to``): it begins once, and ends once,
# but a verdict may be replaced by one that ranks before it (abort.after_abort).
_MOVES = {
    Status.AWAITING_GENESIS: frozenset({Status.RUNNING, Status.ABORTED}),
    Status.RUNNING: frozenset({Status.FINISHED, Status.ABORTED}),
    Status.ABORTED: frozenset({Status.ABORTED}),
    Status.FINISHED: frozenset(),
}


@dataclass(eq=False)
class Ahead:
    """The next hand's deck, shuffled and locked while this hand is played (SPEC 6.3): this
    peer's, and each taken-over seat's as the table runs it, with its messages as applied (a
    seat taken over later replays them)."""

    flow: HandFlow
    table: dict[int, HandFlow] = field(default_factory=dict)  # by player
    msgs: list[tuple[StepKind, int, dict[str, Any]]] = field(default_factory=list)

    @property
    def number(self) -> int:
        return self.flow.params.hand_number


@dataclass(frozen=True)
class Window:
    """How much of the log a protocol with a history holds in memory: it grows to ``trim_at``
    entries, then is cut back to its last ``keep`` (a few hands at the default), keeping at
    least the last ``steps`` step records (a late vote's step, say)."""

    trim_at: int = 192
    keep: int = 64
    steps: int = 32

    def __post_init__(self) -> None:
        if not 0 <= self.keep <= self.trim_at or self.steps < 4:
            raise ValueError("a window keeps at most what it trims at, and 4 steps or more")


@dataclass(eq=False, repr=False)  # no repr: it would print the secret
class GameState:
    """Everything one peer knows of one game. ``identity`` is None for an observer."""

    game_id: bytes
    host_key: bytes
    identity: Identity | None
    secret: bytes  # every key this player uses derives from it (zeros for an observer)
    choices: dict[str, Any]  # persisted: this seat's pass picks by hand
    status: Status = Status.AWAITING_GENESIS
    genesis: Genesis | None = None
    me: int | None = None
    seat_of: list[int] = field(default_factory=list)
    player_at: list[int] = field(default_factory=list)
    game: Game | None = None
    flow: HandFlow | None = None
    ahead: Ahead | None = None  # the next hand's deck, once this hand's play has begun
    reshuffled: set[int] = field(default_factory=set)  # hands whose deck ahead was set aside
    flip: CoinFlip | None = None
    abort: Abort | None = None
    entries: list[bytes] = field(default_factory=list)  # the log from entry ``base`` on
    # The log below ``base`` is the shell's to hold (its file), read back through ``history``:
    # with one, a long game's memory stays flat (``trim``); without, nothing is dropped.
    history: Callable[[int, int], list[bytes]] | None = None
    base: int = 0
    trimmed: int = 0  # steps begun before this entry are complete, their records dropped
    window: Window = field(default_factory=Window)
    numbers: dict[int, array[int]] = field(default_factory=dict)  # by player: entry by seq
    head: bytes = GENESIS_HEAD
    step: Step = field(
        default_factory=lambda: Step(0, StepId(StepKind.GENESIS), (0,), GENESIS_HEAD)
    )
    next_seq: dict[int, int] = field(default_factory=dict)
    hand_actions: list[tuple[int, HandAction]] = field(default_factory=list)
    stopped: list[tuple[int, str]] = field(default_factory=list)  # (player, alarm) this hand
    plays: int = 0  # plays so far in this hand
    outbox: list[SignedMessage] = field(default_factory=list)
    events: list[GameEvent] = field(default_factory=list)
    relays: list[SignedMessage] = field(default_factory=list)  # others' messages to pass on
    frames: set[bytes] = field(default_factory=set)  # every verified frame: copies drop at once
    index: StepIndex = field(default_factory=StepIndex)  # where each step began
    # Where a step began before the takeover or void round logged in it, which moved its start
    # in ``index`` past the round (``log_round``): a pair's cut goes here (abort._start).
    round_starts: dict[bytes, int] = field(default_factory=dict)
    steps: dict[bytes, StepRecord] = field(default_factory=dict)  # completed, by their prev
    heads: list[bytes] = field(default_factory=lambda: [GENESIS_HEAD])  # after base + i entries
    kept: int = 0  # entries handed to the shell that are still the log's (a verdict cuts)
    evidence: tuple[SignedMessage, ...] = ()  # the verdict's, as messages
    pending: tuple[Abort, tuple[SignedMessage, ...]] | None = None  # an ending for a later step
    # Messages taken after the stop, by (sender, number), at most 64: two of them may prove
    # a cheat that ranks before the verdict (abort.py, ``after_abort``).
    since_stop: dict[tuple[int, int], SignedMessage] = field(default_factory=dict)
    signed: set[bytes] = field(default_factory=set)  # frames this peer signed: no need to verify
    views: bool = True  # each play's event carries this seat's view (a front end shows it)
    min_proof_rounds: int = PROOF_ROUNDS  # a genesis asking fewer: this player leaves
    forged: set[bytes] = field(default_factory=set)  # frames a player signed in another's name
    # Key escrow (escrow.py): each player's entries by holder, this player's opened shares,
    # the first sender whose box to this player did not open, and the disputes at the flip.
    escrow: dict[int, dict[int, EscrowEntry]] = field(default_factory=dict)
    shares: dict[int, bytes] = field(default_factory=dict)
    bad_escrow: int | None = None
    disputes: dict[int, int] = field(default_factory=dict)  # accuser -> accused
    # Takeover (takeover.py): the seats the table plays, the open round, this hand's deck
    # messages as applied (a seat taken over mid-hand replays them), and a bounded wait for
    # takeover messages of a step this peer has not reached.
    table: dict[int, TableSeat] = field(default_factory=dict)
    round: Round | None = None
    hand_msgs: list[tuple[StepKind, int, dict[str, Any]]] = field(default_factory=list)
    later: list[SignedMessage] = field(default_factory=list)
    # Votes about this seat for a recent step it completed with its own part (the protocol's
    # _voted_out), and the steps where a vote showed the others held that part.
    against: dict[bytes, dict[int, SignedMessage]] = field(default_factory=dict)
    cleared: set[bytes] = field(default_factory=set)
    left: dict[int, bytes] = field(default_factory=dict)  # a player's signed leave, once seen
    # Players that ended the game on their own word (gone or stalled, about another), with
    # that signed word: they play, and vote, no more (abort.receive_abort; void.pending waits
    # for no vote of theirs; a seat the table plays follows such a word, abort.follow_word).
    ended: dict[int, SignedMessage] = field(default_factory=dict)
    # The seats this peer's own clock gave up on, by seat: the hand and the ending of its
    # latest accusation (a peer ending on its own word may name one of them, protocol._claimed).
    gave_up: dict[int, tuple[int, str]] = field(default_factory=dict)
    # Of those, the seats whose own part then completed the step the clock gave up on them in.
    answered: set[int] = field(default_factory=set)
    voted: set[bytes] = field(default_factory=set)  # steps (by prev) this peer has voted in
    # The first lead's roll call (rollcall.py): the step it is for, and each player's nolead.
    rolled_prev: bytes = b""
    rolled: dict[int, SignedMessage] = field(default_factory=dict)
    unclaimed: int = 0  # the card (a mask) every player said was not its: the hand stopped
    refused: tuple[int, str] | None = None  # (hand, play step) whose claim was refused
    # Coming back (reclaim.py, rekey.py): pass keys re-keyed by a return, the reclaims held
    # for the next hand boundary (by player), the return under way at this boundary, the
    # steps whose part this seat must not send (it was voted out there) and the returns so far
    # by player.
    dh: dict[int, bytes] = field(default_factory=dict)
    offers: dict[int, bytes] = field(default_factory=dict)
    rekeying: Rekeying | None = None
    mute: frozenset[bytes] = frozenset()
    returns: dict[int, int] = field(default_factory=dict)
    returned: list[int] = field(default_factory=list)  # back since the protocol last looked
    # Open seats (sitdown.py): who holds a seat in place of its genesis player, the sits held
    # for the next boundary (by player), and this peer's answers to them (by newcomer key).
    holders: dict[int, Player] = field(default_factory=dict)
    sits: dict[int, bytes] = field(default_factory=dict)
    consent: dict[bytes, bool] = field(default_factory=dict)

    @property
    def step_ahead(self) -> Ahead | None:
        """The next hand's deck, when the current step is one of its steps run ahead."""
        a = self.ahead
        if a is not None and self.step.hand == a.number and self.step.kind in AHEAD:
            return a
        return None

    @property
    def step_flow(self) -> HandFlow | None:
        """The deck the current step belongs to."""
        a = self.step_ahead
        return a.flow if a is not None else self.flow

    @property
    def hand_now(self) -> int:
        """The hand the table is at: the one in play, also during a step of the next deck."""
        if self.step_ahead is not None and self.game is not None:
            return self.game.number
        return self.step.hand

    def derive(self, label: str) -> bytes:
        return derive(self.secret, label)

    def hand_label(self, number: int) -> str:
        """The label of hand ``number``'s randomness in every seat's hash stream: a deck set
        aside is never dealt, and the one shuffled in its place draws afresh."""
        return f"hand {number} again" if number in self.reshuffled else f"hand {number}"

    @property
    def dh_private(self) -> X25519PrivateKey:
        return pass_key(self.secret)

    @property
    def dh_public(self) -> bytes:
        return pass_public_key(self.secret)

    @property
    def players(self) -> int:
        return len(self.genesis.players) if self.genesis else 0

    @property
    def my_seat(self) -> int | None:
        return None if self.me is None or not self.seat_of else self.seat_of[self.me]

    def move_to(self, status: Status) -> None:
        """The game begins, finishes or stops: the one way its status changes."""
        if status not in _MOVES[self.status]:
            raise RuntimeError(f"a game {self.status.value} cannot become {status.value}")
        self.status = status

    def clock_gave_up(self, seat: int, ending: str) -> None:
        """This peer's own clock gave up on ``seat`` in this hand, saying ``ending``."""
        self.gave_up[seat] = (self.hand_now, ending)
        self.answered.discard(seat)

    def part_came(self, seat: int) -> None:
        """``seat``'s own part completed a step this peer's clock gave up on it in."""
        if seat in self.gave_up and seat not in self.table:
            self.answered.add(seat)

    def everyone(self) -> tuple[int, ...]:
        return tuple(range(self.players))

    def present(self) -> tuple[int, ...]:
        """The players whose seats are not the table's."""
        return tuple(p for p in range(self.players) if p not in self.table)

    def holder(self, player: int) -> Player:
        """Who holds ``player``'s seat now: its genesis player, or the newcomer that took it
        (sitdown.py). Its key signs that seat's messages."""
        assert self.genesis is not None
        return self.holders.get(player, self.genesis.players[player])

    def pass_key_of(self, player: int) -> bytes:
        """A player's X25519 key now: the roster's, or the one its last return brought."""
        assert self.genesis is not None
        return self.dh.get(player, self.genesis.players[player].dh)

    @property
    def silent(self) -> bool:
        """Whether this seat may send nothing now: the table plays it, or it was voted out in
        this very step."""
        return self.me in self.table or self.step.prev in self.mute

    @property
    def count(self) -> int:
        """Entries in the log so far."""
        return self.base + len(self.entries)

    def read(self, start: int, stop: int) -> list[bytes]:
        """Log entries ``start`` to ``stop`` (not included): those below ``base`` from the
        shell's history."""
        stop = min(stop, self.count)
        if start >= stop:
            return []
        older: list[bytes] = []
        if start < self.base:
            assert self.history is not None
            older = self.history(start, min(stop, self.base))
        return older + self.entries[max(start, self.base) - self.base : stop - self.base]

    def new_step(
        self, hand: int, step: StepId, senders: tuple[int, ...], any_one: bool = False
    ) -> None:
        self.step = Step(hand, step, senders, self.head, any_one)
        self.index[self.head] = self.count

    def log(self, msg: SignedMessage, part: bool = False) -> None:
        """Append an entry to the log (the file is the shell's: it takes them from the
        protocol). The chain takes the signed envelope, not the frame: a second signature of
        one envelope, which only its signer can make, is the same message and changes nothing.
        A step's ``part`` is one of its sender's numbered messages (``logged``); a vote, say,
        is not."""
        env = msg.envelope
        numbers = self.numbers.setdefault(env.sender, array("q"))
        if part and 0 <= env.seq - len(numbers) < _SEQ_GAP:  # not a slot for a far number
            numbers.extend([-1] * (env.seq + 1 - len(numbers)))
            numbers[env.seq] = self.count
        self.entries.append(msg.raw)
        self.head = chain(self.head, msg.envelope_bytes)
        self.heads.append(self.head)

    def log_round(self, msgs: Iterable[SignedMessage]) -> None:
        """Log a takeover or void round decided in the middle of the current step: a later
        verdict on a message of the step cuts after it, but a pair before it (abort._start)."""
        for m in msgs:
            self.log(m)
        prev = self.step.prev
        self.round_starts.setdefault(prev, self.index[prev])
        self.index[prev] = self.count

    def logged(self, player: int, seq: int) -> bytes | None:
        """The entry ``player`` signed under number ``seq``, if the log holds one."""
        numbers = self.numbers.get(player)
        if numbers is None or not 0 <= seq < len(numbers) or numbers[seq] < 0:
            return None
        at = numbers[seq]
        return self.read(at, at + 1)[0] if at < self.count else None

    def completed(self, prev: bytes) -> bool:
        """Whether the step that began at ``prev`` is complete (its record may be dropped)."""
        if prev in self.steps:
            return True
        start = self.index.get(prev)
        return start is not None and start < self.trimmed and prev != self.step.prev

    def part(self, prev: bytes, player: int) -> bytes | None:
        """What ``player`` sent for the completed step that began at ``prev``, if it took part:
        from the step's record, or from the log, where a step's parts follow its start."""
        record = self.steps.get(prev)
        if record is not None:
            return record.got.get(player)
        if not self.completed(prev):
            return None
        at = self.index[prev]
        while at < self.count:
            for raw in self.read(at, at + _PARTS):
                env = decode_frame(raw).envelope
                if env.prev != prev:
                    return None
                if env.sender == player:
                    return raw
                at += 1
        return None

    def trim(self) -> list[bytes]:
        """Drop the entries the shell has taken, but the window's last few, and the records of
        the steps they begin: the history holds them. Returns the entries dropped."""
        if self.history is None:
            return []
        base = max(self.base, min(self.kept, self.count - self.window.keep))
        if base <= self.base:
            return []
        dropped = self.entries[: base - self.base]
        del self.entries[: base - self.base]
        del self.heads[: base - self.base]
        self.base = base
        for prev in list(self.steps):
            start = self.index.get(prev)
            if start is None or start >= base or len(self.steps) <= self.window.steps:
                break
            del self.steps[prev]
            self.trimmed = max(self.trimmed, start + 1)
        self.index.pack(self.trimmed)
        return dropped

    def cut(self, count: int) -> None:
        """Keep the first ``count`` entries only: a verdict's evidence replaces what followed."""
        if count >= self.base:
            del self.entries[count - self.base :]
            del self.heads[count - self.base + 1 :]
            self.head = self.heads[-1]
        else:
            self.head = GENESIS_HEAD  # the chain up to ``count``, from the history
            for raw in self.read(0, count):
                self.head = chain(self.head, decode_frame(raw).envelope_bytes)
            self.entries, self.heads, self.base = [], [self.head], count
        for numbers in self.numbers.values():
            for seq, at in enumerate(numbers):
                if at >= count:
                    numbers[seq] = -1
        self.kept = min(self.kept, count)

    def placed(self, tail: tuple[SignedMessage, ...]) -> bool:
        """Whether this peer has reached the step of any of ``tail``'s messages."""
        return any(m.envelope.prev in self.index for m in tail)

    def sign(self, step_name: str, kind: str, body: dict[str, Any], prev: bytes) -> SignedMessage:
        """This player's next message, numbered after the last one it sent."""
        assert self.identity is not None
        me = self.me if self.me is not None else 0
        env = Envelope(PROTOCOL_VERSION, self.game_id, self.step.hand, step_name, me,
                       self.next_seq.get(me, 0), prev, kind, body)  # fmt: skip
        msg = encode_message(self.identity, env)
        self.signed.add(msg.raw)
        return msg


@dataclass(frozen=True)
class StepRecord:
    """A completed step: what each sender sent (the frames), for a late message naming it."""

    got: dict[int, bytes]


@dataclass(frozen=True)
class StepRule:
    """One kind of step, in one place: how a message is checked (returning what the step keeps
    of it, raising on a fault), what follows once the step is complete, and the message this
    seat's software sends for it by itself (None: nothing now, or the seat must decide)."""

    check: Callable[[GameState, int, dict[str, Any]], object]
    advance: Callable[[GameState, Step], None]
    send: Callable[[GameState], dict[str, Any] | None]


def nothing_to_send(state: GameState) -> None:
    """For the steps a seat decides: what it sends comes from ``submit``."""
    return None
