"""Coming back: a player whose seat the table plays takes it back at a hand boundary.

Its old game secret is public since the takeover, so it comes back with a fresh one: a signed
``reclaim`` carries that secret's pass key and its escrow, sealed to every other player's key
now. While the table plays a seat, every hand ends with two steps of the present players:
1. ``seats``: each carries the reclaims it holds for the coming hand. A reclaim is checked
   alike by every peer from public data (the seat's roster key, the hand, its sequence number,
   the boxes to seats the table plays, which anyone opens), so carrying one that fails is a
   proven cheat, and one carried by any present player counts: no vote, nothing a single peer
   can block by keeping quiet.
2. ``welcome`` (only when a reclaim counted): each present player says whether the reclaimer's
   box to it opens, which only it can see. A seat whose box someone says is bad stays the
   table's for that hand (the log names who said so); otherwise it is a person's again from the
   coming hand, dealt normally, its keys derived from the fresh secret.

Consent needs nothing of the returning seat after its reclaim, so a player who comes back and
vanishes again cannot hold the table: it is simply taken over again, with its new escrow.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey

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
from .escrow import EscrowEntry, make_escrow, open_entry
from .events import ReclaimRefused, SeatReclaimed
from .handsteps import start_hand
from .keys import pass_key, pass_public_key
from .state import GameState, StepRule
from .steps import Step, StepId, StepKind

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
_PROBE = X25519PrivateKey.from_private_bytes(bytes([1]) * 32)  # to refuse low-order keys


@dataclass(frozen=True, slots=True)
class Offer:
    """A checked reclaim: the player, its number, its new pass key and escrow by holder."""

    player: int
    seq: int
    dh: bytes
    escrow: dict[int, EscrowEntry]
    raw: bytes


def fresh_secrets(s: GameState) -> list[bytes]:
    """This player's fresh secrets, one per return, in order (saved with its choices)."""
    saved = s.choices.get(RECLAIM)
    return [b for b in saved if isinstance(b, bytes)] if isinstance(saved, list) else []


def _mine(s: GameState) -> int:
    return s.returns.get(s.me, 0) if s.me is not None else 0


def may_ask(s: GameState) -> bool:
    """Whether this seat, which the table plays, needs a fresh secret to ask its seat back."""
    return len(fresh_secrets(s)) <= _mine(s) < MAX_RETURNS


def next_hand(s: GameState) -> int:
    """The hand a reclaim signed now is for: the coming one (this one, at its ``seats``)."""
    return s.step.hand if s.step.kind is StepKind.SEATS else s.step.hand + 1


def sign_offer(s: GameState) -> SignedMessage | None:
    """This seat's reclaim for the coming hand, when the table plays it and it has a fresh
    secret for it. Its number skips one: the seat may have signed a part the others never took
    under its next number before it was voted out."""
    fresh = fresh_secrets(s)
    if (
        s.identity is None
        or s.me not in s.table
        or len(fresh) <= _mine(s)
        or not _may_return(s, s.me)
    ):
        return None
    assert s.genesis is not None and s.me is not None
    secret = fresh[_mine(s)]
    keys = [s.pass_key_of(p) for p in s.everyone()]
    escrow = make_escrow(secret, s.game_id, s.me, keys)
    body = {"dh": pass_public_key(secret), "escrow": [e.to_wire() for e in escrow]}
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
    if env.seq != s.next_seq.get(player, 0) + 1 or set(body) != {"dh", "escrow"}:
        return None
    if not _may_return(s, player):
        return None  # it came back as often as a seat may
    dh, items = body["dh"], body["escrow"]
    if not isinstance(dh, bytes) or len(dh) != 32 or not isinstance(items, list):
        return None
    if dh in {s.pass_key_of(p) for p in s.everyone()} or not _usable(dh):
        return None
    holders = [h for h in s.everyone() if h != player]
    if len(items) != len(holders):
        return None
    escrow: dict[int, EscrowEntry] = {}
    for holder, item in zip(holders, items, strict=True):
        entry = EscrowEntry.from_wire(item)
        if entry is None:
            return None
        escrow[holder] = entry
    for holder, seat in s.table.items():
        if holder != player and _open(s, escrow[holder], player, holder, seat.secret) is None:
            return None  # a box to a seat the table plays: anyone opens it, and it must open
    return Offer(player, env.seq, dh, escrow, msg.raw)


def _may_return(s: GameState, player: int) -> bool:
    """Whether ``player`` may still come back: it has fewer than ``MAX_RETURNS`` returns, and
    its seat is not open (void.py): a seat whose silence voided a hand could otherwise void any
    hand it is losing and be back for the next."""
    seat = s.table.get(player)
    return s.returns.get(player, 0) < MAX_RETURNS and not (seat is not None and seat.open)


def _usable(dh: bytes) -> bool:
    try:
        _PROBE.exchange(X25519PublicKey.from_public_bytes(dh))
    except ValueError:
        return False  # a low-order point: every box sealed to it would be readable
    return True


def _open(
    s: GameState, entry: EscrowEntry, sender: int, holder: int, secret: bytes
) -> bytes | None:
    return open_entry(entry, s.game_id, sender, holder, pass_key(secret), s.pass_key_of(holder))


def _carried(s: GameState, raw: object) -> Offer | None:
    """A reclaim frame inside a ``seats`` message: decoded, its signature checked, parsed."""
    if not isinstance(raw, bytes) or s.genesis is None:
        return None
    try:
        msg = decode_frame(raw)
    except WireError:
        return None
    player = msg.envelope.sender
    if not 0 <= player < s.players or msg.raw != pack([msg.envelope_bytes, msg.signature]):
        return None
    if msg.raw not in s.signed and not msg.verify(s.genesis.players[player].key):
        return None
    return _parse(s, msg, s.step.hand)


