"""Every seated player re-keys at a return, so a return leaves no secret weaker than before.

Since a seat was taken over, the shares the others' escrows gave it are public: each present
player's secret then needs only the shares of the other present players. That is all the other
*seated* players while the seat is the table's, but one fewer once it is back. So a return
comes with fresh keys for everyone seated, each escrowed anew to fresh keys only:
1. ``seats`` (reclaim.py): each present player also shows the pass key of a fresh secret it
   derives from its identity key for this boundary (no one else holds it, nothing escrows it).
2. ``rekey``: each present player sends the escrow of that fresh secret, every box sealed to a
   fresh key: the other present players' from ``seats``, the returner's from its reclaim.
3. The returner answers with a ``rejoin``, not a step's part: the escrow of its own fresh
   secret sealed to the same fresh keys, and which boxes to it do not open.
4. ``welcome``: each present player carries the rejoin it holds and names the boxes to it that
   do not open. Only if every present player carried the same rejoin and no box is said bad do
   they all switch at once, the returner included; otherwise the seat stays the table's for that
   hand, the log naming who refused, and nobody's keys change.

A box only its holder can open must be checked by that holder while its sender is present, and
before anything uses the secret it holds: hence the rejoin. The returner is no step's sender,
so if it vanishes the present players wait the timeout and carry nothing: the table plays on.
"""

from __future__ import annotations

from typing import Any

from ..engine import IllegalActionError
from ..identity import fingerprint
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
from .keys import derive, pass_key, pass_public_key
from .rekeying import Offer, Rekeying
from .sitdown import begin_sit, sit_fresh, switch_holder
from .state import GameState, StepRule
from .steps import Step, StepId, StepKind

__all__ = [
    "REJOIN",
    "REKEY_STEPS",
    "awaited",
    "begin",
    "fresh_secrets",
    "give_up",
    "returns_of_mine",
    "seats_key",
    "sign_rejoin",
    "table_part",
    "take_rejoin",
]

REJOIN = "rejoin"
_SAVED = "welcome"  # this peer's welcome body, saved before it leaves (it may carry nothing)


def fresh_secrets(s: GameState) -> list[bytes]:
    """This player's fresh secrets to come back with, one per return, in order (saved with its
    choices)."""
    saved = s.choices.get("reclaim")
    return [b for b in saved if isinstance(b, bytes)] if isinstance(saved, list) else []


def returns_of_mine(s: GameState) -> int:
    return s.returns.get(s.me, 0) if s.me is not None else 0


def _boundary_secret(s: GameState, hand: int) -> bytes:
    """A present player's fresh secret for the boundary before ``hand``: from its identity key,
    which it alone holds and which no escrow gives away, so a restarted peer derives it again."""
    assert s.identity is not None
    return derive(s.identity.private_bytes(), f"rekey {s.game_id.hex()} {hand}")


def seats_key(s: GameState) -> bytes:
    """The pass key this present player shows in ``seats``: of its fresh secret for the hand."""
    return pass_public_key(_boundary_secret(s, s.step.hand))


def _my_fresh(s: GameState, r: Rekeying) -> bytes:
    if s.me == r.offer.player and r.offer.newcomer is not None:
        return sit_fresh(s)  # a newcomer taking the seat (sitdown.py)
    if s.me == r.offer.player:
        return fresh_secrets(s)[returns_of_mine(s)]
    return _boundary_secret(s, s.step.hand)


def begin(s: GameState, offer: Offer, keys: dict[int, bytes], hand: int) -> None:
    """A reclaim counted at ``seats``: every present player escrows its fresh secret."""
    s.rekeying = Rekeying(offer, keys, frozenset(s.table))
    begin_sit(s, s.rekeying)
    s.new_step(hand, StepId(StepKind.REKEY), s.present())


def _sealing_keys(s: GameState, r: Rekeying) -> list[bytes]:
    """The key each player's box is sealed to: a present player's fresh one, the returner's
    from its reclaim, and a seat the table keeps its recovered one (anyone opens that box)."""

    def key(p: int) -> bytes:
        if p == r.offer.player:
            return r.offer.dh
        return r.keys.get(p) or s.pass_key_of(p)

    return [key(p) for p in s.everyone()]


