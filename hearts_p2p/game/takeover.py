"""Seat takeover: a seat whose player has left, gone or stalled is played by the table.

Two rounds, both inside the step the seat holds up, and neither using up a sequence number:
1. ``takeover`` votes. A survivor votes when it has itself seen the seat go (its leave came,
   or its own clock ran out on it); a survivor that holds the seat's part of the step answers
   at once with that part as evidence. When every survivor has voted, the round is decided by
   the votes alone, which every peer holds alike: the seat is taken over if the step waits on it
   and no vote carried its part; otherwise it changed nothing (a signed leave lets everyone vote
   at once, but takes over only in a step that waits on the seat). After voting, a peer takes
   the seat's part of that step only as a vote's evidence, and at a roll call any player's, so
   no peer completes the step with a part the others decided without.
2. ``recover`` shares. Each survivor shows its escrow share of the seat's game secret (the
   shares of seats taken over earlier every peer opens itself). A share not matching its
   commitment is its sender's proven cheat. The secret the shares give must be the seat's: its
   pass key is the roster's, and replaying the hand so far from it gives back every message the
   seat signed; otherwise the seat's own escrow is proven false.

Then the votes and the shares go into the log, and from there on every peer (and the audit)
computes the seat's messages itself: its deck from the recovered secret, its decisions by
``tablebot``. The seat's cards are then known to every peer alike.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards import CARDS, cards_of
from ..coinflip import HashStream
from ..deck import DeckCheatError, DeckError
from ..deck import Phase as DeckPhase
from ..engine import HandPhase
from ..wire import SignedMessage
from .abort import pair
from .claims import CLAIM_REASON
from .escrow import open_entry, recover, share_commitment
from .events import SeatTakenOver
from .handflow import HandFlow
from .keys import derive, pass_key, pass_public_key
from .outcome import CheatError
from .rollcall import awaits_holder, said, stop_reason
from .state import MAX_REASON, GameState, Status
from .steps import StepKind
from .tablebot import table_moon, table_pass, table_play
from .tableseat import Evidence, Round, RoundState, TableSeat
from .void import HERE, count, judged, owed, replaces, take_other

__all__ = [
    "ENDINGS",
    "KINDS",
    "MAX_LATER",
    "RECOVER",
    "VOTE",
    "able",
    "check_vote",
    "decide",
    "muted_part",
    "new_flow",
    "show_table",
    "survivors",
    "table_body",
    "take_share",
    "take_vote",
    "vote_body",
]

_EXPOSURES = (StepKind.EXPOSE, StepKind.EXPOSE_FOURTH)
# A hand is over, the next not dealt:
_BETWEEN_HANDS = (StepKind.SEATS, StepKind.REKEY, StepKind.WELCOME)

VOTE = "takeover"
RECOVER = "recover"
KINDS = frozenset({VOTE, RECOVER})
# The endings of an accusation: its sender's clock ran out on the seat, or it holds the seat's
# leave. A defence's is void.HERE: the sender holds the seat's part of the step or its vote.
ENDINGS = ("left", "gone", "stalled")
MAX_LATER = 32  # takeover messages kept for a step this peer has not reached yet


def able(s: GameState) -> bool:
    """Whether a seat can be taken over now: the seats are drawn (every escrow is in) and the
    game runs."""
    return s.status is Status.RUNNING and s.game is not None and len(s.escrow) == s.players


def survivors(s: GameState, about: int) -> list[int]:
    """The players who must vote on, and show their shares of, ``about``'s seat."""
    return [p for p in s.everyone() if p != about and p not in s.table]


def vote_body(s: GameState, about: int, ending: str) -> dict[str, Any]:
    """This peer's vote: what it holds of the seat in this step goes with it."""
    evidence = [s.left[about]] if about in s.left else []
    part = owed(s, about) or said(s).get(about)  # at a roll call, its nolead shows it there
    if part is not None:
        evidence.append(part.raw)
    return {"player": about, "ending": ending, "evidence": evidence}


def _name(s: GameState, player: int) -> str:
    """The seat's holder's name: a newcomer's once it took the seat (sitdown.py)."""
    return s.holder(player).name if s.genesis is not None else str(player)


