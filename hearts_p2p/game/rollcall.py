"""The first lead's roll call: who holds the lead card, when its holder does not lead.

With the deal private no peer knows who holds 2♣, so the first lead waits on every player and a
stall there would name nobody: a holder that stays connected and never leads (its process
frozen while its kernel still answers, or hostile) would hold the table up for ever. So once a
peer's clock runs out on the first lead, its seat, if it does not hold the card, signs
``nolead``: its software's word, outside the log and using up no number, like a takeover vote.
The players still awaited are those without one; when a single player is left, it is the holder,
and each peer's clock names it as it names any staller, so the table takes its seat over and
leads the card for it. An honest game's log is as before: a ``nolead`` is never logged, and one
that comes after the lead is dropped.

Gong Zhu's 逼明 asks the same of the fourth exposable card (``expose_fourth``): only its holder
knows it is its own, so that step has the same roll call, and a holder that says ``nolead`` to
it is named the same way.

Every peer runs the roll call alike, whatever it knows: a seat that passed 2♣ knows who holds
it, as does the holder, but the others do not, and a clock that named the holder on what one
peer alone knows would find nobody to join its vote. So at the first lead every peer awaits the
players that have not said ``nolead``, and a peer whose seat cannot lead says it. A seat the
table plays is never awaited there: every peer knows its cards, and if it held 2♣ the table
would have led it already.

A holder that lies, signing ``nolead`` too, leaves every player saying the card is not its. Then
the ``nolead``s are the step's parts, logged in sender order and numbered from there on (each
peer that holds them all completes the step alike), and the hand stops as after a claim: every
seat reveals, and the end-of-hand audit names the seat that held 2♣ (``liar``). A liar that
also sends its lead signed two messages for one step: proven as any such pair.
"""

from __future__ import annotations

from ..cards import CLUB_2, cards_of
from ..wire import SignedMessage
from .state import GameState, Status
from .steps import Step, StepId, StepKind

__all__ = [
    "MAX_EARLY",
    "NOLEAD",
    "NOLEAD_REASON",
    "NoLead",
    "awaits_holder",
    "complete",
    "early",
    "everyone_said",
    "lead_awaited",
    "liar",
    "may_sign",
    "no_lead",
    "nobody_made",
    "roll_call_step",
    "said",
    "sign_nolead",
    "stop_reason",
    "take_nolead",
]

NOLEAD = "nolead"
MAX_EARLY = 16  # noleads kept for a step this peer has not reached yet
NOLEAD_REASON = "nobody led 2♣"  # what each seat's reveal says after a roll call with no holder


class NoLead:
    """A ``nolead`` taken as a part of the first lead, once every player has said one."""


def awaits_holder(s: GameState) -> bool:
    """Whether this peer waits on a step only one card's holder makes: a hand's first play,
    by the holder of 2♣, or Gong Zhu's fourth exposure, by the fourth card's. The step is one
    any player may complete where this peer does not know the holder, the holder's where it
    does; a stall there names no one before the roll call leaves one player."""
    step = s.step
    if step.complete or s.game is None or s.game.hand is None:
        return False
    hand = s.game.hand
    if step.kind is StepKind.EXPOSE_FOURTH:
        return True
    if step.kind is not StepKind.OPEN or hand.tricks or hand.trick:
        return False
    return step.any_one or bool(s.game.rules.deck_mask >> CLUB_2 & 1)


def roll_call_step(s: GameState, name: str) -> bool:
    """Whether a step named ``name`` of the current game is one the roll call runs at: a hand's
    first play where 2♣ leads it (4 players), or Gong Zhu's fourth exposure. Known from the
    name and the rules alone, so a peer can tell it of a step it completed."""
    if s.game is None:
        return False
    if name == str(StepId(StepKind.EXPOSE_FOURTH)):
        return True
    return name == str(StepId(StepKind.OPEN, 0)) and bool(s.game.rules.deck_mask >> CLUB_2 & 1)


def _card(s: GameState) -> int:
    """The card whose holder the current roll call's step awaits."""
    assert s.game is not None and s.game.hand is not None
    if s.step.kind is StepKind.EXPOSE_FOURTH:
        return s.game.hand.forced.bit_length() - 1
    return int(CLUB_2)