def _name(s: GameState, player: int) -> str:
    return s.genesis.players[player].name if s.genesis is not None else str(player)


def _entries(s: GameState, r: Rekeying, sender: int, items: object) -> dict[int, EscrowEntry]:
    """An escrow of ``sender``'s fresh secret; raises ValueError with what is wrong. A box to a
    seat the table played when the boundary began is opened by anyone, so it must open (one
    taken over since was sealed to its fresh key: the return then waits)."""
    holders = [h for h in s.everyone() if h != sender]
    if not isinstance(items, list) or len(items) != len(holders):
        raise ValueError(f"its escrow is not {len(holders)} entries")
    escrow: dict[int, EscrowEntry] = {}
    for holder, item in zip(holders, items, strict=True):
        entry = EscrowEntry.from_wire(item)
        if entry is None:
            raise ValueError("its escrow holds a malformed entry")
        escrow[holder] = entry
    for holder in sorted(r.table - {sender, r.offer.player}):
        key, receiver = pass_key(s.table[holder].secret), s.pass_key_of(holder)
        if open_entry(escrow[holder], s.game_id, sender, holder, key, receiver) is None:
            raise ValueError(f"sealed a bad escrow share to {_name(s, holder)}")
    return escrow


def _open_mine(s: GameState, r: Rekeying, sender: int, escrow: dict[int, EscrowEntry]) -> None:
    """This peer's box from ``sender``, opened with its fresh key: the share, or None."""
    me = s.me
    if me is None or me == sender or (me not in r.keys and me != r.offer.player):
        return
    keys = _sealing_keys(s, r)
    secret = _my_fresh(s, r)
    r.mine[sender] = open_entry(escrow[me], s.game_id, sender, me, pass_key(secret), keys[me])


# -- rekey --------------------------------------------------------------------------------


def _check_rekey(s: GameState, player: int, body: dict[str, Any]) -> object:
    r = s.rekeying
    assert r is not None
    if player in s.table:
        return None  # taken over in this step: it takes no fresh key
    try:
        escrow = _entries(s, r, player, body.get("escrow") if set(body) == {"escrow"} else None)
    except ValueError as e:
        raise IllegalActionError(str(e), s.seat_of[player]) from None
    _open_mine(s, r, player, escrow)
    return escrow


def _send_rekey(s: GameState) -> dict[str, Any]:
    r = s.rekeying
    assert r is not None and s.me is not None
    escrow = make_escrow(_my_fresh(s, r), s.game_id, s.me, _sealing_keys(s, r))
    return {"escrow": [e.to_wire() for e in escrow]}


def _after_rekey(s: GameState, done: Step) -> None:
    r = s.rekeying
    assert r is not None
    for player in done.senders:
        escrow = done.parsed.get(player)
        if isinstance(escrow, dict):
            r.escrows[player] = escrow
    s.new_step(done.hand, StepId(StepKind.WELCOME), s.present())


# -- the returner's rejoin ------------------------------------------------------------------


def sign_rejoin(s: GameState) -> SignedMessage | None:
    """The returner's escrow of its fresh secret, sealed to the fresh keys, and its word on the
    boxes to it: once, as ``welcome`` begins. Everything in it derives from its secrets and the
    log, so a restarted peer signs the same bytes."""
    r = s.rekeying
    if r is None or s.step.kind is not StepKind.WELCOME or s.identity is None:
        return None
    if s.me != r.offer.player:
        return None
    escrow = make_escrow(_my_fresh(s, r), s.game_id, s.me, _sealing_keys(s, r))
    bad = [p for p in sorted(r.escrows) if r.mine.get(p) is None]
    body = {"escrow": [e.to_wire() for e in escrow], "bad": bad}
    env = Envelope(PROTOCOL_VERSION, s.game_id, s.step.hand, REJOIN, s.me, r.offer.seq + 1,
                   s.step.prev, REJOIN, body)  # fmt: skip
    msg = encode_message(s.identity, env)
    s.signed.add(msg.raw)
    return msg


