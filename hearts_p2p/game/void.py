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
from .rollcall import awaits_holder
from .state import GameState, Status
from .tableseat import Evidence, Round, RoundState

HERE = "here"  # the ending of a defence (``defence``)

__all__ = [
    "HERE",
    "MIN_VOTERS",
    "OPEN_TAG",
    "count",
    "defence",
    "due",
    "holding",
    "judged",
    "lost",
    "missing",
    "muted",
    "open_secret",
    "owed",
    "pending",
    "promote",
    "replaces",
    "second_seats",
    "shown",
    "silenced",
    "stand",
    "take_other",
    "there",
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


def trouble(s: GameState, r: Round) -> list[int]:
    """The seats the step's round is about: the first, and any voted on since, but for one
    that only seats every voter has accused accuse: their word counts for nothing
    (``silenced``), and a peer that voids the hand before such a vote comes must reach the
    same seats as one that has it."""
    named = {r.about, *r.others}
    quiet = _silenced(s, r, named)
    out = {r.about}
    for t in named - {r.about}:
        accusers = {v for v, m in r.others[t].items() if not defence(m)}
        if accusers and accusers <= quiet:
            continue
        if _voter(r, t, named, quiet):
            continue
        out.add(t)
    return sorted(out)


def _voter(r: Round, t: int, named: set[int], quiet: set[int]) -> bool:
    """Whether ``t``, a second seat accused, is a voter after all: a defence from a seat not
    ``quiet`` stands for it (it is there) and it has itself accused every other seat named.
    One liar's word on a present player then holds no void of the seats that are gone
    (before, the void waited for that player's defenders to accuse it, which they never
    would)."""
    said = r.shown.get(t, set()) | r.defences.get(t, set())
    if not said - quiet:
        return False
    for other in named - {t}:
        mine = votes_about(r, other).get(t)
        if mine is None or defence(mine):
            return False
    return True


def second_seats(s: GameState, r: Round) -> list[int]:
    """The seats in trouble other than the round's own."""
    return [t for t in trouble(s, r) if t != r.about]


def voters(s: GameState, r: Round) -> list[int]:
    """The players who must vote on every seat in trouble: those present and not in trouble."""
    out = trouble(s, r)
    return [p for p in s.present() if p not in out]


def votes_about(r: Round, player: int) -> dict[int, SignedMessage]:
    return r.votes if player == r.about else r.others.get(player, {})


def missing(s: GameState, r: Round) -> list[int]:
    """The voters whose vote on some seat in trouble has not come."""
    out = trouble(s, r)
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
    is judged as if it had come alone (``take``), then it is counted: a vote or share the seat
    signed in the step shows it alive in the round, and a defence carrying one, or its part,
    stands for it until its sender accuses it (``there``)."""
    env = msg.envelope
    voter, about = env.sender, env.body["player"]
    votes = r.others.setdefault(about, {})
    if not replaces(votes.get(voter), msg, "takeover messages about one player for one step"):
        return

    def over() -> bool:
        return s.round is not r or s.status is not Status.RUNNING or s.step.prev != env.prev

    seen = judged(msg, take, over)
    if seen is None:
        return  # the evidence ended the round (a recovery it completed)
    count(s, r, votes, msg, seen)


def judged(
    msg: SignedMessage, take: Callable[[bytes, int], Evidence], over: Callable[[], bool]
) -> set[Evidence] | None:
    """What a vote's evidence frames are, each judged as if it had come alone (``take``), in
    order; None if one of them ended the round (``over``)."""
    about = msg.envelope.body["player"]
    seen: set[Evidence] = set()
    for raw in msg.envelope.body["evidence"]:
        seen.add(take(raw, about) if isinstance(raw, bytes) else Evidence.NOTHING)
        if over():
            return None
    return seen


def count(
    s: GameState, r: Round, votes: dict[int, SignedMessage], msg: SignedMessage, seen: set[Evidence]
) -> None:
    """Count a vote whose evidence is ``seen`` among ``votes`` (the round's own, or a second
    seat's): a frame the seat signed in the step shows it alive in the round, and a defence
    carrying that or its part stands for it (``there``); then relay it."""
    voter, about = msg.envelope.sender, msg.envelope.body["player"]
    if Evidence.ANSWER in seen:
        r.shown.setdefault(about, set()).add(voter)
    votes[voter] = msg
    stand(r, about, voter, defence(msg) and bool(seen & {Evidence.PART, Evidence.ANSWER}))
    if voter != s.me:
        s.relays.append(msg)


def defence(msg: SignedMessage) -> bool:
    """Whether a takeover vote is a defence (ending ``here``): its sender answers another's vote
    at once with what it holds of the seat. Any other vote accuses: its sender's own clock ran
    out on the seat, or it holds the seat's leave."""
    return msg.envelope.body.get("ending") == HERE


def replaces(earlier: SignedMessage | None, msg: SignedMessage, what: str) -> bool:
    """Whether a sender's vote about one seat in one step counts over its ``earlier`` one: a
    first vote does, and an accusation after its sender's defence (the seat, there when it
    answered, then went: its own clock ran out on it since). A defence after an accusation
    counts for nothing, so the order votes come in changes nothing. Two different defences, or
    two different accusations, are equivocation."""
    if earlier is None:
        return True
    if defence(earlier) and not defence(msg):
        return True
    if defence(earlier) == defence(msg) and earlier.envelope_bytes != msg.envelope_bytes:
        raise CheatError(msg.envelope.sender, f"sent two different {what}", pair(earlier, msg))
    return False


def stand(r: Round, about: int, voter: int, defends: bool) -> None:
    """Record whether ``voter``'s vote on ``about`` now stands as a defence of it (one that
    carried the seat's part or a frame it signed in the step)."""
    held = r.defences.setdefault(about, set())
    if defends:
        held.add(voter)
    else:
        held.discard(voter)


def silenced(s: GameState, r: Round) -> set[int]:
    """The seats in trouble that every voter has accused, when there are voters enough to
    void a hand: what such a seat says of another counts for nothing. The voters decide on
    their own votes, which every peer holds alike before it decides; a late defence by a
    seat they all gave up on may reach one peer before it decides and another after."""
    return _silenced(s, r, set(trouble(s, r)))


def _silenced(s: GameState, r: Round, seats: set[int]) -> set[int]:
    """``silenced``, with ``seats`` in trouble."""
    vs = [p for p in s.present() if p not in seats]
    if len(vs) < MIN_VOTERS:
        return set()
    out = set()
    for t in seats:
        votes = votes_about(r, t)
        if all(v in votes and not defence(votes[v]) for v in vs):
            out.add(t)
    return out


def shown(s: GameState, r: Round, player: int) -> bool:
    """Whether a counting vote carried a vote or share ``player`` signed in the round."""
    return bool(r.shown.get(player, set()) - silenced(s, r))


def there(s: GameState, r: Round, player: int) -> bool:
    """Whether the votes show ``player`` there in the step: one carried a vote or share it
    signed, or a defence of it stands, from a sender not ``silenced``. A seat that sent its
    part and then went is defended only until its defenders' own clocks run out on it: it
    still owes the round its vote."""
    said = r.shown.get(player, set()) | r.defences.get(player, set())
    return bool(said - silenced(s, r))


def pending(s: GameState, r: Round) -> bool:
    """Whether the seats in trouble may still be lost in this step: there are voters enough,
    and a vote is still to come or a seat is there only by defences, which their senders'
    clocks may yet turn into accusations. Otherwise no void can come, and a peer whose clock
    runs out again ends the step on its own claim (6.9). A round decided present (its seat's
    part was carried) voids nothing either (``due``)."""
    if r.state is RoundState.PRESENT:
        return False
    # A voter that ended the game on its own word will vote no more: nothing waits for it.
    if len([v for v in voters(s, r) if v not in s.ended]) < MIN_VOTERS:
        return False
    if any(v not in s.ended for v in missing(s, r)):
        return True
    out = trouble(s, r)
    return not any(shown(s, r, t) for t in out) and any(there(s, r, t) for t in out)


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
    """The round's seat is there (``there``) while exactly one other seat is in trouble and not
    there: the round turns to that seat, with the votes on it, and is decided as any round; the
    first seat stays in trouble, with its votes, should its defenders accuse it after all. So
    a false vote taken first at some peers holds nothing up."""
    r = s.round
    if r is None or r.prev != s.step.prev or r.state is not RoundState.VOTING:
        return None
    if not there(s, r, r.about):
        return None
    rest = [t for t in second_seats(s, r) if not there(s, r, t)]
    if len(rest) != 1:
        return None
    (about,) = rest
    others = {t: votes for t, votes in r.others.items() if t != about}
    others[r.about] = r.votes
    turned = Round(
        about, r.prev, votes=r.others[about], left=about in s.left, others=others,
        shown={t: set(v) for t, v in r.shown.items()},
        defences={t: set(v) for t, v in r.defences.items()}, early=r.early, muted=r.muted,
    )  # fmt: skip
    s.round = turned
    return turned


def muted(s: GameState, msg: SignedMessage) -> bool:
    """Whether this peer, having voted on a second seat, takes that seat's frames of the step
    only as a vote's evidence: so no peer counts one the others decided without."""
    r, env = s.round, msg.envelope
    if r is None or r.prev != env.prev or s.me is None or r.state is RoundState.PRESENT:
        return False  # decided there: the seats' parts are the step's (takeover.muted_part)
    return s.me in r.others.get(env.sender, {})


def holding(s: GameState) -> bool:
    """Whether this peer holds back its own part of the step: it has voted in a round that may
    yet void the hand (a second seat voted on, or a seat whose escrow may need a lost one's
    share). The void resumes each voter's numbers at its votes', so a part signed after them
    would share a number with its next message. At a roll call, a voter's lead would count only
    as evidence until the round is decided: it waits for that too."""
    r = s.round
    if r is None or r.prev != s.step.prev or s.me is None or r.state is RoundState.PRESENT:
        return False
    if second_seats(s, r) and len(voters(s, r)) < MIN_VOTERS:
        return False  # no void can come: one voter's word alone voids nothing (``due``)
    if s.me in trouble(s, r) and not awaits_holder(s):
        # A seat in trouble shows it is there by its part, and a void opens it whatever it
        # sent: it holds nothing back (held, it was named as the staller it was not).
        return False
    if second_seats(s, r) and not any(shown(s, r, t) for t in trouble(s, r)):
        return True
    voted = s.me in r.votes or any(s.me in v for v in r.others.values())
    if voted and awaits_holder(s):
        return True  # a roll call: its part would count only as a vote's evidence (muted_part)
    return voted and r.state is RoundState.VOTING and any(seat.open for seat in s.table.values())


def due(s: GameState) -> tuple[int, ...] | None:
    """The seats to open now, by the votes alone, which every peer holds alike: every seat in
    trouble once each voter has voted on each and no vote showed any still there; or the one
    seat the round has just agreed to take over, if its escrow needs a lost seat's share."""
    r = s.round
    if r is None or r.prev != s.step.prev or s.status is not Status.RUNNING:
        return None
    if not second_seats(s, r):
        if r.state is RoundState.RECOVERING and lost(s, r.about):
            return (r.about,)
        return None
    if r.state is RoundState.PRESENT or missing(s, r) or any(there(s, r, t) for t in trouble(s, r)):
        return None  # a seat answered (through a vote): the others' own claims end it (6.9)
    if len(voters(s, r)) < MIN_VOTERS:
        return None  # one peer's word alone could name every other seat gone
    return tuple(trouble(s, r))
