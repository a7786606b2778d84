"""The steps of a hand: the deck's steps and checkpoints, the plays, the moon, the reveals and
the end-of-hand audit, and the game's closing step.

Each kind's check, advance and own message sit together in ``HAND_STEPS``. During play each peer
knows only its own cards and checks what is public; once every seat has revealed, the deck's
audit gives the true deal and passes and the hand is replayed with every card known.
"""

from __future__ import annotations

from typing import Any

from ..cards import CARDS, mask_of
from ..deck import DeckCheatError, Open
from ..deck import Message as DeckMessage
from ..deck import Phase as DeckPhase
from ..engine import (
    ChooseMoon,
    HandPhase,
    HandState,
    IllegalActionError,
    PassCards,
    PlayCard,
    SeatView,
    trick_points,
)
from .ahead import ahead_step, open_ahead, own_flow, take_ahead
from .claims import with_claims
from .events import (
    CardPlayed,
    GameOver,
    HandRecord,
    HandScored,
    HandStarted,
    PassReceived,
    TrickTaken,
)
from .exposure import exposure_steps, next_exposure
from .outcome import CheatError
from .replay import ReplayFault, replay_hand
from .rollcall import liar
from .state import MAX_REASON, GameState, Status, StepRule, nothing_to_send
from .steps import Step, StepId, StepKind
from .takeover import new_flow, show_table

__all__ = ["HAND_STEPS", "start_hand"]


def start_hand(s: GameState) -> None:
    assert s.game is not None and s.genesis is not None
    number = s.game.number + 1
    ahead = take_ahead(s, number)
    if ahead is not None:  # shuffled and locked during the last hand: the deal comes next
        s.flow = ahead.flow
        for player, table_seat in s.table.items():
            table_seat.flow = ahead.table[player]
        s.hand_msgs = ahead.msgs
    else:
        s.flow = own_flow(s, number)
        for table_seat in s.table.values():
            table_seat.flow = new_flow(s, table_seat, number)
        s.hand_msgs = []
    s.hand_actions = []
    s.plays = 0
    s.stopped = []
    s.unclaimed = 0
    _next_deck_step(s, number)


def _next_deck_step(s: GameState, number: int) -> None:
    assert s.flow is not None
    nxt = s.flow.next_step()
    if nxt is None:
        _start_play(s)
        return
    step, seats = nxt
    s.new_step(number, step, tuple(s.player_at[seat] for seat in seats))


# -- the deck's steps ----------------------------------------------------------------------


def _check_deck(s: GameState, player: int, body: dict[str, Any]) -> None:
    _to_decks(s, player, body)


def _to_decks(s: GameState, player: int, body: dict[str, Any]) -> DeckMessage:
    """Check a deck message with this peer's deck, then give it to the deck of every seat the
    table plays, which also computes from it (and keep it: a seat taken over later in the hand
    replays them). A step of the next deck goes to the next hand's decks."""
    kind, seat = s.step.kind, s.seat_of[player]
    ahead = s.step_ahead
    if ahead is not None:
        msg = ahead.flow.accept(kind, seat, body)
        for flow in ahead.table.values():
            flow.accept(kind, seat, body)
        ahead.msgs.append((kind, seat, body))
        return msg
    assert s.flow is not None
    msg = s.flow.accept(kind, seat, body)
    for table_seat in s.table.values():
        if table_seat.flow is not None:
            table_seat.flow.accept(kind, seat, body)
    s.hand_msgs.append((kind, seat, body))
    return msg


def _after_deck_step(s: GameState, done: Step) -> None:
    if s.ahead is not None and done.hand == s.ahead.number:
        _start_play(s)  # a step of the next deck, between two plays: play goes on
        return
    _next_deck_step(s, done.hand)


def _send_deck(s: GameState) -> dict[str, Any]:
    flow = s.step_flow
    assert flow is not None
    return flow.make(s.step.kind)


def _send_pass(s: GameState) -> dict[str, Any] | None:
    assert s.flow is not None
    picks = s.choices.get(str(s.step.hand))
    if picks is None:
        return None  # the seat has not chosen yet
    s.flow.choose_pass(picks)
    return s.flow.make(StepKind.PASS_COMMIT)


# -- checkpoints: after the deal and after the pass ----------------------------------------


def _check_alarm(s: GameState, player: int, body: dict[str, Any]) -> str:
    alarm = body.get("alarm") if set(body) == {"alarm"} else None
    if not isinstance(alarm, str) or len(alarm) > MAX_REASON:
        raise IllegalActionError(f"malformed {s.step.kind} checkpoint", s.seat_of[player])
    return alarm


def _send_alarm(s: GameState) -> dict[str, Any]:
    assert s.flow is not None
    return {"alarm": (s.flow.alarm or "")[:MAX_REASON]}


