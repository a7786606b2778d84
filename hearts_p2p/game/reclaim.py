"""Coming back: a player whose seat the table plays takes it back at a hand boundary.

Its old game secret is public since the takeover, so it comes back with a fresh one: a signed
``reclaim`` carries that secret's pass key. While the table plays a seat, every hand ends with a
``seats`` step of the present players: each carries the reclaims it holds for the coming hand,
and shows the pass key of a fresh secret of its own. A reclaim is checked alike by every peer
from public data (the seat's roster key, the hand, its sequence number), so carrying one that
fails is a proven cheat, and one carried by any present player counts: no vote, nothing a
single peer can block by keeping quiet. A counted reclaim starts the re-key of every seated
player (``rekey.py``), after which the seat is a person's again, dealt normally.
"""

from __future__ import annotations

from typing import Any

from ..engine import IllegalActionError
from ..wire import (
    PROTOCOL_VERSION,
    Envelope,
    SignedMessage,
    WireError,
    decode_frame,
    encode_message,
    pack,
)
from .handsteps import start_hand
from .keys import pass_public_key, usable_pass_key
from .rekey import REKEY_STEPS, begin, fresh_secrets, returns_of_mine, seats_key
from .rekey import table_part as rekey_part
from .rekeying import Offer
from .sitdown import SIT, held_sits, next_hand
from .sitdown import carried as carried_sit
from .sitdown import counted as counted_sits
from .state import GameState, StepRule
from .steps import Step, StepKind

__all__ = [
    "BOUNDARY_STEPS",
    "MAX_RETURNS",
    "RECLAIM",
    "Offer",
    "fresh_secrets",
    "may_ask",
    "next_hand",
    "sign_offer",
    "table_part",
    "take_offer",
]

RECLAIM = "reclaim"
MAX_RETURNS = 2  # per seat and game: a peer that stalls, comes back and stalls again each hand
# would cost the table a timeout every hand; after this many returns the table keeps the seat


def may_ask(s: GameState) -> bool:
    """Whether this seat, which the table plays, needs a fresh secret to ask its seat back."""
    return len(fresh_secrets(s)) <= returns_of_mine(s) < MAX_RETURNS


def sign_offer(s: GameState) -> SignedMessage | None:
    """This seat's reclaim for the coming hand, when the table plays it and it has a fresh
    secret for it. Its number skips one: the seat may have signed a part the others never took
    under its next number before it was voted out."""
    fresh = fresh_secrets(s)
    if (
        s.identity is None
        or s.me not in s.table
        or len(fresh) <= returns_of_mine(s)
        or not _may_return(s, s.me)
    ):
        return None
    assert s.genesis is not None and s.me is not None
    body = {"dh": pass_public_key(fresh[returns_of_mine(s)])}
    seq = s.next_seq.get(s.me, 0) + 1
    env = Envelope(PROTOCOL_VERSION, s.game_id, next_hand(s), RECLAIM, s.me, seq, s.step.prev,
                   RECLAIM, body)  # fmt: skip
    msg = encode_message(s.identity, env)
    s.signed.add(msg.raw)
    return msg


def take_offer(s: GameState, msg: SignedMessage) -> None:
    """A reclaim (its signature checked): held for the coming hand's ``seats`` step, and passed
    on, if it is well formed for that hand; else dropped, its sender's word being over."""
    offer = _parse(s, msg, next_hand(s))
    if offer is None:
        return
    held = s.offers.get(offer.player)
    if held is None or (decode_frame(held).envelope.hand, held) > (msg.envelope.hand, msg.raw):
        s.offers[offer.player] = msg.raw  # the earliest, then the lowest: every peer alike
    if s.me is not None and s.me != offer.player:
        s.relays.append(msg)


def _parse(s: GameState, msg: SignedMessage, hand: int) -> Offer | None:
    """The reclaim checked against what every peer holds alike, or None. It is good from its
    hand on, and once: its number is the seat's next but one, which a return moves past."""
    env, body = msg.envelope, msg.envelope.body
    player = env.sender
    if s.genesis is None or player not in s.table or env.game_id != s.game_id:
        return None
    if (env.kind, env.step) != (RECLAIM, RECLAIM) or env.hand > hand or env.prev not in s.index:
        return None  # for a later hand, or bound to a log this peer does not hold
    if env.seq != s.next_seq.get(player, 0) + 1 or set(body) != {"dh"}:
        return None
    if not _may_return(s, player):
        return None  # it came back as often as a seat may
    dh = body["dh"]
    if not usable_pass_key(dh) or dh in {s.pass_key_of(p) for p in s.everyone()}:
        return None
    return Offer(player, env.seq, dh, msg.raw)