def _parse_rejoin(
    s: GameState, msg: SignedMessage
) -> tuple[dict[int, EscrowEntry], tuple[int, ...]] | None:
    """The rejoin's escrow and its bad boxes, checked against what every peer holds, or None."""
    r, env = s.rekeying, msg.envelope
    if r is None or s.step.kind is not StepKind.WELCOME:
        return None
    if (env.kind, env.step, env.sender) != (REJOIN, REJOIN, r.offer.player):
        return None
    if env.game_id != s.game_id or env.hand != s.step.hand or env.prev != s.step.prev:
        return None
    body = env.body
    if env.seq != r.offer.seq + 1 or set(body) != {"escrow", "bad"}:
        return None
    bad = body["bad"]
    if (
        not isinstance(bad, list)
        or not all(isinstance(b, int) and not isinstance(b, bool) for b in bad)
        or bad != sorted(set(bad))
        or not set(bad) <= set(r.escrows)
    ):
        return None
    try:
        escrow = _entries(s, r, env.sender, body["escrow"])
    except ValueError:
        return None
    return escrow, tuple(bad)


def take_rejoin(s: GameState, msg: SignedMessage) -> bool:
    """The returner's rejoin (its signature checked): held for ``welcome`` and passed on, if it
    is valid now; else dropped. Whether it counts is the ``welcome`` messages' to say."""
    parsed = _parse_rejoin(s, msg)
    r = s.rekeying
    if parsed is None or r is None:
        return False
    if r.rejoin is None or msg.raw < r.rejoin:
        r.rejoin = msg.raw
        r.rejoin_escrow = parsed[0]
    if s.me is not None and s.me != msg.envelope.sender:
        s.relays.append(msg)
    return True


def _carried(s: GameState, raw: object) -> tuple[dict[int, EscrowEntry], tuple[int, ...]] | None:
    """A rejoin frame inside a ``welcome`` message: decoded, its signature checked, parsed."""
    if not isinstance(raw, bytes) or s.genesis is None or s.rekeying is None:
        return None
    try:
        msg = decode_frame(raw)
    except WireError:
        return None
    if msg.raw != pack([msg.envelope_bytes, msg.signature]):
        return None
    new = s.rekeying.offer.newcomer
    key = new.key if new is not None else s.holder(s.rekeying.offer.player).key
    if msg.envelope.sender != s.rekeying.offer.player:
        return None
    if msg.raw not in s.signed and not msg.verify(key):
        return None
    return _parse_rejoin(s, msg)


def awaited(s: GameState) -> int | None:
    """The returner, while this present peer waits for its rejoin before its ``welcome``."""
    r = s.rekeying
    if r is None or s.step.kind is not StepKind.WELCOME or r.rejoin is not None or r.given_up:
        return None
    if s.me is None or s.me not in s.step.senders or s.me in s.step.got:
        return None
    return r.offer.player


def give_up(s: GameState, player: int) -> bool:
    """The returner's rejoin did not come within the timeout: this peer welcomes nobody."""
    if awaited(s) != player:
        return False
    assert s.rekeying is not None
    s.rekeying.given_up = True
    return True


# -- welcome ------------------------------------------------------------------------------


def _check_welcome(s: GameState, player: int, body: dict[str, Any]) -> object:
    r = s.rekeying
    assert r is not None
    if player in s.table:
        return None
    seat = s.seat_of[player]
    well_formed = set(body) == {"rejoin", "bad"}
    rejoin, bad = (body["rejoin"], body["bad"]) if well_formed else (None, None)
    named = (set(r.escrows) | {r.offer.player}) - {player}
    if (
        not isinstance(bad, list)
        or not all(isinstance(b, int) and not isinstance(b, bool) for b in bad)
        or bad != sorted(set(bad))
        or not set(bad) <= named
        or (rejoin is not None and not isinstance(rejoin, bytes))
    ):
        raise IllegalActionError("malformed welcome message", seat)
    if rejoin is not None and _carried(s, rejoin) is None:
        raise IllegalActionError("carried a rejoin that is not valid for this hand", seat)
    return rejoin, frozenset(bad)


def _bad_boxes(s: GameState, r: Rekeying) -> list[int]:
    """Whose box to this player does not open: a present player's from ``rekey``, and the
    returner's from the rejoin it carries."""
    bad = {p for p in r.escrows if p != s.me and r.mine.get(p) is None}
    if r.rejoin is not None:
        _open_mine(s, r, r.offer.player, r.rejoin_escrow)
        if r.mine.get(r.offer.player) is None:
            bad.add(r.offer.player)
    return sorted(bad)