def _checkpoint(s: GameState, done: Step) -> None:
    """After the deal or the pass: stop the hand if any seat found its cards unsound."""
    assert s.flow is not None and s.game is not None
    alarms = [(p, r) for p in done.senders if isinstance(r := done.parsed[p], str) and r]
    if alarms:
        s.stopped = alarms
        for _, reason in alarms:
            s.flow.stop(reason)
            for table_seat in s.table.values():
                if table_seat.flow is not None:
                    table_seat.flow.stop(reason)
        s.new_step(done.hand, StepId(StepKind.REVEAL), s.everyone())
        return
    if done.kind is StepKind.DEALT:
        _deal_engine(s)
    else:
        _pass_engine(s)
    _next_deck_step(s, done.hand)


def _deal_engine(s: GameState) -> None:
    assert s.flow is not None and s.game is not None
    seat = s.my_seat
    hands: list[int | None] = [None] * s.players
    if seat is not None:
        hands[seat] = s.flow.my_hand()
    for player, table_seat in s.table.items():
        assert table_seat.flow is not None
        hands[s.seat_of[player]] = table_seat.flow.my_hand()  # open to every peer alike
    s.game.start_hand(hands)
    assert s.game.hand is not None
    if seat is not None and s.flow.params.passing:
        s.game.hand.private = 1 << seat  # judge others on public knowledge only (SPEC 6.6)
    show_table(s)
    if seat is not None:
        s.events.append(HandStarted(SeatView.of(s.game, seat)))


def _pass_engine(s: GameState) -> None:
    assert s.flow is not None and s.game is not None and s.game.hand is not None
    hand = s.game.hand
    seat = s.my_seat
    received = s.flow.received_cards() if seat is not None else ()
    for other in range(s.players):
        cards: tuple[int, ...] | None = None
        table_seat = s.table.get(s.player_at[other])
        if table_seat is not None:
            cards = tuple(table_seat.passes[hand.number])
        elif other == seat:
            cards = tuple(s.choices[str(hand.number)])
        elif (
            seat is not None and hand.pass_targets is not None and hand.pass_targets[other] == seat
        ):
            cards = tuple(received)
        s.game.apply(other, PassCards(None if cards is None else tuple(CARDS[c] for c in cards)))
    show_table(s)
    if seat is not None and received:
        targets = hand.pass_targets or []
        passer = next(p for p in range(s.players) if targets[p] == seat)
        cards_in = tuple(CARDS[c] for c in sorted(received))
        s.events.append(PassReceived(passer, cards_in, SeatView.of(s.game, seat)))


# -- play ----------------------------------------------------------------------------------


def _start_play(s: GameState) -> None:
    assert s.game is not None and s.game.hand is not None
    hand = s.game.hand
    if hand.phase is HandPhase.EXPOSE:
        next_exposure(s)
        return
    if hand.phase is not HandPhase.PLAYING:
        _after_tricks(s)
        return
    open_ahead(s)
    if ahead_step(s):  # after a play, a step of the next hand's deck (SPEC 6.3)
        return
    step = StepId(StepKind.OPEN, s.plays)
    if hand.turn is None:
        s.new_step(hand.number, step, s.everyone(), any_one=True)
    else:
        s.new_step(hand.number, step, (s.player_at[hand.turn],))


def _check_open(s: GameState, player: int, body: dict[str, Any]) -> int:
    assert s.flow is not None and s.game is not None and s.game.hand is not None
    seat = s.seat_of[player]
    sound = s.flow.public.anomaly is None
    opened = _to_decks(s, player, body)
    assert isinstance(opened, Open)
    card = opened.card
    if sound and s.flow.public.anomaly is not None:
        # A true proof of a card already played: a deck or a remix is false, and the rules
        # cannot judge this play. The hand stops here; the audit names who.
        s.hand_actions.append((seat, PlayCard(CARDS[card])))
        return card
    _apply_public(s.game.hand, seat, card)
    s.game.settle()
    s.hand_actions.append((seat, PlayCard(CARDS[card])))
    return card


def _apply_public(hand: HandState, seat: int, card: int) -> None:
    """Apply a play, refusing it only on what every peer can check alike.

    This peer also knows the cards it passed, which could refuse a renege at once, where
    another peer could not: judging on private knowledge would split the table's verdicts. Such
    a play goes through unchecked, and the end-of-hand replay, with every card known, names it.
    """
    try:
        hand.apply_play(seat, card)
    except IllegalActionError:
        if hand.is_known(seat):
            raise
        public = hand.clone()
        public.received = [r if hand.is_known(t) else 0 for t, r in enumerate(hand.received)]
        public.apply_play(seat, card)  # raises when the fault shows in public
        hand.play(seat, card)


def _after_open(s: GameState, done: Step) -> None:
    assert s.game is not None and s.game.hand is not None
    hand = s.game.hand
    player = done.senders[0]
    card = done.parsed[player]
    assert isinstance(card, int)
    s.plays += 1
    if s.my_seat is not None and s.views:
        view = SeatView.of(s.game, s.my_seat)
        s.events.append(CardPlayed(s.seat_of[player], CARDS[card], view))
        if not hand.trick and hand.tricks:
            last = hand.tricks[-1]
            plays = tuple((last.seat_of(i, hand.n), CARDS[c]) for i, c in enumerate(last.cards))
            points = trick_points(s.game.rules, mask_of(last.cards), hand.exposed)
            s.events.append(TrickTaken(last.winner, plays, points, view))
    if s.flow is not None and s.flow.phase is not DeckPhase.PLAY:
        _after_tricks(s)  # a card that is not what it claims: everyone reveals now
        return
    _start_play(s)