# -- seats --------------------------------------------------------------------------------


def _check_seats(s: GameState, player: int, body: dict[str, Any]) -> list[Offer]:
    seat = s.seat_of[player]
    items = body.get("reclaims") if set(body) == {"reclaims"} else None
    if not isinstance(items, list) or len(items) > len(s.table):
        raise IllegalActionError("malformed seats message", seat)
    offers = [_carried(s, raw) for raw in items]
    if any(o is None for o in offers):
        raise IllegalActionError("carried a reclaim that is not valid for this hand", seat)
    checked = [o for o in offers if o is not None]
    players = [o.player for o in checked]
    if players != sorted(set(players)):
        raise IllegalActionError("carried reclaims not one per seat in player order", seat)
    return checked


def _send_seats(s: GameState) -> dict[str, Any]:
    """The reclaims this peer holds for this hand. Saved before it is sent: restarted, the peer
    must send the same message, not one with the reclaims it happens to hold then."""
    saved = s.choices.get("seats")
    if isinstance(saved, dict) and saved.get("prev") == s.step.prev:
        return {"reclaims": list(saved["reclaims"])}
    held = [(p, raw) for p, raw in sorted(s.offers.items()) if _carried(s, raw) is not None]
    reclaims = [raw for _, raw in held]
    s.choices["seats"] = {"prev": s.step.prev, "reclaims": reclaims}
    return {"reclaims": reclaims}


def _after_seats(s: GameState, done: Step) -> None:
    """Each seat some present player carried a reclaim for is welcomed (its lowest frame, if
    it signed several); with none, the hand begins."""
    counted: dict[int, Offer] = {}
    for player in done.senders:
        parsed = done.parsed.get(player)
        for offer in parsed if isinstance(parsed, list) else []:
            assert isinstance(offer, Offer)
            held = counted.get(offer.player)
            if held is None or offer.raw < held.raw:
                counted[offer.player] = offer
    s.offers = {}
    if not counted:
        start_hand(s)
        return
    s.welcome = dict(sorted(counted.items()))
    s.new_step(done.hand, StepId(StepKind.WELCOME), s.present())


# -- welcome ------------------------------------------------------------------------------


def _check_welcome(s: GameState, player: int, body: dict[str, Any]) -> frozenset[int]:
    bad = body.get("bad") if set(body) == {"bad"} else None
    if (
        not isinstance(bad, list)
        or not all(isinstance(b, int) and not isinstance(b, bool) for b in bad)
        or bad != sorted(set(bad))
        or not set(bad) <= set(s.welcome)
    ):
        raise IllegalActionError("malformed welcome message", s.seat_of[player])
    return frozenset(bad)


def _bad_boxes(s: GameState, holder: int, secret: bytes) -> list[int]:
    """The reclaimers whose box to ``holder`` does not open with ``secret``'s key; the shares
    of those that open are kept, to show if that seat is taken over again."""
    bad = []
    for player, offer in s.welcome.items():
        assert isinstance(offer, Offer)
        share = _open(s, offer.escrow[holder], player, holder, secret)
        if share is None:
            bad.append(player)
        elif holder == s.me:
            s.opened[player] = share
    return bad


def _send_welcome(s: GameState) -> dict[str, Any]:
    assert s.me is not None
    return {"bad": _bad_boxes(s, s.me, s.secret)}


def _said_bad(done: Step, player: int) -> frozenset[int]:
    parsed = done.parsed[player]
    assert isinstance(parsed, frozenset)
    return parsed


def _after_welcome(s: GameState, done: Step) -> None:
    assert s.genesis is not None
    for player, offer in s.welcome.items():
        assert isinstance(offer, Offer)
        by = [p for p in done.senders if player in _said_bad(done, p)]
        name = s.genesis.players[player].name
        if by:
            seats = tuple(s.seat_of[p] for p in by)
            s.events.append(ReclaimRefused(s.seat_of[player], name, done.hand, seats))
            continue
        _come_back(s, offer)
        s.events.append(SeatReclaimed(s.seat_of[player], name, done.hand))
    s.welcome = {}
    s.opened = {}
    start_hand(s)


def _come_back(s: GameState, offer: Offer) -> None:
    """The seat is a person's again. The boxes others sealed to its old key stay open to all:
    every peer keeps those shares, for a later takeover of their senders."""
    player = offer.player
    old = s.table.pop(player)
    for sender, boxes in s.escrow.items():
        if sender != player:
            share = _open(s, boxes[player], sender, player, old.secret)
            if share is not None:
                s.public_shares[(sender, player)] = share
    s.escrow[player] = offer.escrow
    s.dh[player] = offer.dh
    s.next_seq[player] = offer.seq + 1
    s.left.pop(player, None)
    s.returned.append(player)
    if player == s.me:
        s.secret = fresh_secrets(s)[_mine(s)]
    elif player in s.opened:
        s.shares[player] = s.opened[player]
    s.returns[player] = s.returns.get(player, 0) + 1


def table_part(s: GameState, player: int) -> dict[str, Any]:
    """A seat the table took over in one of these steps: it carries nothing, and checks the
    boxes sealed to it with its recovered key, as every peer can."""
    if s.step.kind is StepKind.SEATS:
        return {"reclaims": []}
    return {"bad": _bad_boxes(s, player, s.table[player].secret)}


BOUNDARY_STEPS: dict[StepKind, StepRule] = {
    StepKind.SEATS: StepRule(_check_seats, _after_seats, _send_seats),
    StepKind.WELCOME: StepRule(_check_welcome, _after_welcome, _send_welcome),
}
