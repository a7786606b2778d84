"""Seats whose game secret is lost: when a takeover cannot recover them.

A player's escrow needs the share of every other player (escrow.py), each sealed to that
holder's pass key. So when two seats are gone in one step, each one's secret needs the other's
share, which only the other could open: neither is ever recovered. The same holds later for a
seat whose escrow needs the share of a seat already lost. Such a seat is *open*: the table plays
it from a public stand-in secret that every peer derives alike, so its shuffles and locks add
nothing and its cards are known to all, as a taken-over seat's are. The hand in play cannot be
finished (their cards cannot be opened) nor checked (they cannot reveal): ``redeal.py`` voids
it and deals the next.

This module keeps the round's bookkeeping for the second seat: a vote about another seat than
the one the step's round is about, and when the votes alone say the seats are lost.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from ..wire import SignedMessage
from .abort import pair
from .escrow import open_entry
from .keys import pass_key
from .outcome import CheatError
from .state import GameState, Status
from .tableseat import Evidence, Round, RoundState

__all__ = [
    "MIN_VOTERS",
    "OPEN_TAG",
    "due",
    "holding",
    "lost",
    "missing",
    "muted",
    "open_secret",
    "owed",
    "promote",
    "take_other",
    "trouble",
    "voters",
    "votes_about",
]

OPEN_TAG = b"hearts-p2p/open-seat/v1"
# Seats in trouble together are lost only on the votes of at least this many others: so no
# peer alone, voting every other seat out at once, can void a hand.
MIN_VOTERS = 2


def open_secret(game_id: bytes, player: int) -> bytes:
    """``H(tag ‖ len(game_id) ‖ game_id ‖ player)``: the open seat's stand-in secret. It is
    public on purpose: the seat's deck is every peer's to compute, and its cards every peer's
    to see."""
    return hashlib.sha256(OPEN_TAG + bytes((len(game_id),)) + game_id + bytes((player,))).digest()


def trouble(r: Round) -> list[int]:
    """The seats the step's round is about: the first, and any voted on since."""
    return sorted({r.about, *r.others})


def voters(s: GameState, r: Round) -> list[int]:
    """The players who must vote on every seat in trouble: those present and not in trouble."""
    out = trouble(r)
    return [p for p in s.present() if p not in out]


def votes_about(r: Round, player: int) -> dict[int, SignedMessage]:
    return r.votes if player == r.about else r.others.get(player, {})


def missing(s: GameState, r: Round) -> list[int]:
    """The voters whose vote on some seat in trouble has not come."""
    out = trouble(r)
    return [v for v in voters(s, r) if any(v not in votes_about(r, t) for t in out)]


def lost(s: GameState, player: int) -> bool:
    """Whether ``player``'s secret cannot be recovered: a share of its escrow is sealed to an
    open seat's lost key. A box sealed to an open seat after it was opened (a re-key at a
    return, 6.13) is sealed to its public stand-in key, and every peer opens it."""
    for holder, seat in s.table.items():
        if holder == player or not seat.open:
            continue
        entry = s.escrow.get(player, {}).get(holder)
        key = pass_key(seat.secret)
        if (
            entry is None
            or open_entry(entry, s.game_id, player, holder, key, s.pass_key_of(holder)) is None
        ):
            return True
    return False


def take_other(
    s: GameState, r: Round, msg: SignedMessage, take: Callable[[bytes, int], Evidence]
) -> None:
    """A vote about a second seat in the step of ``r``, its body already checked: its evidence
    is judged as if it had come alone (``take``: a frame the seat owes in this step, its vote or
    share or part, shows it still there), then it is counted."""
    env = msg.envelope
    voter, about, evidence = env.sender, env.body["player"], env.body["evidence"]
    votes = r.others.setdefault(about, {})
    earlier = votes.get(voter)
    if earlier is not None:
        if earlier.envelope_bytes != msg.envelope_bytes:
            why = "sent two different takeover messages about one player for one step"
            raise CheatError(voter, why, pair(earlier, msg))
        return
    for raw in evidence:
        if isinstance(raw, bytes) and take(raw, about) is Evidence.PART:
            r.shown.add(about)
        if s.round is not r or s.status is not Status.RUNNING or s.step.prev != env.prev:
            return  # the evidence ended the round (a recovery it completed)
    votes[voter] = msg
    if voter != s.me:
        s.relays.append(msg)


def owed(s: GameState, player: int) -> SignedMessage | None:
    """What this peer holds of ``player``'s in the current step: its part, else a vote or share
    it signed in the step's round (a seat another seat's trouble holds up shows it is there by
    the votes it signed)."""
    part = s.step.got.get(player)
    r = s.round
    if part is not None or r is None or r.prev != s.step.prev:
        return part
    signed = [r.shares.get(player), r.votes.get(player)]
    signed += [votes.get(player) for _, votes in sorted(r.others.items())]
    return next((m for m in signed if m is not None), None)


def promote(s: GameState) -> Round | None:
    """The round's seat was shown there (a vote carried a frame it signed in the step) while
    exactly one other seat is in trouble and not shown there: the round turns to that seat,
    with the votes on it, and is decided as any round. So a false vote taken first at some
    peers holds nothing up."""
    r = s.round
    if r is None or r.prev != s.step.prev or r.state is not RoundState.VOTING or not r.carried:
        return None
    rest = [t for t in r.others if t not in r.shown]
    if len(rest) != 1:
        return None
    (about,) = rest
    turned = Round(about, r.prev, votes=r.others[about], left=about in s.left, early=r.early)
    s.round = turned
    return turned


def muted(s: GameState, msg: SignedMessage) -> bool:
    """Whether this peer, having voted on a second seat, takes that seat's frames of the step
    only as a vote's evidence: so no peer counts one the others decided without."""
    r, env = s.round, msg.envelope
    if r is None or r.prev != env.prev or s.me is None:
        return False
    return s.me in r.others.get(env.sender, {})


def holding(s: GameState) -> bool:
    """Whether this peer holds back its own part of the step: it has voted in a round that may
    yet void the hand (a second seat voted on, or a seat whose escrow may need a lost one's
    share). The void resumes each voter's numbers at its votes', so a part signed after them
    would share a number with its next message."""
    r = s.round
    if r is None or r.prev != s.step.prev or s.me is None or r.state is RoundState.PRESENT:
        return False
    if r.others and not r.shown:
        return True
    voted = s.me in r.votes or any(s.me in v for v in r.others.values())
    return voted and r.state is RoundState.VOTING and any(seat.open for seat in s.table.values())


def due(s: GameState) -> tuple[int, ...] | None:
    """The seats to open now, by the votes alone, which every peer holds alike: every seat in
    trouble once each voter has voted on each and no vote showed any still there; or the one
    seat the round has just agreed to take over, if its escrow needs a lost seat's share."""
    r = s.round
    if r is None or r.prev != s.step.prev or s.status is not Status.RUNNING:
        return None
    if not r.others:
        if r.state is RoundState.RECOVERING and lost(s, r.about):
            return (r.about,)
        return None
    if r.state is RoundState.PRESENT or r.carried or r.shown or missing(s, r):
        return None  # a seat answered (through a vote): the others' own claims end it (6.9)
    if len(voters(s, r)) < MIN_VOTERS:
        return None  # one peer's word alone could name every other seat gone
    return tuple(trouble(r))
