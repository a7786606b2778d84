"""The game protocol of one peer, sans I/O: signed messages in, signed messages and events out.

It is the heart of a node and of the audit. Every message, its own included, passes the same
path: envelope binding, signature, sequence, then the step's checks (deck cryptography, rules).
A message from a later step waits in a small buffer; a completed step goes into the log in
sender order. The trio node only moves bytes, persists the log and asks the front end.

Players are numbered in genesis order (the host is 0); seats come from the joint coin flip.
Envelopes carry the player, the engine and the deck work in seats.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..cards import CARDS, mask_of
from ..coinflip import CoinFlip, CoinFlipCheatError, HashStream, commitment
from ..deck import DeckCheatError, DeckError
from ..deck import Phase as DeckPhase
from ..engine import (
    Action,
    ChooseMoon,
    Game,
    HandPhase,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
    penalty_points,
)
from ..engine.hand import HandState
from ..frontend import (
    Aborted,
    CardPlayed,
    Event,
    GameOver,
    HandScored,
    HandStarted,
    PassReceived,
    RosterEntry,
    SeatedRoster,
    TrickTaken,
)
from ..identity import Identity
from ..log import GENESIS_HEAD, chain
from ..wire import (
    PROTOCOL_VERSION,
    Envelope,
    SignedMessage,
    WireError,
    decode_frame,
    encode_message,
)
from .genesis import Genesis, GenesisError
from .handflow import HandFlow
from .keys import derive, pass_key, pass_public_key
from .replay import HandAction, ReplayFault, replay_hand
from .steps import Step

__all__ = ["Abort", "GameProtocol", "HandRecord", "ProtocolError", "Status"]

MAX_FUTURE = 64  # buffered messages per sender from steps not begun yet
MAX_REASON = 200
MAX_EVIDENCE = 8  # messages judged from one report: a reveal from each of up to 6 seats


class ProtocolError(Exception):
    """A local misuse (acting out of turn, submitting twice); never caused by a peer."""


class Status(Enum):
    AWAITING_GENESIS = "awaiting genesis"
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


@dataclass(frozen=True)
class HandRecord:
    """A hand as the end-of-hand audit established it: true deal, passes and every trick."""

    number: int
    dealt: tuple[int, ...]  # mask per seat
    passed: tuple[int, ...]  # mask per seat (0 in a no-pass hand)
    replay: HandState  # the hand replayed with every card known
    totals: tuple[int, ...]  # running totals after it, per seat


@dataclass(frozen=True)
class Abort:
    """Why a game stopped early: the player blamed (if any) and the signed evidence."""

    reason: str
    culprit: int | None
    reporter: int | None
    evidence: tuple[bytes, ...] = ()


class _Cheat(Exception):
    def __init__(self, player: int, reason: str, evidence: tuple[bytes, ...] = ()) -> None:
        super().__init__(reason)
        self.player = player
        self.reason = reason
        self.evidence = evidence


class GameProtocol:
    """One peer's view of one game. ``identity`` is None for an observer (the offline audit)."""

    def __init__(
        self,
        game_id: bytes,
        host_key: bytes,
        identity: Identity | None = None,
        secret: bytes | None = None,
        choices: dict[str, Any] | None = None,
    ) -> None:
        if identity is not None and (secret is None or len(secret) != 32):
            raise ProtocolError("a player needs its 32-byte game secret: every key derives from it")
        self.game_id = game_id
        self.host_key = host_key
        self.identity = identity
        self._secret = secret or bytes(32)  # an observer derives nothing from it
        self.choices: dict[str, Any] = dict(choices or {})  # persisted: my pass picks by hand
        self.status = Status.AWAITING_GENESIS
        self.genesis: Genesis | None = None
        self.me: int | None = None
        self.seat_of: list[int] = []
        self.player_at: list[int] = []
        self.game: Game | None = None
        self.flow: HandFlow | None = None
        self.flip: CoinFlip | None = None
        self.abort: Abort | None = None
        self.entries: list[bytes] = []
        self.head = GENESIS_HEAD
        self.step = Step(0, "genesis", (0,), GENESIS_HEAD)
        self._seen: dict[tuple[int, int], bytes] = {}  # (player, seq) -> raw
        self._next_seq: dict[int, int] = {}
        self._future: dict[int, dict[int, SignedMessage]] = {}
        self._early: list[SignedMessage] = []
        self._hand_actions: list[tuple[int, HandAction]] = []
        self._stopped: list[tuple[int, str]] = []  # (player, alarm) that stopped this hand
        self._plays = 0
        self.outbox: list[SignedMessage] = []
        self.events: list[Event] = []
        self.new_entries: list[bytes] = []
        self.dropped = 0
        self.on_hand_audited: Callable[[HandRecord], None] | None = None

    # -- derived secrets -----------------------------------------------------------------------

    def _derive(self, label: str) -> bytes:
        return derive(self._secret, label)

    @property
    def dh_private(self) -> X25519PrivateKey:
        return pass_key(self._secret)

    @property
    def dh_public(self) -> bytes:
        return pass_public_key(self._secret)

    # -- queries -------------------------------------------------------------------------------

    @property
    def players(self) -> int:
        return len(self.genesis.players) if self.genesis else 0

    @property
    def my_seat(self) -> int | None:
        return None if self.me is None or not self.seat_of else self.seat_of[self.me]

    def waiting_for(self) -> list[int]:
        """Players the game is waiting on now."""
        if self.status not in (Status.RUNNING, Status.AWAITING_GENESIS):
            return []
        return self.step.waiting_for()

    def view(self) -> SeatView | None:
        seat = self.my_seat
        if self.game is None or seat is None:
            return None
        return SeatView.of(self.game, seat)

    def choice_needed(self) -> SeatView | None:
        """The view to decide on when this peer's seat must choose an action now."""
        if self.status is not Status.RUNNING or self.me is None or self.me in self.step.got:
            return None
        if self.me not in self.step.senders or self.game is None:
            return None
        kind = self.step.name.split(".")[0]
        if kind not in ("pass_commit", "play", "moon"):
            return None
        if kind == "pass_commit" and str(self.step.hand) in self.choices:
            return None
        view = self.view()
        return view if view is not None and view.legal else None

    # -- driving -------------------------------------------------------------------------------

    def propose(self, genesis: Genesis) -> None:
        """The host opens the game with its genesis entry."""
        if self.identity is None or self.identity.public_key != self.host_key:
            raise ProtocolError("only the host proposes the genesis")
        self._send("genesis", genesis.to_wire())

    def receive(self, msg: SignedMessage) -> None:
        """Take one decoded message from a peer (or from our own log); never raises for a peer."""
        if self.status in (Status.FINISHED, Status.ABORTED) and msg.envelope.kind != "abort":
            return
        try:
            self._receive(msg)
        except _Cheat as c:
            self._abort(c.reason, c.player, c.evidence)

    def submit(self, action: Action) -> None:
        """This seat's chosen action for the current step (validated like anyone else's)."""
        view = self.choice_needed()
        if view is None or action not in view.legal:
            raise ProtocolError(f"{action} is not an action this seat can take now")
        assert self.flow is not None
        if isinstance(action, PassCards):
            assert action.cards is not None
            self.choices[str(self.step.hand)] = [int(c) for c in action.cards]
            self._send_step_message()
        elif isinstance(action, PlayCard):
            body = self.flow.make_open(int(action.card))
            self._send(self.step.name, body)
        elif isinstance(action, ChooseMoon):
            self._send(self.step.name, {"add": action.add_to_others})
        else:
            raise ProtocolError(f"{action} has no message in this protocol")

    def quit(self, name: str) -> None:
        """This player leaves: the game ends for everyone, blaming the leaver."""
        if self.me is not None:
            self._abort(f"{name} left the table", self.me, ())

    def give_up_on(self, player: int, seconds: float, *, stalled: bool = False) -> None:
        """A player has been gone (or, connected, has held up a step that needs no decision)
        longer than the timeout: end the game, naming it."""
        if self.status is Status.RUNNING:
            name = self.genesis.players[player].name if self.genesis else str(player)
            if stalled:
                why = f"{name} held up {self.step} for more than {seconds:.0f} s"
            else:
                why = f"{name} was gone for more than {seconds:.0f} s"
            self._abort(why, player, ())

    def waiting_on_machines(self) -> bool:
        """Whether the current step waits only on messages no person has to decide."""
        return self.step.name.split(".")[0] not in ("play", "pass_commit", "moon")

    def drain(self) -> tuple[list[SignedMessage], list[bytes], list[Event]]:
        """What to send, what to append to the log, what to show; clears them."""
        out, self.outbox = self.outbox, []
        entries, self.new_entries = self.new_entries, []
        events, self.events = self.events, []
        return out, entries, events

    # -- receiving -----------------------------------------------------------------------------

    def _key_of(self, player: int) -> bytes | None:
        if self.genesis is None:
            return self.host_key if player == 0 else None
        if player >= len(self.genesis.players):
            return None
        return self.genesis.players[player].key

    def _receive(self, msg: SignedMessage) -> None:
        env = msg.envelope
        key = self._key_of(env.sender)
        if key is None and self.genesis is None and env.game_id == self.game_id:
            if len(self._early) < MAX_FUTURE:
                self._early.append(msg)  # a player's key is known once the genesis is in
            return
        if env.game_id != self.game_id or key is None or not msg.verify(key):
            self.dropped += 1
            return
        if env.kind == "abort":
            self._receive_abort(msg)
            return
        seen = self._seen.get((env.sender, env.seq))
        if seen is not None:
            if seen != msg.raw:
                raise _Cheat(
                    env.sender, "sent two different messages under one number", (seen, msg.raw)
                )
            return
        expected = self._next_seq.get(env.sender, 0)
        if env.seq < expected:
            self.dropped += 1  # older than what we hold, and not a copy of it: stale
            return
        step = self.step
        if (env.hand, env.step) == (step.hand, step.name) and env.sender not in step.senders:
            raise _Cheat(env.sender, f"sent {step.name} out of turn", (msg.raw,))
        if env.seq > expected or not self._for_now(msg):
            buf = self._future.setdefault(env.sender, {})
            if len(buf) < MAX_FUTURE:
                buf[env.seq] = msg
            else:
                self.dropped += 1
            return
        self._accept(msg)
        self._drain_future()

    def _for_now(self, msg: SignedMessage) -> bool:
        """Whether a sender's next message belongs to the current step (else it waits).

        A sender expected in a plain step sends for it before anything else, so its next message
        is judged now, and a wrong one is a cheat; others may already be a step ahead of us.
        """
        env, step = msg.envelope, self.step
        if env.sender not in step.senders or env.sender in step.got:
            return False
        if step.any_one:
            return env.hand == step.hand and env.step == step.name
        return True

    def _drain_future(self) -> None:
        progress = True
        while progress and self.status is Status.RUNNING:
            progress = False
            for player, buf in list(self._future.items()):
                msg = buf.get(self._next_seq.get(player, 0))
                if msg is not None and self._for_now(msg):
                    del buf[msg.envelope.seq]
                    self._accept(msg)
                    progress = True
                    break

    def _accept(self, msg: SignedMessage) -> None:
        env = msg.envelope
        step = self.step
        if env.hand != step.hand or env.step != step.name:
            raise _Cheat(
                env.sender, f"sent {env.step} of hand {env.hand} during {step}", (msg.raw,)
            )
        if env.prev != step.prev:
            raise _Cheat(env.sender, f"its message in {step} is chained to another log", (msg.raw,))
        kind = step.name.split(".")[0]
        if env.kind != kind:
            raise _Cheat(env.sender, f"sent a {env.kind} message in {step}", (msg.raw,))
        try:
            step.parsed[env.sender] = self._check(kind, env.sender, env.body)
        except (DeckCheatError, IllegalActionError, CoinFlipCheatError, GenesisError) as e:
            raise _Cheat(env.sender, _reason(e), (msg.raw,)) from None
        except DeckError as e:
            raise _Cheat(env.sender, f"bad {kind} message: {e}", (msg.raw,)) from None
        step.got[env.sender] = msg
        self._seen[(env.sender, env.seq)] = msg.raw
        self._next_seq[env.sender] = env.seq + 1
        if step.any_one:
            step.senders = (env.sender,)
        if step.complete:
            self._commit_step()

    def _commit_step(self) -> None:
        step = self.step
        for m in step.in_order():
            self.entries.append(m.raw)
            self.new_entries.append(m.raw)
            self.head = chain(self.head, m.raw)
        self._advance(step)

    # -- step checks ---------------------------------------------------------------------------

    def _check(self, kind: str, player: int, body: dict[str, Any]) -> object:
        if kind == "genesis":
            genesis = Genesis.from_wire(self.game_id, body)
            if genesis.players[0].key != self.host_key:
                raise GenesisError("the genesis must list its host first")
            return genesis
        if kind == "accept":
            want = self._genesis_digest()
            if body != {"genesis": want}:
                raise GenesisError("accepted a different genesis")
            return None
        if kind == "flip_commit":
            digest = body.get("commit") if set(body) == {"commit"} else None
            if not isinstance(digest, bytes):
                raise CoinFlipCheatError(player, "malformed commitment")
            assert self.flip is not None
            self.flip.commit(player, digest)
            return None
        if kind == "flip_reveal":
            secret = body.get("secret") if set(body) == {"secret"} else None
            if not isinstance(secret, bytes):
                raise CoinFlipCheatError(player, "malformed reveal")
            assert self.flip is not None
            self.flip.reveal(player, secret)
            return None
        seat = self.seat_of[player]
        assert self.flow is not None and self.game is not None
        if kind == "play":
            card = self.flow.accept_open(seat, body)
            hand = self.game.hand
            assert hand is not None
            hand.apply_play(seat, card)
            self.game.settle()
            self._hand_actions.append((seat, PlayCard(CARDS[card])))
            return card
        if kind == "moon":
            add = body.get("add") if set(body) == {"add"} else None
            if not isinstance(add, bool):
                raise IllegalActionError("malformed moon choice", seat)
            self.game.apply(seat, ChooseMoon(add))
            self._hand_actions.append((seat, ChooseMoon(add)))
            return add
        if kind == "end":
            if body != {"totals": list(self.game.totals)}:
                raise IllegalActionError("signed other final totals", seat)
            return None
        if kind in ("dealt", "passed"):
            alarm = body.get("alarm") if set(body) == {"alarm"} else None
            if not isinstance(alarm, str) or len(alarm) > MAX_REASON:
                raise IllegalActionError(f"malformed {kind} checkpoint", seat)
            return alarm
        self.flow.accept(kind, seat, body)
        return None

    # -- advancing -----------------------------------------------------------------------------

    def _advance(self, done: Step) -> None:
        kind = done.name.split(".")[0]
        if kind == "genesis":
            self._start_game(done)
        elif kind == "accept":
            self._new_step(0, "flip_commit", self._all())
            self._send_step_message()
        elif kind == "flip_commit":
            self._new_step(0, "flip_reveal", self._all())
            self._send_step_message()
        elif kind == "flip_reveal":
            self._seat_players()
            self._start_hand()
        elif kind == "play":
            self._after_play(done)
        elif kind == "moon":
            self._after_tricks()
        elif kind in ("dealt", "passed"):
            self._checkpoint(done)
        elif kind == "reveal":
            self._end_hand()
        elif kind == "end":
            self._finish()
        else:
            self._after_deck_step(kind)

    def _start_game(self, done: Step) -> None:
        genesis = done.parsed[0]
        assert isinstance(genesis, Genesis)
        self.genesis = genesis
        if self.identity is not None:
            self.me = genesis.index_of(self.identity.public_key)
            if self.me is not None and genesis.players[self.me].dh != self.dh_public:
                self._abort("the genesis lists another pass key for this player", 0, ())
                return
        self.status = Status.RUNNING
        self.flip = CoinFlip(self.game_id + b"seats", self.players)
        self._new_step(0, "accept", self._all())
        self._send_step_message()
        early, self._early = self._early, []
        for msg in early:
            self._receive(msg)

    def _seat_players(self) -> None:
        assert self.flip is not None and self.genesis is not None
        self.player_at = self.flip.order(list(range(self.players)))
        self.seat_of = [0] * self.players
        for seat, player in enumerate(self.player_at):
            self.seat_of[player] = seat
        self.game = Game(self.genesis.rules)
        you = self.my_seat if self.my_seat is not None else -1
        roster = self.genesis.players
        self.events.append(
            SeatedRoster(
                tuple(
                    RosterEntry(s, roster[p].name, roster[p].fingerprint, roster[p].bot)
                    for s, p in enumerate(self.player_at)
                ),
                you,
                self.genesis.rules.summary(),
            )
        )  # fmt: skip

    def _start_hand(self) -> None:
        assert self.game is not None and self.genesis is not None
        number = self.game.number + 1
        pass_keys = [self.genesis.players[p].dh for p in self.player_at]
        rng = HashStream(self._derive(f"hand {number}"))
        self.flow = HandFlow(
            self.genesis.rules,
            self.game_id,
            number,
            pass_keys,
            self.my_seat,
            rng,
            self.dh_private if self.my_seat is not None else None,
        )
        self._hand_actions = []
        self._plays = 0
        self._stopped = []
        self._next_deck_step(number)

    def _next_deck_step(self, number: int) -> None:
        assert self.flow is not None
        nxt = self.flow.next_step()
        if nxt is None:
            self._start_play()
            return
        name, seats = nxt
        self._new_step(number, name, tuple(self.player_at[s] for s in seats))
        self._send_step_message()

    def _after_deck_step(self, kind: str) -> None:
        self._next_deck_step(self.step.hand)

    def _checkpoint(self, done: Step) -> None:
        """After the deal or the pass: stop the hand if any seat found its cards unsound."""
        assert self.flow is not None and self.game is not None
        alarms = [(p, r) for p in done.senders if isinstance(r := done.parsed[p], str) and r]
        if alarms:
            self._stopped = alarms
            for _, reason in alarms:
                self.flow.stop(reason)
            self._new_step(done.hand, "reveal", self._all())
            self._send_step_message()
            return
        if done.name == "dealt":
            self._deal_engine(done.hand)
        else:
            self._pass_engine()
        self._next_deck_step(done.hand)

    def _deal_engine(self, number: int) -> None:
        assert self.flow is not None and self.game is not None
        seat = self.my_seat
        hands: list[int | None] = [None] * self.players
        if seat is not None:
            hands[seat] = self.flow.my_hand()
        self.game.start_hand(hands)
        if seat is not None:
            self.events.append(HandStarted(SeatView.of(self.game, seat)))

    def _pass_engine(self) -> None:
        assert self.flow is not None and self.game is not None and self.game.hand is not None
        hand = self.game.hand
        seat = self.my_seat
        received = self.flow.received_cards() if seat is not None else ()
        for s in range(self.players):
            cards: tuple[int, ...] | None = None
            if s == seat:
                cards = tuple(self.choices[str(hand.number)])
            elif (
                seat is not None and hand.pass_targets is not None and hand.pass_targets[s] == seat
            ):
                cards = tuple(received)
            self.game.apply(s, PassCards(None if cards is None else tuple(CARDS[c] for c in cards)))
        if seat is not None and received:
            targets = hand.pass_targets or []
            passer = next(s for s in range(self.players) if targets[s] == seat)
            self.events.append(PassReceived(passer, tuple(CARDS[c] for c in sorted(received)),
                                            SeatView.of(self.game, seat)))  # fmt: skip

    def _start_play(self) -> None:
        assert self.game is not None and self.game.hand is not None
        hand = self.game.hand
        if hand.phase is HandPhase.PLAYING:
            turn = hand.turn
            name = f"play.{self._plays}"
            if turn is None:
                self._new_step(hand.number, name, self._all(), any_one=True)
            else:
                self._new_step(hand.number, name, (self.player_at[turn],))
            return
        self._after_tricks()

    def _after_play(self, done: Step) -> None:
        assert self.game is not None and self.game.hand is not None
        hand = self.game.hand
        player = done.senders[0]
        seat = self.seat_of[player]
        card = done.parsed[player]
        assert isinstance(card, int)
        self._plays += 1
        view = SeatView.of(self.game, self.my_seat) if self.my_seat is not None else None
        if view is not None:
            self.events.append(CardPlayed(seat, CARDS[card], view))
            if not hand.trick and hand.tricks:
                last = hand.tricks[-1]
                plays = tuple((last.seat_of(i, hand.n), CARDS[c]) for i, c in enumerate(last.cards))
                pts = penalty_points(self.game.rules, mask_of(last.cards))
                self.events.append(TrickTaken(last.winner, plays, pts, view))
        if self.flow is not None and self.flow.phase is not DeckPhase.PLAY:
            self._after_tricks()  # a card that is not what it claims: everyone reveals now
            return
        self._start_play()

    def _after_tricks(self) -> None:
        assert self.game is not None and self.game.hand is not None and self.flow is not None
        hand = self.game.hand
        if hand.phase is HandPhase.MOON_CHOICE:
            assert hand.turn is not None
            self._new_step(hand.number, "moon", (self.player_at[hand.turn],))
            return
        self._new_step(hand.number, "reveal", self._all())
        self._send_step_message()

    def _end_hand(self) -> None:
        assert self.game is not None and self.flow is not None
        number = self.step.hand
        # The reveals prove whatever the audit finds: a peer still waiting for some can judge.
        evidence = tuple(m.raw for m in self.step.in_order())
        try:
            dealt, passed = self.flow.audit()
        except DeckCheatError as e:
            raise _Cheat(self.player_at[e.seat], f"hand {number}: {e.reason}", evidence) from None
        if self._stopped:
            player, alarm = self._stopped[0]
            why = f"hand {number}: stopped the hand ({alarm}) but the audit finds no fault"
            raise _Cheat(player, why, evidence)
        live = self.game.hand
        if live is None or live.number != number or live.phase is not HandPhase.SCORED:
            seat = next(s for s, a in reversed(self._hand_actions) if isinstance(a, PlayCard))
            why = f"hand {number}: the card it opened is not what the deck holds"
            raise _Cheat(self.player_at[seat], why, evidence)
        try:
            replay = replay_hand(self.game.rules, number, dealt, passed, self._hand_actions)
        except ReplayFault as e:
            raise _Cheat(self.player_at[e.seat], str(e), evidence) from None
        if self.on_hand_audited is not None:
            totals = tuple(self.game.totals)
            self.on_hand_audited(HandRecord(number, tuple(dealt), tuple(passed), replay, totals))
        result = live.result
        assert result is not None
        if self.my_seat is not None:
            self.events.append(
                HandScored(
                    live.number,
                    result,
                    tuple(self.game.totals),
                    SeatView.of(self.game, self.my_seat),
                )
            )
        if self.game.over:
            self._new_step(live.number, "end", self._all())
            self._send_step_message()
        else:
            self._start_hand()

    def _finish(self) -> None:
        assert self.game is not None and self.game.result is not None
        self.status = Status.FINISHED
        self.events.append(GameOver(self.game.result, "", self.head.hex()))

    # -- sending -------------------------------------------------------------------------------

    def _all(self) -> tuple[int, ...]:
        return tuple(range(self.players))

    def _new_step(
        self, hand: int, name: str, senders: tuple[int, ...], any_one: bool = False
    ) -> None:
        self.step = Step(hand, name, senders, self.head, any_one)

    def _send_step_message(self) -> None:
        """Send this peer's message for the current step if it needs no decision from the seat."""
        if self.me is None or self.me not in self.step.senders or self.me in self.step.got:
            return
        if self.status is not Status.RUNNING:
            return
        kind = self.step.name.split(".")[0]
        body: dict[str, Any]
        if kind == "accept":
            body = {"genesis": self._genesis_digest()}
        elif kind == "flip_commit":
            body = {"commit": commitment(self.flip.context, self.me, self._derive("flip"))}  # type: ignore[union-attr]
        elif kind == "flip_reveal":
            body = {"secret": self._derive("flip")}
        elif kind == "end":
            assert self.game is not None
            body = {"totals": list(self.game.totals)}
        elif kind in ("dealt", "passed"):
            assert self.flow is not None
            body = {"alarm": (self.flow.alarm or "")[:MAX_REASON]}
        elif kind in ("play", "moon"):
            return
        else:
            assert self.flow is not None
            if kind == "pass_commit":
                picks = self.choices.get(str(self.step.hand))
                if picks is None:
                    return  # the seat has not chosen yet
                self.flow.choose_pass(picks)
            body = self.flow.make(kind)
        self._send(self.step.name, body)

    def _send(self, step_name: str, body: dict[str, Any]) -> None:
        assert self.identity is not None
        me = self.me if self.me is not None else 0
        seq = self._next_seq.get(me, 0)
        env = Envelope(PROTOCOL_VERSION, self.game_id, self.step.hand, step_name, me, seq,
                       self.step.prev, step_name.split(".")[0], body)  # fmt: skip
        msg = encode_message(self.identity, env)
        self.outbox.append(msg)
        self.receive(msg)

    def _genesis_digest(self) -> bytes:
        assert self.genesis is not None or self.entries
        return hashlib.sha256(b"hearts-p2p genesis\0" + self.entries[0]).digest()

    # -- aborting ------------------------------------------------------------------------------

    def _abort(
        self,
        reason: str,
        culprit: int | None,
        evidence: tuple[bytes, ...],
        reported: SignedMessage | None = None,
    ) -> None:
        """Stop the game. Our own signed abort goes after any peer's report that caused it."""
        if self.status in (Status.ABORTED, Status.FINISHED):
            return
        self.status = Status.ABORTED
        reason = reason[:MAX_REASON]
        if reported is not None:
            self._log_local(reported.raw)
        self.abort = Abort(reason, culprit, self.me, evidence)
        if self.identity is not None and self.me is not None:
            body = {"reason": reason, "culprit": culprit, "evidence": list(evidence)}
            seq = self._next_seq.get(self.me, 0)
            env = Envelope(PROTOCOL_VERSION, self.game_id, self.step.hand, "abort", self.me, seq,
                           self.head, "abort", body)  # fmt: skip
            msg = encode_message(self.identity, env)
            self.outbox.append(msg)
            self._log_local(msg.raw)
        seat = self.seat_of[culprit] if culprit is not None and self.seat_of else None
        self.events.append(Aborted(reason, seat, ""))

    def _receive_abort(self, msg: SignedMessage) -> None:
        body = msg.envelope.body
        reason, culprit = body.get("reason"), body.get("culprit")
        if not isinstance(reason, str) or not (culprit is None or isinstance(culprit, int)):
            self.dropped += 1
            return
        if culprit is not None and not 0 <= culprit < self.players:
            culprit = None
        evidence = body.get("evidence")
        self._check_evidence(evidence)
        if self.status is not Status.RUNNING:
            return  # the evidence convinced us: our own abort names the culprit, not hearsay
        name = self.genesis.players[msg.envelope.sender].name if self.genesis else "the host"
        if evidence and culprit != msg.envelope.sender:
            # Evidence that does not convince us blames no one: the accuser may be the cheat.
            why = f"{reason[:MAX_REASON]} (reported by {name}; its evidence does not show it)"
            self._abort(why, None, (), reported=msg)
            return
        self._abort(f"{reason[:MAX_REASON]} (reported by {name})", culprit, (), reported=msg)

    def _check_evidence(self, evidence: object) -> None:
        """Judge a report's signed evidence ourselves, so a cheat is named on our own authority
        and a false report cannot turn our blame on an honest player."""
        if not isinstance(evidence, list):
            return
        for raw in evidence[:MAX_EVIDENCE]:
            if self.status is not Status.RUNNING or not isinstance(raw, bytes):
                return
            try:
                frame = decode_frame(raw)
            except WireError:
                continue
            if frame.envelope.kind != "abort":
                self.receive(frame)

    def _log_local(self, raw: bytes) -> None:
        self.entries.append(raw)
        self.new_entries.append(raw)
        self.head = chain(self.head, raw)


def _reason(e: Exception) -> str:
    if isinstance(e, DeckCheatError | CoinFlipCheatError):
        return e.reason
    if isinstance(e, IllegalActionError):
        return e.rule
    return str(e)
