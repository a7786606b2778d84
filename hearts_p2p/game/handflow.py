"""One hand's deck protocol as the game protocol sees it: steps, this seat's messages, checks.

It wraps the pure deck: a ``SeatDeck`` for a player, a ``PublicHand`` for an observer (the
audit). The deck decides what a seat sends and when; this adapter turns that into the steps of
the game log and holds this seat's messages until their step begins.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ..cards import mask_of
from ..deck import (
    PROOF_ROUNDS,
    DealKeys,
    DeckCheatError,
    DeckEchoMismatch,
    DeckError,
    Echo,
    HandParams,
    Lock,
    Message,
    Open,
    PassCommit,
    PassReveal,
    Phase,
    PublicHand,
    Randomness,
    Remix,
    RemixAnswer,
    RemixShare,
    Reveal,
    SeatDeck,
    Shuffle,
    Stage,
    message_from_wire,
)
from ..rules import Rules
from .replay import HandTruth
from .steps import StepId, StepKind

__all__ = ["MAX_SHOWN", "HandFlow", "kind_of"]

MAX_SHOWN = 4  # Q♠ J♦ 10♣ A♥: the cards a Gong Zhu seat may expose

_KINDS: dict[type, StepKind] = {
    Shuffle: StepKind.SHUFFLE,
    Lock: StepKind.LOCK,
    DealKeys: StepKind.DEAL,
    PassCommit: StepKind.PASS_COMMIT,
    PassReveal: StepKind.PASS_REVEAL,
    Remix: StepKind.REMIX,
    RemixShare: StepKind.REMIX_SHARE,
    RemixAnswer: StepKind.REMIX_ANSWER,
    Open: StepKind.OPEN,
    Reveal: StepKind.REVEAL,
}


def kind_of(msg: Message) -> StepKind:
    """The kind of step that carries ``msg``."""
    if isinstance(msg, Echo):
        return StepKind.ECHO_SHUFFLE if msg.stage is Stage.SHUFFLE else StepKind.ECHO_LOCK
    return _KINDS[type(msg)]


class HandFlow:
    """The deck side of one hand for one peer (``seat`` None: an observer with no secrets)."""

    def __init__(
        self,
        rules: Rules,
        game_id: bytes,
        number: int,
        pass_keys: list[bytes],
        seat: int | None,
        rng: Randomness,
        pass_key: X25519PrivateKey | None,
        proof_rounds: int = PROOF_ROUNDS,
    ) -> None:
        self.params = HandParams.for_rules(rules, game_id, number, pass_keys, proof_rounds)
        self.seat = seat
        self.deck: SeatDeck | None = None
        if seat is not None:
            assert pass_key is not None
            self.deck = SeatDeck(self.params, seat, pass_key, rng)
            self.public = self.deck.public
        else:
            self.public = PublicHand(self.params)
        self._outbox: list[Message] = []
        self._sent: list[Message] = []
        # The table plays this seat (taken over): its parts are the ones every peer computes
        # from its recovered secret, which this seat's own deck follows, whatever it had made.
        self.followed = False
        self._schedule = self.schedule()
        self._step = 0
        if self.deck is not None:
            self._queue(self.deck.start())

    @property
    def phase(self) -> Phase:
        return self.public.phase

    @property
    def alarm(self) -> str | None:
        """Why this seat's deck stopped the hand on its own (bad keys sealed to it, …)."""
        return self.deck.alarm_reason if self.deck is not None else None

    def schedule(self) -> list[tuple[StepId, list[int]]]:
        """The deck's steps before play, in log order: (name, seats expected).

        ``dealt`` and ``passed`` are checkpoints where each seat says whether the cards it just
        learned are sound. Only the seat a bad key hurts can see it; saying so at a fixed step
        lets every peer stop the hand at the same point and let the audit name the culprit.
        ``remix`` follows a sound pass: each seat's hand under fresh keys of its own, so a card
        it received cannot be told from one it kept when it is played. ``remix_share`` and
        ``remix_answer`` prove each remix before the first play, so a clean hand's reveals need
        show no key and its passes stay private.
        """
        n = self.params.players
        everyone = list(range(n))
        k = StepKind
        steps = [(StepId(k.SHUFFLE, s), [s]) for s in range(n)]
        steps += [(StepId(k.ECHO_SHUFFLE), everyone)]
        steps += [(StepId(k.LOCK, s), [s]) for s in range(n)] + [(StepId(k.ECHO_LOCK), everyone)]
        steps += [(StepId(k.DEAL), everyone), (StepId(k.DEALT), everyone)]
        if self.params.passing:
            for kind in (
                k.PASS_COMMIT,
                k.PASS_REVEAL,
                k.PASSED,
                k.REMIX,
                k.REMIX_SHARE,
                k.REMIX_ANSWER,
            ):
                steps.append((StepId(kind), everyone))
        return steps

    def next_step(self) -> tuple[StepId, list[int]] | None:
        """The next deck step before play, or None once play may begin."""
        nxt = self.peek_step()
        if nxt is not None:
            self._step += 1
        return nxt

    def peek_step(self) -> tuple[StepId, list[int]] | None:
        """The step ``next_step`` would give, without moving on."""
        return self._schedule[self._step] if self._step < len(self._schedule) else None

    # -- this seat ----------------------------------------------------------------------------

    def _queue(self, msgs: list[Message]) -> None:
        self._outbox += msgs

    def make(self, kind: StepKind) -> dict[str, Any]:
        """This seat's message for a step of ``kind``, which the deck has already produced."""
        for i, msg in enumerate(self._outbox):
            if kind_of(msg) == kind:
                del self._outbox[i]
                self._sent.append(msg)
                return msg.to_wire()
        raise DeckError(f"this seat has no {kind} message ready")

    def choose_pass(self, cards: list[int]) -> None:
        assert self.deck is not None
        if not any(isinstance(m, PassCommit) for m in self._outbox + self._sent):
            self._queue(self.deck.choose_pass(cards))

    def make_open(self, card: int) -> dict[str, Any]:
        """This seat's play of ``card``: the deck's open of it."""
        assert self.deck is not None
        self._queue(self.deck.open(card))
        return self.make(StepKind.OPEN)

    def make_shows(self, cards: list[int]) -> list[dict[str, Any]]:
        """This seat's exposure of ``cards`` (Gong Zhu): the deck's open of each, in card order."""
        assert self.deck is not None
        return [self.deck.show(c).to_wire() for c in sorted(cards)]

    def accept_shows(self, seat: int, bodies: object, limit: int = MAX_SHOWN) -> int:
        """Check cards shown and kept (an exposure, a claim's hand): each entry an open, by
        ``seat``, of a card it holds, in card order, at most ``limit``; return the mask of the
        cards shown. Raises a ``DeckError`` naming the culprit."""
        if not isinstance(bodies, list) or len(bodies) > limit:
            raise DeckCheatError(
                seat, f"sent a list of shown cards that is not {limit} opens or fewer"
            )
        cards: list[int] = []
        for body in bodies:
            msg = self._parse(StepKind.OPEN, seat, body)
            assert isinstance(msg, Open)
            if cards and msg.card <= cards[-1]:
                raise DeckCheatError(seat, "sent shown cards that are not in card order")
            self.public.check_show(msg)
            cards.append(msg.card)
        return mask_of(cards)

    def my_hand(self) -> int:
        assert self.deck is not None
        return self.deck.dealt

    def received_cards(self) -> list[int]:
        if self.deck is None:
            return []
        mask = self.deck.received
        return [c for c in range(52) if mask >> c & 1]

    # -- every message ------------------------------------------------------------------------

    def _parse(self, kind: StepKind, seat: int, body: dict[str, Any]) -> Message:
        msg = message_from_wire(body)
        if kind_of(msg) != kind:
            raise DeckCheatError(seat, f"sent a {kind_of(msg)} message as its {kind}")
        if msg.seat != seat:
            raise DeckCheatError(seat, f"sent a message in the name of seat {msg.seat}")
        return msg

    def accept(self, kind: StepKind, seat: int, body: dict[str, Any]) -> Message:
        """Check one message of the current step; raises a ``DeckError`` naming the culprit."""
        msg = self._parse(kind, seat, body)
        if seat == self.seat:
            self._own(msg)
            return msg
        try:
            if self.deck is not None:
                self._queue(self.deck.receive(msg))
            else:
                self.public.receive(msg)
        except DeckEchoMismatch as e:
            raise DeckError(
                f"seat {e.seat} saw a different {e.stage} transcript: someone sent different "
                "decks to different players"
            ) from None
        return msg

    def accept_open(self, seat: int, body: dict[str, Any]) -> int:
        """Check a play (the deck's open) and return the card it shows."""
        msg = self.accept(StepKind.OPEN, seat, body)
        assert isinstance(msg, Open)
        return msg.card

    def _own(self, msg: Message) -> None:
        """Our own message coming back (from our log, or a peer catching us up)."""
        if msg in self._sent:
            return
        if isinstance(msg, Open) and self.deck is not None:
            self._queue(self.deck.open(msg.card))
        kind = kind_of(msg)
        for i, mine in enumerate(self._outbox):
            if kind_of(mine) == kind:
                if mine != msg and not self.followed:
                    raise DeckError(f"a {kind} message signed by this seat is not its own")
                del self._outbox[i]
                self._sent.append(msg)
                return
        if self.followed:
            self._sent.append(msg)  # the table's part for this seat, which every peer computes
            return
        raise DeckError(f"a {kind} message signed by this seat came before its time")

    def stop(self, reason: str) -> None:
        """Another seat raised an alarm: reveal everything now, so the audit can judge it."""
        if self.deck is not None and self.deck.alarm_reason is None:
            self._queue(self.deck.alarm(reason))

    def audit(self, also: Sequence[HandFlow] = ()) -> HandTruth:
        """After every reveal: the true hands. When the passes stay private, each seat's dealt
        hand and pass are known only where this seat (or a seat of ``also``, the table's) dealt
        or received them."""
        result = self.deck.audit() if self.deck is not None else self.public.audit()
        if result.problems:
            raise result.problems[0]
        n = self.params.players
        if not result.passes_private:
            passes = [0] * n
            for record in result.passes:
                passes[record.passer] = record.cards
            return HandTruth(result.held, result.dealt, tuple(passes))
        dealt: list[int | None] = [None] * n
        passed: list[int | None] = [None] * n
        for flow in (self, *also):
            if flow.deck is not None and flow.seat is not None:
                dealt[flow.seat], passed[flow.seat] = flow.deck.dealt, flow.deck.passed
                passer = self.params.passer_to(flow.seat)
                if passer is not None:
                    passed[passer] = flow.deck.received
        return HandTruth(result.held, tuple(dealt), tuple(passed))
