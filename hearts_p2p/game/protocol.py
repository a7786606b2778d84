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
    Claim,
    Expose,
    Game,
    GameResult,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
)
from ..identity import Identity
from ..wire import SignedMessage, WireError, decode_frame, pack
from .abort import after_abort, pair, receive_abort, resume_stop, sign_abort, verdict
from .claims import claim_body
from .events import GameEvent, HandStarted, SeatedRoster
from .exposure import exposure_body
from .genesis import Genesis, GenesisError
from .handflow import HandFlow
from .handsteps import HAND_STEPS
from .outcome import Abort, CheatError, Termination
from .seating import SEATING
from .state import GameState, Status, StepRecord, StepRule
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
        self._seen: dict[tuple[int, int], SignedMessage] = {}  # (player, seq): taken or waiting
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
        s = self._s
        if msg.raw in s.frames or s.status is Status.FINISHED:
            return  # a copy of a message already taken or waiting: relays make many
        try:
            if s.status is Status.ABORTED:
                after_abort(s, msg, self._key_of(msg.envelope.sender))
            else:
                self._receive(msg)
        except CheatError as c:
            verdict(s, c.culprit, c.reason, c.evidence)
        resume_stop(s)

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
        elif isinstance(action, Expose):
            self._send(s.step.name, exposure_body(s, tuple(int(c) for c in action.cards)))
        elif isinstance(action, Claim):
            self._send(s.step.name, claim_body(s, tuple(int(c) for c in action.cards)))
        else:
            raise ProtocolError(f"{action} has no message in this protocol")

    def quit(self, name: str) -> None:
        """This player leaves: the game ends for everyone, naming the leaver on its own word."""
        sign_abort(self._s, Termination.LEFT, f"{name} left the table", self._s.me)

    def give_up_on(self, player: int, seconds: float, *, stalled: bool = False) -> None:
        """A player has been gone (or, connected, has held up a step that needs no decision)
        longer than the timeout: end the game, naming it."""
        s = self._s
        if s.status is not Status.RUNNING:
            return
        name = s.genesis.players[player].name if s.genesis else str(player)
        if stalled:
            why = f"{name} held up {s.step} for more than {seconds:.0f} s"
            sign_abort(s, Termination.STALLED, why, player)
        else:
            why = f"{name} was gone for more than {seconds:.0f} s"
            sign_abort(s, Termination.GONE, why, player)

    @property
    def log_kept(self) -> int:
        """How many of the entries already taken are still the log's: a verdict cuts the log
        back to where its evidence's step began, so the shell truncates its file to this before
        appending what ``take_entries`` gives."""
        return min(self._s.kept, len(self._s.entries))

    def take_entries(self) -> list[bytes]:
        """The log entries since ``log_kept``, to append to the log file."""
        s = self._s
        kept = self.log_kept
        s.kept = len(s.entries)
        return s.entries[kept:]

    def has_frame(self, raw: bytes) -> bool:
        """Whether these exact bytes were taken already: relays bring every message several
        times, and a copy need not be decoded to be dropped."""
        return raw in self._s.frames

    def forged(self, msg: SignedMessage) -> bool:
        """Whether ``msg`` was signed by a player other than the one it names: a relay of it goes
        to that player too, who must see the forgery in its name to reach the same verdict."""
        return msg.raw in self._s.forged

    def take_relays(self) -> list[SignedMessage]:
        """Others' messages this peer took or judged since the last call. The shell sends each
        on to every peer but its signer, before anything of this peer's own: whatever one
        honest peer took, every honest peer gets, and an equivocation shows at all of them."""
        out, self._s.relays = self._s.relays, []
        return out

    def drain(self) -> tuple[list[SignedMessage], list[bytes], list[GameEvent]]:
        """What to send, what to append to the log (after ``log_kept``), what to show; clears
        them."""
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
        self.take_relays()  # what the log holds, the peers have: sync, not relays, catches up
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
        if env.game_id != s.game_id or msg.raw != pack([msg.envelope_bytes, msg.signature]):
            # Another game's message, replayed or misrouted, or outer bytes of someone's own
            # making (the decoder refuses those): nobody's fault, and not taken.
            self._dropped += 1
            return
        if key is None or (msg.raw not in s.signed and not msg.verify(key)):
            self._unsigned(msg)
            return
        if env.kind == "abort":
            s.frames.add(msg.raw)
            if not receive_abort(s, msg, self.receive):
                self._dropped += 1
            return
        seen = self._seen.get((env.sender, env.seq))
        if seen is not None:
            s.frames.add(msg.raw)
            if seen.envelope_bytes != msg.envelope_bytes:
                why = "sent two different messages under one number"
                raise CheatError(env.sender, why, pair(seen, msg))
            return  # the same envelope under another signature of its signer's: one message
        buf = self._future.setdefault(env.sender, {})
        if env.seq < s.next_seq.get(env.sender, 0) or len(buf) >= MAX_FUTURE:
            self._dropped += 1  # stale, or no room yet: a copy relayed later may be taken
            return
        s.frames.add(msg.raw)
        buf[env.seq] = msg
        self._seen[(env.sender, env.seq)] = msg
        self._drain_future()

    def _unsigned(self, msg: SignedMessage) -> None:
        """A frame its named sender did not sign: damage or a stranger (dropped), or a seated
        player signing in another's name, which its own signature proves."""
        env, genesis = msg.envelope, self._s.genesis
        for p, player in enumerate(genesis.players if genesis is not None else ()):
            if p != env.sender and msg.verify(player.key):
                self._s.frames.add(msg.raw)
                self._s.forged.add(msg.raw)
                why = f"signed a {env.kind} message in another player's name"
                raise CheatError(p, why, (msg,))
        self._dropped += 1

    def _due(self, msg: SignedMessage) -> bool:
        """Whether a sender's next message can be judged now: it is chained to the log this
        peer holds, at the current step or an earlier one. A message chained elsewhere waits
        (its sender may be ahead, or an equivocation split the views, which the relayed
        messages will prove): it is never judged on a history this peer has not seen, so what
        is decided is decided alike by every honest peer."""
        prev = msg.envelope.prev
        return prev == self._s.step.prev or prev in self._s.steps

    def _drain_future(self) -> None:
        s = self._s
        progress = True
        while progress and s.status in (Status.RUNNING, Status.AWAITING_GENESIS):
            progress = False
            for player, buf in list(self._future.items()):
                msg = buf.get(s.next_seq.get(player, 0))
                if msg is not None and self._due(msg):
                    del buf[msg.envelope.seq]
                    self._judge(msg)
                    progress = True
                    break

    def _judge(self, msg: SignedMessage) -> None:
        """Judge a sender's next message against the step its ``prev`` names."""
        s, env = self._s, msg.envelope
        if env.prev != s.step.prev:
            record = s.steps[env.prev]
            earlier = record.got.get(env.sender)
            if earlier is not None:
                why = "sent two different messages for one step"
                raise CheatError(env.sender, why, pair(decode_frame(earlier), msg))
            raise CheatError(env.sender, f"sent {env.step} for a step it had no part in", (msg,))
        if env.sender in s.step.got:
            why = "sent two different messages for one step"
            raise CheatError(env.sender, why, pair(s.step.got[env.sender], msg))
        self._accept(msg)

    def _accept(self, msg: SignedMessage) -> None:
        s, env = self._s, msg.envelope
        step = s.step
        if env.sender not in step.senders:
            raise CheatError(env.sender, f"sent {env.step} out of turn", (msg,))
        if env.hand != step.hand or env.step != step.name:
            why = f"sent {env.step} of hand {env.hand} during {step}"
            raise CheatError(env.sender, why, (msg,))
        if env.kind != step.kind:
            raise CheatError(env.sender, f"sent a {env.kind} message in {step}", (msg,))
        step.parsed[env.sender] = self._check(msg)
        step.got[env.sender] = msg
        s.next_seq[env.sender] = env.seq + 1
        if s.me is not None and env.sender != s.me:
            s.relays.append(msg)
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
            raise CheatError(env.sender, _reason(e), (msg,)) from None
        except DeckError as e:
            raise CheatError(env.sender, f"bad {kind} message: {e}", (msg,)) from None

    def _commit(self, step: Step) -> None:
        """The step is complete: its entries go into the log, the next step begins."""
        s = self._s
        s.steps[step.prev] = StepRecord({p: m.raw for p, m in step.got.items()})
        for m in step.in_order():
            s.log(m)
        RULES[step.kind].advance(s, step)
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