def _may_return(s: GameState, player: int) -> bool:
    """Whether ``player`` may still come back: it has fewer than ``MAX_RETURNS`` returns, and
    its seat is not open (void.py): a seat whose silence voided a hand could otherwise void any
    hand it is losing and be back for the next."""
    seat = s.table.get(player)
    return s.returns.get(player, 0) < MAX_RETURNS and not (seat is not None and seat.open)


def _carried(s: GameState, raw: object) -> Offer | None:
    """A reclaim frame inside a ``seats`` message: decoded, its signature checked, parsed."""
    if not isinstance(raw, bytes) or s.genesis is None:
        return None
    try:
        msg = decode_frame(raw)
    except WireError:
        return None
    if msg.envelope.kind == SIT:
        return carried_sit(s, raw)  # a newcomer's, signed by its own key (sitdown.py)
    player = msg.envelope.sender
    if not 0 <= player < s.players or msg.raw != pack([msg.envelope_bytes, msg.signature]):
        return None
    if msg.raw not in s.signed and not msg.verify(s.holder(player).key):
        return None
    return _parse(s, msg, s.step.hand)


# -- seats --------------------------------------------------------------------------------


def _check_seats(s: GameState, player: int, body: dict[str, Any]) -> object:
    if player in s.table:
        return None  # taken over in this step: it carries nothing and takes no fresh key
    seat = s.seat_of[player]
    items = body.get("reclaims") if set(body) == {"reclaims", "dh"} else None
    if not isinstance(items, list) or len(items) > len(s.table) or not usable_pass_key(body["dh"]):
        raise IllegalActionError("malformed seats message", seat)
    offers = [_carried(s, raw) for raw in items]
    if any(o is None for o in offers):
        raise IllegalActionError("carried a reclaim that is not valid for this hand", seat)
    checked = [o for o in offers if o is not None]
    players = [o.player for o in checked]
    if players != sorted(set(players)):
        raise IllegalActionError("carried reclaims not one per seat in player order", seat)
    return checked, body["dh"]


def _send_seats(s: GameState) -> dict[str, Any]:
    """The reclaims this peer holds for this hand, and its fresh key for a return. Saved
    before it is sent: restarted, the peer must send the same message, not one with the
    reclaims it happens to hold then."""
    saved = s.choices.get("seats")
    if isinstance(saved, dict) and saved.get("prev") == s.step.prev:
        return {"reclaims": list(saved["reclaims"]), "dh": seats_key(s)}
    held = [(p, raw) for p, raw in sorted(s.offers.items()) if _carried(s, raw) is not None]
    held = sorted(held + held_sits(s, {p for p, _ in held}))
    reclaims = [raw for _, raw in held]
    s.choices["seats"] = {"prev": s.step.prev, "reclaims": reclaims}
    return {"reclaims": reclaims, "dh": seats_key(s)}


def _after_seats(s: GameState, done: Step) -> None:
    """The lowest seat some present player carried a reclaim for comes back (its lowest frame,
    if it signed several), one seat per boundary: every seated player re-keys with it. With
    none, the hand begins."""
    counted: dict[int, Offer] = {}
    keys: dict[int, bytes] = {}
    sits: dict[int, list[Offer]] = {}
    for player in done.senders:
        parsed = done.parsed.get(player)
        if not isinstance(parsed, tuple) or player in s.table:
            continue  # taken over in this step, its part sent or not: it takes no fresh key
        offers, keys[player] = parsed
        sits[player] = [o for o in offers if o.newcomer is not None]
        for offer in offers:
            assert isinstance(offer, Offer)
            if offer.newcomer is not None:
                continue  # a newcomer's sit: counted by the table's rule below
            held = counted.get(offer.player)
            if held is None or offer.raw < held.raw:
                counted[offer.player] = offer
    s.offers = {}
    counted = {**counted_sits(s, sits), **counted}  # a seat's own player before a newcomer
    if not counted:
        start_hand(s)
        return
    begin(s, counted[min(counted)], keys, done.hand)


def table_part(s: GameState, player: int) -> dict[str, Any]:
    """A seat the table took over in one of these steps: it carries nothing, takes no fresh
    key, and the return waits if it was taken over after ``seats``."""
    if s.step.kind is StepKind.SEATS:
        return {"reclaims": []}
    return rekey_part(s)


BOUNDARY_STEPS: dict[StepKind, StepRule] = {
    StepKind.SEATS: StepRule(_check_seats, _after_seats, _send_seats),
    **REKEY_STEPS,
}