def _send_welcome(s: GameState) -> dict[str, Any] | None:
    """The rejoin this peer holds and the boxes to it that do not open; nothing yet while it
    waits for the rejoin. Saved before it is sent: restarted, the peer must send the same."""
    r = s.rekeying
    assert r is not None
    saved = s.choices.get(_SAVED)
    if isinstance(saved, dict) and saved.get("prev") == s.step.prev:
        return {"rejoin": saved["rejoin"], "bad": list(saved["bad"])}
    if r.rejoin is None and not r.given_up:
        return None
    body = {"rejoin": r.rejoin, "bad": _bad_boxes(s, r)}
    s.choices[_SAVED] = {"prev": s.step.prev, **body}
    return body


def _after_welcome(s: GameState, done: Step) -> None:
    r = s.rekeying
    assert r is not None and s.genesis is not None
    player = r.offer.player
    carried, refusers = _welcomed(done)
    parsed = _carried(s, next(iter(carried))) if len(carried) == 1 else None
    if parsed is not None and parsed[1]:
        refusers.add(player)  # a box sealed to the returner does not open
    name = _name(s, player) if r.offer.newcomer is None else r.offer.newcomer.name
    if parsed is None or refusers or frozenset(s.table) != r.table:
        by = tuple(s.seat_of[p] for p in sorted(refusers))
        new = r.offer.newcomer
        mark = fingerprint(new.key) if new is not None else ""
        s.events.append(ReclaimRefused(s.seat_of[player], name, done.hand, by, mark))
        switch_holder(s, r, False, done.hand)
    else:
        raw = next(iter(carried))
        assert isinstance(raw, bytes)
        switch_holder(s, r, True, done.hand)  # a newcomer's: its key holds the seat now
        _switch(s, r, parsed[0], decode_frame(raw).envelope.seq)
        if r.offer.newcomer is None:
            s.events.append(SeatReclaimed(s.seat_of[player], name, done.hand))
    s.rekeying = None
    start_hand(s)


def _welcomed(done: Step) -> tuple[set[bytes | None], set[int]]:
    """The rejoins the ``welcome`` parts carried (alike if one, or None), and who kept the
    return off: a sender that said a box to it is bad, or that carried no rejoin while another
    did (when none came at all, nobody refused: it never answered)."""
    parts = {p: done.parsed[p] for p in done.senders if p not in done.table}
    welcomes = [(p, part) for p, part in parts.items() if isinstance(part, tuple)]
    carried = {part[0] for _, part in welcomes}
    refusers = {p for p, (rejoin, bad) in welcomes if bad or (rejoin is None and carried != {None})}
    return carried, refusers


def _switch(s: GameState, r: Rekeying, escrow: dict[int, EscrowEntry], seq: int) -> None:
    """Every seated player takes its fresh secret at once: pass keys, escrows and this peer's
    shares are the new ones, and no share of an old secret is needed again."""
    player = r.offer.player
    if s.me == player:
        s.secret = _my_fresh(s, r)
    elif s.me in r.keys:
        s.secret = _boundary_secret(s, s.step.hand)
    for p, dh in r.keys.items():
        s.dh[p] = dh
        s.escrow[p] = r.escrows[p]
    s.table.pop(player)
    s.escrow[player] = escrow
    s.dh[player] = r.offer.dh
    s.next_seq[player] = seq + 1
    s.left.pop(player, None)
    s.returned.append(player)
    s.returns[player] = s.returns.get(player, 0) + 1
    if s.me is not None and (s.me in r.keys or s.me == player):
        if s.me != player:
            _open_mine(s, r, player, escrow)
        s.shares = {p: share for p, share in r.mine.items() if share is not None}


def table_part(s: GameState) -> dict[str, Any]:
    """A seat the table took over in ``rekey`` or ``welcome``: no fresh key, nothing carried
    (the return then waits for the next boundary)."""
    if s.step.kind is StepKind.REKEY:
        return {"escrow": []}
    return {"rejoin": None, "bad": []}


REKEY_STEPS: dict[StepKind, StepRule] = {
    StepKind.REKEY: StepRule(_check_rekey, _after_rekey, _send_rekey),
    StepKind.WELCOME: StepRule(_check_welcome, _after_welcome, _send_welcome),
}