def _holds(s: GameState, seat: int) -> bool:
    """Whether this peer's own ``seat`` holds the card (may lead, for the first lead)."""
    assert s.game is not None and s.game.hand is not None
    if s.step.kind is StepKind.EXPOSE_FOURTH:
        return bool(s.game.hand.hands[seat] >> _card(s) & 1)
    return s.game.may_act(seat)


def said(s: GameState) -> dict[int, SignedMessage]:
    """The ``nolead``s taken for the current step, by player (none for any other step)."""
    return s.rolled if s.rolled_prev == s.step.prev else {}


def may_sign(s: GameState) -> bool:
    """Whether this seat signs its ``nolead`` now: the first lead waits, and it cannot lead."""
    if s.status is not Status.RUNNING or s.me is None or s.silent or not awaits_holder(s):
        return False
    if s.me in s.table or s.game is None:
        return False
    if s.me in said(s):
        return False
    seat = s.my_seat
    return seat is not None and not _holds(s, seat)


def sign_nolead(s: GameState) -> SignedMessage:
    """This seat's ``nolead`` for the current step (its bytes the same if signed again)."""
    return s.sign(NOLEAD, NOLEAD, {}, s.step.prev)


def take_nolead(s: GameState, msg: SignedMessage) -> bool:
    """Record a ``nolead`` for the first lead this peer waits on; False (dropped) for one of
    another step, one that came after the lead, or a malformed one."""
    env = msg.envelope
    if env.body or env.step != NOLEAD or env.prev != s.step.prev or not awaits_holder(s):
        return False
    if env.sender not in s.present() or env.sender in s.step.got:
        return False
    if s.rolled_prev != env.prev:
        s.rolled_prev, s.rolled = env.prev, {}
    s.rolled[env.sender] = msg
    return True


def early(s: GameState, msg: SignedMessage) -> bool:
    """Whether ``msg`` is for a step this peer has not reached: kept (a few) to be taken there,
    since each peer relays a nolead once, when it takes it."""
    prev = msg.envelope.prev
    if prev == s.step.prev or s.index.get(prev) is not None:
        return False
    if len(s.later) < MAX_EARLY:
        s.later.append(msg)
    return True


def lead_awaited(s: GameState, waiting: list[int]) -> list[int]:
    """The players the first lead still waits on: those whose seats the table does not play
    that have not said the card is not theirs (all of them before anyone has), alike at every
    peer, whether or not it knows the holder."""
    if not awaits_holder(s):
        return waiting
    told = said(s)
    return [p for p in s.present() if p not in told]


def everyone_said(s: GameState) -> bool:
    """Whether every player awaited at the first lead has said the card is not its: one lied,
    and the step completes with these as its parts."""
    return awaits_holder(s) and set(s.present()) <= set(said(s))


def complete(s: GameState, step: Step) -> None:
    """Make the ``nolead``s the step's parts, each numbered as a message of its sender's: the
    step's senders are then the players that said one, at every peer alike."""
    s.unclaimed = 1 << _card(s)
    step.senders = s.present()
    for player in step.senders:
        msg = s.rolled[player]
        step.got[player] = msg
        step.parsed[player] = NoLead()
        s.next_seq[player] = max(s.next_seq.get(player, 0), msg.envelope.seq + 1)


def stop_reason(s: GameState) -> str:
    """What each seat's deck says when a roll call stopped the hand: nobody led 2♣, or nobody
    showed the fourth card."""
    card = cards_of(s.unclaimed)[0]
    return NOLEAD_REASON if card == CLUB_2 else f"nobody showed {card}"


def nobody_made(done: Step) -> bool:
    """Whether ``done`` was completed by the roll call: its parts are ``nolead``s."""
    return isinstance(done.parsed.get(done.senders[0]), NoLead)


def no_lead(s: GameState, done: Step) -> None:
    """Nobody made the step, whatever its kind: stop the hand, so that every seat reveals and
    the audit finds the card's holder."""
    assert s.flow is not None
    s.flow.stop(stop_reason(s))
    s.new_step(done.hand, StepId(StepKind.REVEAL), s.everyone())


def liar(s: GameState, held: tuple[int, ...]) -> tuple[int, str] | None:
    """The player that said the card was not its while its hand, as the reveals show it, held
    it; and the reason that names it."""
    if not s.unclaimed:
        return None
    seat = next((seat for seat, mask in enumerate(held) if mask & s.unclaimed), None)
    if seat is None:
        return None
    return s.player_at[seat], f"said it did not hold {cards_of(s.unclaimed)[0]}, and held it"