def _check_moon(s: GameState, player: int, body: dict[str, Any]) -> bool:
    assert s.game is not None
    seat = s.seat_of[player]
    add = body.get("add") if set(body) == {"add"} else None
    if not isinstance(add, bool):
        raise IllegalActionError("malformed moon choice", seat)
    s.game.apply(seat, ChooseMoon(add))
    s.hand_actions.append((seat, ChooseMoon(add)))
    return add


def _after_tricks(s: GameState, done: Step | None = None) -> None:
    assert s.game is not None and s.game.hand is not None
    hand = s.game.hand
    if hand.phase is HandPhase.MOON_CHOICE:
        assert hand.turn is not None
        s.new_step(hand.number, StepId(StepKind.MOON), (s.player_at[hand.turn],))
        return
    s.new_step(hand.number, StepId(StepKind.REVEAL), s.everyone())


# -- the end of a hand, and of the game ----------------------------------------------------


def _end_hand(s: GameState, done: Step) -> None:
    """Every seat has revealed: audit the deck, replay the hand with every card known."""
    assert s.game is not None and s.flow is not None
    number = done.hand
    # The reveals prove whatever the audit finds: a peer still waiting for some can judge.
    evidence = tuple(done.in_order())
    also = [t.flow for t in s.table.values() if t.flow is not None]
    try:
        truth = s.flow.audit(also)
    except DeckCheatError as e:
        raise CheatError(s.player_at[e.seat], f"hand {number}: {e.reason}", evidence) from None
    lie = liar(s, truth.held)
    if lie is not None:
        raise CheatError(lie[0], f"hand {number}: {lie[1]}", evidence)
    if s.stopped:
        player, alarm = s.stopped[0]
        why = f"hand {number}: stopped the hand ({alarm}) but the audit finds no fault"
        raise CheatError(player, why, evidence)
    live = s.game.hand
    if live is None or live.number != number or live.phase is not HandPhase.SCORED:
        seat = next(seat for seat, a in reversed(s.hand_actions) if isinstance(a, PlayCard))
        why = f"hand {number}: the card it opened is not what the deck holds"
        raise CheatError(s.player_at[seat], why, evidence)
    try:
        replay = replay_hand(s.game.rules, number, truth, s.hand_actions)
    except ReplayFault as e:
        raise CheatError(s.player_at[e.seat], str(e), evidence) from None
    totals = tuple(s.game.totals)
    s.events.append(HandRecord(number, truth.dealt, truth.passed, truth.held, replay, totals))
    assert live.result is not None
    if s.my_seat is not None:
        view = SeatView.of(s.game, s.my_seat)
        s.events.append(HandScored(live.number, live.result, totals, view))
    if s.game.over:
        s.ahead = None  # no next hand: its deck is never dealt
        s.new_step(live.number, StepId(StepKind.END), s.everyone())
    elif s.table:  # a seat the table plays may come back first (reclaim.py)
        s.new_step(live.number + 1, StepId(StepKind.SEATS), s.present())
    else:
        start_hand(s)


def _check_end(s: GameState, player: int, body: dict[str, Any]) -> None:
    assert s.game is not None
    if body != {"totals": list(s.game.totals)}:
        raise IllegalActionError("signed other final totals", s.seat_of[player])


def _send_end(s: GameState) -> dict[str, Any]:
    assert s.game is not None
    return {"totals": list(s.game.totals)}


def _finish(s: GameState, done: Step) -> None:
    assert s.game is not None and s.game.result is not None
    s.move_to(Status.FINISHED)
    s.events.append(GameOver(s.game.result, "", s.head.hex()))


_DECK = StepRule(_check_deck, _after_deck_step, _send_deck)
_CHECKPOINT = StepRule(_check_alarm, _checkpoint, _send_alarm)

HAND_STEPS: dict[StepKind, StepRule] = {
    StepKind.SHUFFLE: _DECK,
    StepKind.ECHO_SHUFFLE: _DECK,
    StepKind.LOCK: _DECK,
    StepKind.ECHO_LOCK: _DECK,
    StepKind.DEAL: _DECK,
    StepKind.DEALT: _CHECKPOINT,
    StepKind.PASS_COMMIT: StepRule(_check_deck, _after_deck_step, _send_pass),
    StepKind.PASS_REVEAL: _DECK,
    StepKind.PASSED: _CHECKPOINT,
    StepKind.REMIX: _DECK,
    StepKind.REMIX_SHARE: _DECK,
    StepKind.REMIX_ANSWER: _DECK,
    StepKind.OPEN: with_claims(
        StepRule(_check_open, _after_open, nothing_to_send), again=_start_play, then=_after_tricks
    ),
    StepKind.MOON: StepRule(_check_moon, _after_tricks, nothing_to_send),
    StepKind.REVEAL: StepRule(_check_deck, _end_hand, _send_deck),
    StepKind.END: StepRule(_check_end, _finish, _send_end),
    **exposure_steps(_start_play),
}
