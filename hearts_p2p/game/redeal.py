"""A voided hand and its re-deal: the seats whose secrets are lost are opened, the hand in play
counts for nothing, and the next hand is dealt among the rest (SPEC 6.14).

The round's votes go into the log where it was decided, in the middle of the step, as a
takeover's do; every peer and the audit reach the decision from them alone. The re-deal is the
next hand number: every key of a hand derives from its number, and the voided hand has already
published some of them (a deal's lock keys), so the same number would deal with keys others
know. Its dealer and pass direction are therefore the next hand's, as the rules give them.
"""

from __future__ import annotations

from ..engine import HandPhase
from .events import HandVoided, SeatTakenOver
from .handsteps import start_hand
from .keys import pass_public_key
from .state import GameState
from .steps import StepId, StepKind
from .tableseat import TableSeat
from .takeover import show_table
from .void import open_secret, second_seats, trouble, voters, votes_about

__all__ = ["MIN_LIVE", "open_seats"]

MIN_LIVE = 2  # fewer players left than this: the game ends on the totals so far
_NO_HAND = (StepKind.SEATS, StepKind.WELCOME, StepKind.END)  # no hand in play to void


def _ending(s: GameState, player: int) -> str:
    r = s.round
    assert r is not None
    endings = {v.envelope.body["ending"] for v in votes_about(r, player).values()}
    if player in s.left:
        return "left"
    return "gone" if "gone" in endings else "stalled"


def open_seats(s: GameState, seats: tuple[int, ...]) -> None:
    """Open ``seats`` (their secrets are lost), log the votes that decided it, void the hand in
    play and deal the next, or end the game if too few players are left."""
    assert s.genesis is not None and s.game is not None and s.round is not None
    r = s.round
    by = voters(s, r) if second_seats(s, r) else [p for p in s.present() if p != r.about]
    votes = [votes_about(r, t)[v] for t in trouble(s, r) for v in by]
    endings = {p: _ending(s, p) for p in seats}
    s.log_round(votes)
    s.round = None
    step, number = s.step, s.hand_now  # the hand in play, also in a step of the next deck
    names = tuple(s.genesis.players[p].name for p in seats)
    _open(s, seats, endings, names)
    if step.kind in _NO_HAND:
        show_table(s)
        return  # between hands, or the closing totals: the table computes their parts
    for v in by:  # a voter's numbers go on from its votes: its parts of the step are void
        s.next_seq[v] = max(m.envelope.seq for m in votes if m.envelope.sender == v)
    s.game.void_hand(number)
    at = tuple(s.seat_of[p] for p in seats)
    if len(s.present()) < MIN_LIVE:
        s.game.close()
        s.events.append(HandVoided(number, at, names, None))
        s.new_step(number, StepId(StepKind.END), s.everyone())
        return
    s.events.append(HandVoided(number, at, names, number + 1))
    start_hand(s)


def _open(
    s: GameState, seats: tuple[int, ...], endings: dict[int, str], names: tuple[str, ...]
) -> None:
    """The table takes each of ``seats`` over with its public stand-in secret, and says so."""
    assert s.game is not None
    step, number = s.step, s.hand_now
    hand = s.game.hand
    playing = hand is not None and hand.number == number and hand.phase is HandPhase.PLAYING
    trick = len(hand.tricks) + 1 if hand is not None and playing else None
    for p, name in zip(seats, names, strict=True):
        secret = open_secret(s.game_id, p)
        s.table[p] = TableSeat(p, secret, number, step.name, endings[p], open=True)
        s.dh[p] = pass_public_key(secret)
        if p == s.me:
            s.secret = secret  # its own peer, still there, follows the table's seat alike
        s.events.append(SeatTakenOver(s.seat_of[p], name, endings[p], number, trick))