def _parse(s: GameState, msg: SignedMessage, keys: tuple[str, ...]) -> dict[str, Any]:
    env = msg.envelope
    body = env.body
    about = body.get("player")
    if (
        tuple(body) != keys
        or not isinstance(about, int)
        or isinstance(about, bool)
        or not 0 <= about < s.players
    ):
        raise CheatError(env.sender, f"sent a malformed {env.kind} message", (msg,))
    return body


def _later(s: GameState, msg: SignedMessage) -> bool:
    """Keep a message of a step this peer has not reached; True if it is for another step."""
    prev = msg.envelope.prev
    if prev == s.step.prev:
        return False
    if prev not in s.steps and len(s.later) < MAX_LATER:
        s.later.append(msg)  # taken again when the step begins
    return True  # a step completed already: the round it was for is over


def check_vote(s: GameState, msg: SignedMessage) -> dict[str, Any]:
    """A vote's body, checked before anything else is made of it: a malformed vote is its
    sender's proven cheat at every peer, the one it names included."""
    env = msg.envelope
    body = _parse(s, msg, ("player", "ending", "evidence"))
    ending, evidence = body["ending"], body["evidence"]
    if ending not in (*ENDINGS, HERE) or not isinstance(evidence, list) or len(evidence) > 2:
        raise CheatError(env.sender, "sent a malformed takeover message", (msg,))
    return body


def take_vote(s: GameState, msg: SignedMessage, take: Callable[[bytes, int], Evidence]) -> None:
    """A survivor's vote, its body checked already (``check_vote``); ``take`` judges each
    evidence frame as if it had come alone, and says whether it is the seat's own signed
    leave."""
    env = msg.envelope
    about = env.body["player"]
    voter = env.sender
    if not able(s) or about == voter or about in s.table or voter in s.table:
        return
    if _later(s, msg):
        return
    r = s.round
    if r is None or r.prev != env.prev:
        r = s.round = Round(about, env.prev)
    if r.about != about:
        if r.state is not RoundState.PRESENT:
            take_other(s, r, msg, take)  # a second seat in trouble in one step (void.py)
        return
    if r.state is not RoundState.VOTING:
        return
    if not replaces(r.votes.get(voter), msg, "takeover messages for one step"):
        return
    seen = judged(msg, take, lambda: s.status is not Status.RUNNING or s.step.prev != env.prev)
    if seen is None:
        return  # the evidence completed the step: the round is over
    r.left |= Evidence.LEFT in seen
    r.carried |= bool(seen & {Evidence.PART, Evidence.ANSWER})
    count(s, r, r.votes, msg, seen)
    decide(s, r)


def decide(s: GameState, r: Round) -> None:
    """Once every survivor has voted, the round is decided by the votes alone: the seat's own
    peer, back, holds its part but may not count it unless a vote carried it.

    Only a step that waits on the seat takes it over, even when a vote shows its signed leave:
    a step that does not wait on it completes as soon as its parts are in, at some peers before
    the round's last share and at others after it, and the latter would log a round the former
    dropped. A step that waits on the seat completes nowhere until the round is decided.

    At a roll call (a first lead by 2♣'s unknown holder, Gong Zhu's fourth exposure) every
    peer awaits the seat, the holder too, until a vote carries its ``nolead`` or the step's
    part; and a voter takes no part of that step but as a vote's evidence (``muted_part``), so
    the holder's lead cannot complete the step at one peer while another recovers the seat."""
    if r.state is RoundState.VOTING and set(survivors(s, r.about)) <= set(r.votes):
        step = s.step
        expected = awaits_holder(s) or r.about in step.senders
        r.state = RoundState.RECOVERING if expected and not r.carried else RoundState.PRESENT


def muted_part(s: GameState, msg: SignedMessage) -> bool:
    """Whether this peer takes ``msg``, a message of the current step, only as a vote's
    evidence: it has voted in the step's open round, and ``msg`` is the round's seat's, or any
    player's part of a roll call (its lead: a holder that voted could otherwise lead to one peer
    and show its share to another, which would recover the seat mid-step while the first
    completed the step)."""
    r = s.round
    env = msg.envelope
    if r is None or r.prev != env.prev or s.me not in r.votes:
        return False
    if r.state is RoundState.PRESENT:
        return False  # decided there: every part of the step is the step's
    if r.about == env.sender:
        return True
    return r.prev == s.step.prev and awaits_holder(s) and env.step == s.step.name


