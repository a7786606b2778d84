"""The game protocol of one peer, sans I/O: signed messages in, signed messages and events out.

It is the heart of a node and of the audit. Every message, its own included, passes the same
path: envelope binding, signature, sequence, then the step's checks (deck cryptography, rules).
A message from a later step waits in a small buffer; a completed step goes into the log in
sender order. The trio node only moves bytes, persists the log and asks the front end.

What each kind of step checks, what follows it and what this seat sends for it is in one table
(``RULES``, from ``seating.py`` and ``handsteps.py``); this module holds the path every message
takes and the narrow API the shell and the audit use: ``receive``, ``submit``, ``drain``,
``resume`` and read-only properties.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ..coinflip import CoinFlipCheatError
from ..deck import DeckCheatError, DeckError
from ..engine import (
    Action,
    ChooseMoon,
    Game,
    GameResult,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
)
from ..identity import Identity
from ..wire import SignedMessage, WireError, decode_frame
from .abort import judge_report, stop
from .events import GameEvent, HandStarted, SeatedRoster
from .genesis import Genesis, GenesisError
from .handflow import HandFlow
from .handsteps import HAND_STEPS
from .outcome import Abort, CheatError, Termination
from .seating import SEATING
from .state import GameState, Status, StepRule
from .steps import DECISIONS, Step, StepKind

__all__ = ["RULES", "GameProtocol", "ProtocolError"]

MAX_FUTURE = 64  # buffered messages per sender from steps not begun yet

RULES: Mapping[StepKind, StepRule] = MappingProxyType({**SEATING, **HAND_STEPS})


class ProtocolError(Exception):
    """A local misuse (acting out of turn, submitting twice, resuming twice); never caused by
    a peer."""


class GameProtocol:
    """One peer's view of one game. ``identity`` is None for an observer (the offline audit)."""

    def __init__(
        self,
        game_id: bytes,
        host_key: bytes,
        identity: Identity | None = None,
        secret: bytes | None = None,
        choices: Mapping[str, Any] | None = None,
    ) -> None:
        if identity is not None and (secret is None or len(secret) != 32):
            raise ProtocolError("a player needs its 32-byte game secret: every key derives from it")
        secret = secret or bytes(32)  # an observer derives nothing from it
        self._s = GameState(game_id, host_key, identity, secret, dict(choices or {}))
        self._seen: dict[tuple[int, int], bytes] = {}  # (player, seq) -> raw
        self._future: dict[int, dict[int, SignedMessage]] = {}
        self._early: list[SignedMessage] = []
        self._dropped = 0

    # -- read-only views -----------------------------------------------------------------------

    @property
    def game_id(self) -> bytes:
        return self._s.game_id

    @property
    def identity(self) -> Identity | None:
        return self._s.identity

    @property
    def dh_public(self) -> bytes:
        """This player's X25519 key for the game, which the genesis lists."""
        return self._s.dh_public

    @property
    def status(self) -> Status:
        return self._s.status

    @property
    def termination(self) -> Termination | None:
        """How the game ended; None while it goes on."""
        if self._s.status is Status.FINISHED:
            return Termination.FINISHED
        return self._s.abort.termination if self._s.abort is not None else None

    @property
    def abort(self) -> Abort | None:
        return self._s.abort

    @property
    def result(self) -> GameResult | None:
        return self._s.game.result if self._s.game is not None else None

    @property
    def genesis(self) -> Genesis | None:
        return self._s.genesis

    @property
    def players(self) -> int:
        return self._s.players

    @property
    def me(self) -> int | None:
        """This peer's player number (genesis order), None for an observer."""
        return self._s.me

    @property
    def my_seat(self) -> int | None:
        return self._s.my_seat

    @property
    def seat_of(self) -> tuple[int, ...]:
        """Seat by player; empty until the coin flip."""
        return tuple(self._s.seat_of)

    @property
    def player_at(self) -> tuple[int, ...]:
        """Player by seat; empty until the coin flip."""
        return tuple(self._s.player_at)

    @property
    def game(self) -> Game | None:
        """The rules engine as this peer knows the game (its own cards only)."""
        return self._s.game

    @property
    def flow(self) -> HandFlow | None:
        """The current hand's deck."""
        return self._s.flow

    @property
    def step(self) -> Step:
        return self._s.step

    @property
    def entries(self) -> list[bytes]:
        """The log so far, as every honest peer holds it (a copy)."""
        return list(self._s.entries)

    @property
    def head(self) -> bytes:
        return self._s.head

    @property
    def choices(self) -> Mapping[str, Any]:
        """This seat's pass picks by hand: saved with the secrets, so a resumed seat keeps them."""
        return MappingProxyType(self._s.choices)

    @property
    def next_seq(self) -> int:
        """The number this player's next message carries."""
        me = self._s.me if self._s.me is not None else 0
        return self._s.next_seq.get(me, 0)

    @property
    def dropped(self) -> int:
        """Messages dropped: bad signatures, strangers, stale copies, a full buffer."""
        return self._dropped

    @property
    def mid_trick(self) -> bool:
        """Whether the last step was a play that left its trick open."""
        hand = self._s.game.hand if self._s.game is not None else None
        return self._s.step.kind is StepKind.OPEN and hand is not None and bool(hand.trick)

    def pending(self) -> list[SignedMessage]:
        """The current step's messages so far, in log order (to catch a peer up)."""
        return self._s.step.in_order()

    def waiting_for(self) -> list[int]:
        """Players the game is waiting on now."""
        if self._s.status not in (Status.RUNNING, Status.AWAITING_GENESIS):
            return []
        return self._s.step.waiting_for()

    def waiting_on_machines(self) -> bool:
        """Whether the current step waits only on messages no person has to decide."""
        return self._s.step.kind not in DECISIONS

    def view(self) -> SeatView | None:
        seat = self._s.my_seat
        if self._s.game is None or seat is None:
            return None
        return SeatView.of(self._s.game, seat)

    def choice_needed(self) -> SeatView | None:
        """The view to decide on when this peer's seat must choose an action now."""
        s = self._s
        step = s.step
        if s.status is not Status.RUNNING or s.me is None or s.me in step.got:
            return None
        if s.me not in step.senders or s.game is None or step.kind not in DECISIONS:
            return None
        if step.kind is StepKind.PASS_COMMIT and str(step.hand) in s.choices:
            return None
        view = self.view()
        return view if view is not None and view.legal else None

    # -- driving -------------------------------------------------------------------------------

    def propose(self, genesis: Genesis) -> None:
        """The host opens the game with its genesis entry."""
        if self._s.identity is None or self._s.identity.public_key != self._s.host_key:
            raise ProtocolError("only the host proposes the genesis")
        self._send("genesis", genesis.to_wire())

    def receive(self, msg: SignedMessage) -> None:
        """Take one decoded message from a peer (or from our own log); never raises for a peer."""
        if self._s.status in (Status.FINISHED, Status.ABORTED) and msg.envelope.kind != "abort":
            return
        try:
            self._receive(msg)
        except CheatError as c:
            stop(self._s, Termination.CHEAT_PROVEN, c.reason, c.culprit, c.evidence)

    def submit(self, action: Action) -> None:
        """This seat's chosen action for the current step (validated like anyone else's)."""
        s = self._s
        view = self.choice_needed()
        if view is None or action not in view.legal:
            raise ProtocolError(f"{action} is not an action this seat can take now")
        assert s.flow is not None
        if isinstance(action, PassCards):
            assert action.cards is not None
            s.choices[str(s.step.hand)] = [int(c) for c in action.cards]
            self._send_own()
        elif isinstance(action, PlayCard):
            self._send(s.step.name, s.flow.make_open(int(action.card)))
        elif isinstance(action, ChooseMoon):
            self._send(s.step.name, {"add": action.add_to_others})
        else:
            raise ProtocolError(f"{action} has no message in this protocol")

    def quit(self, name: str) -> None:
        """This player leaves: the game ends for everyone, blaming the leaver."""
        if self._s.me is not None:
            stop(self._s, Termination.LEFT, f"{name} left the table", self._s.me)

    def give_up_on(self, player: int, seconds: float, *, stalled: bool = False) -> None:
        """A player has been gone (or, connected, has held up a step that needs no decision)
        longer than the timeout: end the game, naming it."""
        s = self._s
        if s.status is not Status.RUNNING:
            return
        name = s.genesis.players[player].name if s.genesis else str(player)
        if stalled:
            why = f"{name} held up {s.step} for more than {seconds:.0f} s"
            stop(s, Termination.STALLED, why, player)
        else:
            stop(s, Termination.GONE, f"{name} was gone for more than {seconds:.0f} s", player)

    def take_entries(self) -> list[bytes]:
        """The log entries committed since the last take, to append to the log file."""
        entries, self._s.new_entries = self._s.new_entries, []
        return entries

    def drain(self) -> tuple[list[SignedMessage], list[bytes], list[GameEvent]]:
        """What to send, what to append to the log, what to show; clears them."""
        out, self._s.outbox = self._s.outbox, []
        events, self._s.events = self._s.events, []
        return out, self.take_entries(), events

    def resume(self, entries: Iterable[bytes]) -> None:
        """Rebuild this peer's state from its own log, before anything else.

        What the replay re-derives is already on disk, so it is not given out again, except
        this player's own message in the step left incomplete: it is sent again, since a crash
        may have come before it left. The events left to show say where the game stands: who
        sits where, and this seat's hand now.
        """
        if self._s.entries or self._s.outbox:
            raise ProtocolError("a game resumes into a fresh protocol only")
        for raw in entries:
            try:
                self.receive(decode_frame(raw))
            except WireError:
                continue
        pending = {m.raw for m in self._s.step.got.values()}
        out, _, events = self.drain()
        self._s.outbox = [m for m in out if m.raw in pending]
        shown: list[GameEvent] = []
        shown += [e for e in events if isinstance(e, SeatedRoster)][-1:]
        view = self.view()
        if view is not None and view.phase is not None:
            shown.append(HandStarted(view))
        self._s.events = shown

    # -- receiving -----------------------------------------------------------------------------

    def _key_of(self, player: int) -> bytes | None:
        genesis = self._s.genesis
        if genesis is None:
            return self._s.host_key if player == 0 else None
        if player >= len(genesis.players):
            return None
        return genesis.players[player].key

    def _receive(self, msg: SignedMessage) -> None:
        s, env = self._s, msg.envelope
        key = self._key_of(env.sender)
        if key is None and s.genesis is None and env.game_id == s.game_id:
            if len(self._early) < MAX_FUTURE:
                self._early.append(msg)  # a player's key is known once the genesis is in
            return
        if env.game_id != s.game_id or key is None or not msg.verify(key):
            self._dropped += 1
            return
        if env.kind == "abort":
            if not judge_report(s, msg, self.receive):
                self._dropped += 1
            return
        seen = self._seen.get((env.sender, env.seq))
        if seen is not None:
            if seen != msg.raw:
                why = "sent two different messages under one number"
                raise CheatError(env.sender, why, (seen, msg.raw))
            return
        expected = s.next_seq.get(env.sender, 0)
        if env.seq < expected:
            self._dropped += 1  # older than what we hold, and not a copy of it: stale
            return
        step = s.step
        if (env.hand, env.step) == (step.hand, step.name) and env.sender not in step.senders:
            raise CheatError(env.sender, f"sent {step.name} out of turn", (msg.raw,))
        if env.seq > expected or not self._for_now(msg):
            buf = self._future.setdefault(env.sender, {})
            if len(buf) < MAX_FUTURE:
                buf[env.seq] = msg
            else:
                self._dropped += 1
            return
        self._accept(msg)
        self._drain_future()

    def _for_now(self, msg: SignedMessage) -> bool:
        """Whether a sender's next message belongs to the current step (else it waits).

        A sender expected in a plain step sends for it before anything else, so its next message
        is judged now, and a wrong one is a cheat; others may already be a step ahead of us.
        """
        env, step = msg.envelope, self._s.step
        if env.sender not in step.senders or env.sender in step.got:
            return False
        if step.any_one:
            return env.hand == step.hand and env.step == step.name
        return True

    def _drain_future(self) -> None:
        progress = True
        while progress and self._s.status is Status.RUNNING:
            progress = False
            for player, buf in list(self._future.items()):
                msg = buf.get(self._s.next_seq.get(player, 0))
                if msg is not None and self._for_now(msg):
                    del buf[msg.envelope.seq]
                    self._accept(msg)
                    progress = True
                    break

    def _accept(self, msg: SignedMessage) -> None:
        s, env = self._s, msg.envelope
        step = s.step
        if env.hand != step.hand or env.step != step.name:
            why = f"sent {env.step} of hand {env.hand} during {step}"
            raise CheatError(env.sender, why, (msg.raw,))
        if env.prev != step.prev:
            raise CheatError(
                env.sender, f"its message in {step} is chained to another log", (msg.raw,)
            )
        if env.kind != step.kind:
            raise CheatError(env.sender, f"sent a {env.kind} message in {step}", (msg.raw,))
        step.parsed[env.sender] = self._check(msg)
        step.got[env.sender] = msg
        self._seen[(env.sender, env.seq)] = msg.raw
        s.next_seq[env.sender] = env.seq + 1
        if step.any_one:
            step.senders = (env.sender,)
        if step.complete:
            self._commit(step)

    def _check(self, msg: SignedMessage) -> object:
        """The step's own checks; any fault they find is a cheat by the sender."""
        env, kind = msg.envelope, self._s.step.kind
        try:
            return RULES[kind].check(self._s, env.sender, env.body)
        except (DeckCheatError, IllegalActionError, CoinFlipCheatError, GenesisError) as e:
            raise CheatError(env.sender, _reason(e), (msg.raw,)) from None
        except DeckError as e:
            raise CheatError(env.sender, f"bad {kind} message: {e}", (msg.raw,)) from None

    def _commit(self, step: Step) -> None:
        """The step is complete: its entries go into the log, the next step begins."""
        for m in step.in_order():
            self._s.log(m.raw)
        RULES[step.kind].advance(self._s, step)
        self._send_own()
        if self._early and self._s.genesis is not None:
            early, self._early = self._early, []
            for msg in early:
                self._receive(msg)

    # -- sending -------------------------------------------------------------------------------

    def _send_own(self) -> None:
        """Send this peer's message for the current step if it needs no decision from the seat."""
        s = self._s
        if s.me is None or s.me not in s.step.senders or s.me in s.step.got:
            return
        if s.status is not Status.RUNNING:
            return
        body = RULES[s.step.kind].send(s)
        if body is not None:
            self._send(s.step.name, body)

    def _send(self, step_name: str, body: dict[str, Any]) -> None:
        """Sign this player's message for the current step (``step_name``, as the wire names
        it) and take it through the same path as anyone's."""
        step = self._s.step
        if step_name != step.name:
            raise ProtocolError(f"a player sends only for the current step, not {step_name}")
        msg = self._s.sign(step.name, step.kind, body, step.prev)
        self._s.outbox.append(msg)
        self.receive(msg)


def _reason(e: Exception) -> str:
    if isinstance(e, DeckCheatError | CoinFlipCheatError):
        return e.reason
    if isinstance(e, IllegalActionError):
        return e.rule
    return str(e)
