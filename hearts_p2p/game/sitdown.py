"""A newcomer takes an open seat: a seat the table plays goes to another identity at a boundary.

A seat the table plays (its player left) is *open* when the genesis rules allow it
(``open_seats``). A newcomer, with an identity key the roster does not hold, first follows the
game as a watcher and audits the log; then it signs a ``sit`` for the coming hand, naming the
seat's player number, its own key, name and bot flag, and the pass key of a fresh secret. The
frame is signed by the newcomer's key, so it is checked alike by every peer from public data: the
game, the hand, the log it is chained to, the seat's next number but one. It is carried in the
coming ``seats`` step like a reclaim; what counts is the table rule:

- ``anyone``: a sit one present player carries counts (nothing a single peer can block);
- ``ask``: only a sit every present player carries counts. Each carries one only if its person
  said yes (``GameProtocol.consent``) before its ``seats`` part left: no answer is a refusal.

A counted sit runs the re-key of a return (``rekey.py``): the newcomer's ``rejoin`` brings the
escrow of its fresh secret, every seated player takes a fresh one, and only if every ``welcome``
agrees does the seat change hands. From then on the newcomer's key signs for that player number:
the key schedule (``GameState.holders``) every peer and the audit read from the log.
"""

from __future__ import annotations

from typing import Any

from ..identity import PUBLIC_KEY_BYTES, fingerprint
from ..rules import OpenSeats
from ..wire import (
    PROTOCOL_VERSION,
    Envelope,
    SignedMessage,
    WireError,
    decode_frame,
    encode_message,
    pack,
)
from .events import SeatTaken, SitAsked
from .genesis import MAX_NAME, Player
from .keys import pass_public_key, usable_pass_key
from .rekeying import Offer, Rekeying
from .state import GameState
from .steps import StepKind

__all__ = [
    "SIT",
    "asked_seat",
    "begin_sit",
    "carried",
    "counted",
    "held_sits",
    "next_hand",
    "sign_sit",
    "signer_key",
    "sit_fresh",
    "switch_holder",
    "take_sit",
    "wanted",
]

SIT = "sit"
_SAVED = "sit"  # the newcomer's ask, saved with its choices: {player, secret, name, bot}


def open_rule(s: GameState) -> OpenSeats:
    return s.genesis.rules.open_seats if s.genesis is not None else OpenSeats.NO


def wanted(s: GameState) -> dict[str, object] | None:
    """This newcomer's saved ask: the seat's player, its fresh secret, its name and bot flag."""
    saved = s.choices.get(_SAVED)
    return saved if isinstance(saved, dict) else None


def sit_fresh(s: GameState) -> bytes:
    """The fresh secret this newcomer sits with."""
    saved = wanted(s)
    assert saved is not None and isinstance(saved["secret"], bytes)
    return saved["secret"]


def asked_seat(s: GameState, player: int, secret: bytes, name: str, bot: bool) -> None:
    """Save this newcomer's ask, before anything is signed: a restart signs the same."""
    s.choices[_SAVED] = {"player": player, "secret": secret, "name": name, "bot": bot}


def next_hand(s: GameState) -> int:
    """The hand a sit or a reclaim signed now is for: the coming one (this one, at its
    ``seats``)."""
    if s.step.kind is StepKind.SEATS:
        return s.step.hand
    return s.step.hand + 1 if s.step.kind is StepKind.WELCOME else s.hand_now + 1


def sign_sit(s: GameState) -> SignedMessage | None:
    """This newcomer's sit for the coming hand, while the seat it asked is open to it."""
    saved = wanted(s)
    if saved is None or s.identity is None or s.me is not None or s.genesis is None:
        return None
    player, name, bot = saved["player"], saved["name"], saved["bot"]
    assert isinstance(player, int) and isinstance(name, str) and isinstance(bot, bool)
    if player not in s.table or open_rule(s) is OpenSeats.NO:
        return None
    body = {"key": s.identity.public_key, "name": name, "bot": bot,
            "dh": pass_public_key(sit_fresh(s))}  # fmt: skip
    env = Envelope(PROTOCOL_VERSION, s.game_id, next_hand(s), SIT, player,
                   s.next_seq.get(player, 0) + 1, s.step.prev, SIT, body)  # fmt: skip
    msg = encode_message(s.identity, env)
    s.signed.add(msg.raw)
    return msg


def _parse(s: GameState, msg: SignedMessage, hand: int) -> Offer | None:
    """The sit checked against what every peer holds alike, its signature included, or None.
    It is for ``hand`` exactly (a sit of another hand or game is refused), chained to this log,
    under the seat's next number but one, by a key that holds no seat now."""
    env, body = msg.envelope, msg.envelope.body
    if not _for_here(s, env, hand) or not _well_formed(body):
        return None
    key, name, bot, dh = body["key"], body["name"], body["bot"], body["dh"]
    if not _new_keys(s, key, dh):
        return None
    if msg.raw != pack([msg.envelope_bytes, msg.signature]):
        return None
    if msg.raw not in s.signed and not msg.verify(key):
        return None
    return Offer(env.sender, env.seq, dh, msg.raw, Player(name, key, dh, bot))


def _for_here(s: GameState, env: Envelope, hand: int) -> bool:
    """Whether a sit's envelope is for this game's ``hand``, chained to this log, for a seat
    the table plays that is open to a newcomer now, under the seat's next number but one."""
    player = env.sender
    if s.genesis is None or open_rule(s) is OpenSeats.NO or env.game_id != s.game_id:
        return False
    if (env.kind, env.step, env.hand) != (SIT, SIT, hand) or env.prev not in s.index:
        return False
    if player not in s.table or s.table[player].open or s.rekeying is not None:
        return False
    return env.seq == s.next_seq.get(player, 0) + 1