def take_share(s: GameState, msg: SignedMessage) -> TableSeat | None:
    """A survivor's escrow share; the seat, recovered, once every share is in."""
    env = msg.envelope
    body = _parse(s, msg, ("player", "share"))
    about, share, holder = body["player"], body["share"], env.sender
    entry = s.escrow.get(about, {}).get(holder)
    if entry is None or not isinstance(share, bytes):
        raise CheatError(holder, "sent a malformed recover message", (msg,))
    if share_commitment(s.game_id, about, holder, share) != entry.commitment:
        why = f"showed a false escrow share of {_name(s, about)}'s secret"
        raise CheatError(holder, why, (msg,))
    if not able(s) or _later(s, msg):
        return None
    r = s.round
    if r is None or r.prev != env.prev or r.about != about or r.state is not RoundState.RECOVERING:
        if r is not None and r.prev == env.prev and len(r.early) < s.players:
            r.early.append(msg)  # a round another peer decided first (void.promote): kept
        return None
    earlier = r.shares.get(holder)
    if earlier is not None:
        if earlier.envelope_bytes != msg.envelope_bytes:
            why = "sent two different recover messages for one step"
            raise CheatError(holder, why, pair(earlier, msg))
        return None
    r.shares[holder] = msg
    if holder != s.me:
        s.relays.append(msg)
    if not set(survivors(s, about)) <= set(r.shares):
        return None
    return _recover(s, r)


def _recover(s: GameState, r: Round) -> TableSeat:
    """Every share is in: rebuild the seat's secret, check it against everything public, log
    the round, and seat the table in its place."""
    assert s.genesis is not None
    about = r.about
    votes = [r.votes[p] for p in sorted(r.votes)]
    shown = [r.shares[p] for p in sorted(r.shares)]
    evidence = (*votes, *shown)
    shares = []
    for holder in (p for p in s.everyone() if p != about):
        if holder in r.shares:
            shares.append(r.shares[holder].envelope.body["share"])
            continue
        gone = s.table[holder]  # a seat taken over before: every peer opens its box itself
        entry = s.escrow[about][holder]
        dh = s.pass_key_of(holder)
        share = open_entry(entry, s.game_id, about, holder, pass_key(gone.secret), dh)
        if share is None:
            why = f"sealed a bad escrow share to {_name(s, holder)}"
            raise CheatError(about, why, evidence)
        shares.append(share)
    secret = recover(shares)
    if pass_public_key(secret) != s.pass_key_of(about):
        raise CheatError(about, "its escrow does not give back its game secret", evidence)
    endings = {v.envelope.body["ending"] for v in votes}
    ending = "left" if r.left else "gone" if "gone" in endings else "stalled"
    seat = TableSeat(about, secret, s.hand_now, s.step.name, ending)
    trick = _trick(s)
    try:
        if s.flow is not None and s.step.kind not in _BETWEEN_HANDS:  # else the next deals it
            seat.flow = _replay(s, seat, s.flow.params.hand_number, s.hand_msgs)
        if s.ahead is not None:  # the next hand's deck, shuffled during this one
            s.ahead.table[about] = _replay(s, seat, s.ahead.number, s.ahead.msgs)
    except (DeckError, DeckCheatError) as e:
        why = f"its messages do not come from its escrowed game secret ({e})"
        raise CheatError(about, why[:MAX_REASON], evidence) from None
    s.log_round(evidence)
    s.table[about] = seat
    s.round = None
    seat_no = s.seat_of[about]
    s.events.append(SeatTakenOver(seat_no, _name(s, about), ending, s.hand_now, trick))
    show_table(s)
    return seat


def _trick(s: GameState) -> int | None:
    """The trick in play, counted from 1; None before the first lead of the hand."""
    hand = s.game.hand if s.game is not None else None
    if hand is None or hand.phase is not HandPhase.PLAYING:
        return None
    return len(hand.tricks) + 1