def _well_formed(body: dict[str, Any]) -> bool:
    """Whether a sit's body holds a key, a name, a bot flag and a pass key, of their types."""
    if set(body) != {"key", "name", "bot", "dh"}:
        return False
    key, name, bot = body["key"], body["name"], body["bot"]
    if not isinstance(key, bytes) or len(key) != PUBLIC_KEY_BYTES or not isinstance(bot, bool):
        return False
    return isinstance(name, str) and 0 < len(name) <= MAX_NAME


def _new_keys(s: GameState, key: bytes, dh: object) -> bool:
    """Whether a sit's keys are a newcomer's: its key holds no seat and was never seated (a
    seated player asking a second seat, or a leaver, which reclaims), its pass key no one's."""
    assert s.genesis is not None
    seated = {s.holder(p).key for p in s.everyone()} | {p.key for p in s.genesis.players}
    if key in seated:
        return False
    return usable_pass_key(dh) and dh not in {s.pass_key_of(p) for p in s.everyone()}


def take_sit(s: GameState, msg: SignedMessage) -> bool:
    """A sit as it comes: held for the coming ``seats`` step and passed on if valid for it,
    the lowest frame per seat (every peer alike); else dropped."""
    offer = _parse(s, msg, next_hand(s))
    if offer is None or offer.newcomer is None:
        return False
    s.frames.add(msg.raw)  # every copy after this one drops at once: relayed once, by each
    held = s.sits.get(offer.player)
    if held is None or msg.raw < held:
        s.sits[offer.player] = msg.raw
    new = offer.newcomer
    if s.identity is None or s.identity.public_key != new.key:
        s.relays.append(msg)
    assert s.genesis is not None
    was = s.genesis.players[offer.player].name
    s.events.append(SitAsked(s.seat_of[offer.player], new.name, fingerprint(new.key), was,
                             msg.envelope.hand, new.bot, new.key,
                             open_rule(s) is OpenSeats.ASK))  # fmt: skip
    return True


def carried(s: GameState, raw: bytes) -> Offer | None:
    """A sit frame inside a ``seats`` message, checked for this hand, or None."""
    try:
        msg = decode_frame(raw)
    except WireError:
        return None
    return _parse(s, msg, s.step.hand)


def held_sits(s: GameState, reclaimed: set[int]) -> list[tuple[int, bytes]]:
    """The sits this peer carries in its ``seats``: one per seat no reclaim is carried for (a
    seat's own player comes first), and at an ``ask`` table only those its person agreed to."""
    out = []
    for player, raw in sorted(s.sits.items()):
        offer = carried(s, raw) if player not in reclaimed else None
        if offer is None or offer.newcomer is None:
            continue
        if open_rule(s) is OpenSeats.ASK and not s.consent.get(offer.newcomer.key, False):
            continue
        out.append((player, raw))
    return out


def counted(s: GameState, carriers: dict[int, list[Offer]]) -> dict[int, Offer]:
    """The sits the ``seats`` step counts, by seat: at an ``anyone`` table the lowest frame
    any present player carried; at an ``ask`` table the one frame every one of them carried."""
    by_seat: dict[int, dict[int, Offer]] = {}
    for carrier, offers in carriers.items():
        for o in offers:
            if o.newcomer is not None:
                by_seat.setdefault(o.player, {})[carrier] = o
    out: dict[int, Offer] = {}
    for player, got in by_seat.items():
        raws = {o.raw for o in got.values()}
        if open_rule(s) is OpenSeats.ASK:
            if len(raws) == 1 and set(got) == set(carriers):
                out[player] = next(iter(got.values()))
        else:
            out[player] = min(got.values(), key=lambda o: o.raw)
    s.sits = {}
    return out


def signer_key(s: GameState, env: Envelope) -> bytes | None:
    """The key that signs ``env`` as the key schedule stands: the seat's holder, or, for the
    rejoin of a sit being re-keyed, the newcomer's."""
    if s.genesis is None:
        return s.host_key if env.sender == 0 else None
    if not 0 <= env.sender < s.players:
        return None
    r = s.rekeying
    new = r.offer.newcomer if r is not None and r.offer.player == env.sender else None
    if new is not None and env.kind == "rejoin":
        return new.key
    return s.holder(env.sender).key


def begin_sit(s: GameState, r: Rekeying) -> None:
    """A newcomer whose sit is counted is that player from now on, for the re-key."""
    new = r.offer.newcomer
    if new is None or s.identity is None or s.identity.public_key != new.key:
        return
    if wanted(s) is not None and r.offer.dh == pass_public_key(sit_fresh(s)):
        s.me = r.offer.player  # else not a sit it signed so: it never rejoins, the table waits


def switch_holder(s: GameState, r: Rekeying, done: bool, hand: int) -> None:
    """After ``welcome``: the newcomer holds the seat (``done``) or this newcomer is back to a
    watcher; a leaver following its old seat becomes a watcher as the seat changes hands."""
    new = r.offer.newcomer
    if new is None or s.genesis is None:
        return
    player = r.offer.player
    mine = s.identity is not None and s.identity.public_key == new.key
    if not done:
        if mine:
            s.me = None
        return
    was = s.holder(player).name
    if s.me == player and not mine:
        s.me = None  # the seat's old player: its key signs for nothing now
    s.holders[player] = new
    s.events.append(SeatTaken(s.seat_of[player], new.name, fingerprint(new.key), was, hand))