def new_flow(s: GameState, seat: TableSeat, number: int) -> HandFlow:
    """The deck of hand ``number`` as the taken-over seat runs it, from its secret."""
    assert s.genesis is not None
    pass_keys = [s.pass_key_of(p) for p in s.player_at]
    rng = HashStream(derive(seat.secret, s.hand_label(number)))
    key = pass_key(seat.secret)
    return HandFlow(
        s.genesis.rules,
        s.game_id,
        number,
        pass_keys,
        s.seat_of[seat.player],
        rng,
        key,
        s.genesis.proof_rounds,
    )


def _replay(
    s: GameState, seat: TableSeat, number: int, msgs: list[tuple[StepKind, int, dict[str, Any]]]
) -> HandFlow:
    """The seat's deck for hand ``number``, fed every message of that deck so far: each one
    the seat signed must be exactly what its secret gives."""
    flow = new_flow(s, seat, number)
    mine = s.seat_of[seat.player]
    for kind, at, body in msgs:
        if at == mine and kind is StepKind.PASS_COMMIT:
            assert flow.deck is not None
            digest = body.get("digest")
            cards = flow.deck.find_pass(digest) if isinstance(digest, bytes) else None
            if cards is None:
                raise DeckError("its pass commitment is not one its secret gives")
            seat.passes[number] = cards
            flow.choose_pass(cards)
        flow.accept(kind, at, body)
    return flow


def show_table(s: GameState) -> None:
    """Make every taken-over seat's cards known to this peer's engine, as they are to all."""
    hand = s.game.hand if s.game is not None else None
    if hand is None:
        return
    for seat in s.table.values():
        deck = seat.flow.deck if seat.flow is not None else None
        if deck is None or seat.flow is None or seat.flow.params.hand_number != hand.number:
            continue
        if hand.phase is HandPhase.SCORED or not deck.dealt:
            continue
        at = s.seat_of[seat.player]
        hand.hands[at] = deck.dealt if hand.phase is HandPhase.PASSING else deck.hand
        hand.known |= 1 << at
        first_lead = hand.phase is HandPhase.PLAYING and hand.turn is None and not hand.trick
        if first_lead and hand.hands[at] >> CARDS[0] & 1:
            hand.turn = hand.first_leader = at  # the table's seat holds 2♣: it leads
        fourth = hand.phase is HandPhase.EXPOSE and hand.forced and hand.turn is None
        if fourth and hand.hands[at] & hand.forced:
            hand.turn = at  # it holds the fourth exposable card (逼明): it shows it


def table_body(s: GameState, player: int) -> dict[str, Any] | None:
    """The taken-over seat's message for the current step, as every peer computes it; None
    when it has none (a first lead it cannot make)."""
    assert s.game is not None
    seat = s.table[player]
    kind, at = s.step.kind, s.seat_of[player]
    hand = s.game.hand
    if kind is StepKind.END:
        return {"totals": list(s.game.totals)}
    ahead = s.step_ahead
    flow = ahead.table[player] if ahead is not None else seat.flow
    assert flow is not None
    if kind in (StepKind.DEALT, StepKind.PASSED):
        return {"alarm": (flow.alarm or "")[:MAX_REASON]}
    decided = (StepKind.PASS_COMMIT, StepKind.OPEN, StepKind.MOON, *_EXPOSURES)
    if kind is StepKind.REVEAL and flow.phase is DeckPhase.PLAY:
        # A hand stopped before its last card (a claim, a first lead nobody made): the seat
        # reveals as every seat did, its deck rebuilt since, without the stop.
        flow.stop(stop_reason(s) if s.unclaimed else CLAIM_REASON)
    if kind not in decided:
        return flow.make(kind)  # the deck's steps: shuffle, echoes, lock, deal, reveal
    assert hand is not None
    if kind in _EXPOSURES:
        # Gong Zhu: the table exposes no more than it must (the smallest exposure allowed).
        options = hand.legal_exposures(at)
        return (
            {"cards": flow.make_shows([int(c) for c in cards_of(options[0])])} if options else None
        )
    if kind is StepKind.PASS_COMMIT:
        cards = seat.passes.setdefault(hand.number, table_pass(hand, at))
        flow.choose_pass(cards)
        return flow.make(kind)
    if kind is StepKind.OPEN:
        card = table_play(hand, at)
        return None if card is None else flow.make_open(card)
    return {"add": table_moon(hand, at)}
