"""Build the game-log vectors of protocol/vectors/log/ (run this file to rewrite them).

Everything is deterministic: fixed identities and secrets, a first-in-first-out network, and
every seat taking its first legal action (or the action of a fixed policy), so the same code
writes the same bytes. The tampered copies are made from the valid log; where a change would
break a signature or the hash chain that is not the point of the vector, the entries are
re-signed with the players' own keys (as players colluding to rewrite history could), so the
audit has to find the change itself.

The games for the other rules and table sizes vary the players' secrets by a ``salt``, which
fixes every deal; each salt was picked as the first that gives its vector's point (a moon, a
tie, a heart led after Q♠), and the generator checks that the point is there.

``expected.json`` holds what ``hearts audit`` must report for each file; the tests compare the
whole report, problem by problem.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import struct
import zlib
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any
from unittest import mock

import hearts_p2p.deck.seat as deck_seat
from hearts_p2p.audit import audit_log
from hearts_p2p.cards import (
    ACE_HEARTS,
    CARDS,
    HEARTS_MASK,
    JACK_DIAMONDS,
    QUEEN_SPADES,
    TEN_CLUBS,
    cards_of,
)
from hearts_p2p.chain import GENESIS_HEAD, chain
from hearts_p2p.deck import SeatDeck
from hearts_p2p.deck.passbox import seal_box
from hearts_p2p.engine import (
    EXPOSABLE_MASK,
    Action,
    Claim,
    Expose,
    HandPhase,
    PlayCard,
    SeatView,
    gongzhu_points,
)
from hearts_p2p.engine.hand import HandState
from hearts_p2p.game import GameProtocol, Genesis, HandRecord, Player, Status, StepKind
from hearts_p2p.game.abort import ONE_STEP
from hearts_p2p.game.rollcall import sign_nolead
from hearts_p2p.identity import Identity
from hearts_p2p.log import MAGIC
from hearts_p2p.rules import GameKind, Moon, OpenSeats, Rules, Ties
from hearts_p2p.wire import Envelope, SignedMessage, decode_frame, encode_message, pack

DIR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "log"
GAME_ID = bytes.fromhex("6865617274732d7032702d766563746f")  # "hearts-p2p-vecto"
NAMES = ("ann", "bob", "cat", "dan", "eve", "fay")
RULES = Rules(players=4, target=10)
CHEATER = 2  # cat, in every game with a cheat

# A seat's choice hook: given the player index and its protocol, act and return True, or
# return False to let it take its policy's action.
Chooser = Callable[[int, GameProtocol], bool]
# What a seat chooses when the game waits for it: its seat and view -> one of view.legal.
Policy = Callable[[int, SeatView], Action]
# What goes out when player i sends a message: the messages every other peer receives.
Tamper = Callable[[int, SignedMessage], list[SignedMessage]]
# A newcomer's arrival: given every peer's protocol while nothing is in flight, it may put a new
# peer, caught up from the log, in a player's place, and returns whether it did.
Arrival = Callable[[list[GameProtocol]], bool]


def identities(players: int = 4) -> list[Identity]:
    return [Identity.from_seed(bytes([0xA0 + i]) * 32) for i in range(players)]


def secret(player: int, salt: bytes | None = None) -> bytes:
    if salt is None:
        return bytes([0xB0 + player]) * 32
    return hashlib.sha256(b"hearts-p2p vector secret " + salt + bytes([player])).digest()


def lowest(seat: int, view: SeatView) -> Action:
    """The first legal action: the three lowest cards to pass, the lowest card to play, and a
    moon's penalty added to the others."""
    return view.legal[0]


def play(
    cheat: Chooser | None = None,
    *,
    rules: Rules = RULES,
    salt: bytes | None = None,
    policy: Policy = lowest,
    tamper: Tamper | None = None,
    records: list[HandRecord] | None = None,
    arrive: Arrival | None = None,
) -> list[GameProtocol]:
    """A whole game among in-memory peers; returns every peer's protocol. ``records`` gets
    player 0's end-of-hand record of every hand (the true deal and passes)."""
    n = rules.players
    ids = identities(n)
    protos = [
        GameProtocol(GAME_ID, ids[0].public_key, ids[i], secret=secret(i, salt)) for i in range(n)
    ]
    roster = tuple(
        Player(name, ids[i].public_key, protos[i].dh_public, bot=True)
        for i, name in enumerate(NAMES[:n])
    )
    protos[0].propose(Genesis(GAME_ID, "vector table", rules, roster, 0))
    queue: deque[tuple[int, SignedMessage]] = deque()
    while True:
        for i, p in enumerate(protos):
            out, _, events = p.drain()
            if i == 0 and records is not None:
                records += [e for e in events if isinstance(e, HandRecord)]
            for m in out:
                sent = [m] if tamper is None else tamper(i, m)
                queue += [(j, s) for s in sent for j in range(n) if j != i]
        if queue:
            j, m = queue.popleft()
            protos[j].receive(m)
            continue
        if arrive is not None and arrive(protos):
            continue
        acted = False
        for i, p in enumerate(protos):
            if cheat is not None and cheat(i, p):
                acted = True
                continue
            view = p.choice_needed()
            if view is not None:
                p.submit(policy(view.seat, view))
                acted = True
        if not acted:
            return protos


def finished(protos: list[GameProtocol], hands: int) -> list[bytes]:
    """Player 0's log of a game every peer finished after ``hands`` hands, alike."""
    assert all(p.status is Status.FINISHED for p in protos)
    assert len({p.head for p in protos}) == 1
    game = protos[0].game
    assert game is not None and game.number == hands
    return protos[0].entries


# -- policies -----------------------------------------------------------------------------------


def shooter(seat: int) -> Policy:
    """``seat`` plays its highest legal card, everyone else its lowest (by rank): a seat that
    takes every trick it can, which with the right deal shoots the moon."""

    def choose(me: int, view: SeatView) -> Action:
        plays = [a for a in view.legal if isinstance(a, PlayCard)]
        if not plays:
            return view.legal[0]
        rank = {a: (int(a.card) % 13, int(a.card)) for a in plays}
        return max(plays, key=rank.__getitem__) if me == seat else min(plays, key=rank.__getitem__)

    return choose


def queen_then_hearts(seat: int, view: SeatView) -> Action:
    """Play Q♠ as soon as it may be played, and lead a heart whenever one may be led."""
    plays = [a for a in view.legal if isinstance(a, PlayCard)]
    for a in plays:
        if a.card == QUEEN_SPADES:
            return a
    hearts = [a for a in plays if 1 << a.card & HEARTS_MASK]
    if view.trick is None and hearts:
        return hearts[0]
    return view.legal[0]


# -- cheating seats -----------------------------------------------------------------------------


def renege(cheater: int) -> Chooser:
    """``cheater`` once discards off-suit while holding a dealt card of the led suit.

    It sends its open through the protocol's internals, telling its own engine to check the play
    as a stranger's would: no one can see the renege then. Every peer sees it when the seat
    later plays the suit it showed out of (or at the end-of-hand replay). A led-suit card it was
    passed would let the passer refuse the play at once, so only dealt ones count.
    """
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != cheater or done or view is None or view.trick is None:
            return False
        seat = p.my_seat
        assert seat is not None and p.game is not None and p.flow is not None
        hand = p.game.hand
        assert hand is not None
        if not hand.tricks or not hand.trick:
            return False
        led = hand.trick[0] // 13
        held = [int(c) for c in view.hand]
        received = set(p.flow.received_cards())
        follow = [c for c in held if c // 13 == led]
        off = [c for c in held if c // 13 != led]
        if not follow or not off or any(c in received for c in follow):
            return False
        hand.known &= ~(1 << seat)
        try:
            p._send(p.step.name, p.flow.make_open(min(off)))
        finally:
            hand.known |= 1 << seat
        done.append(True)
        return True

    return choose


def twin_play(cheater: int) -> Tamper:
    """``cheater`` sends its first play twice: as made, then in other bytes (the body's keys
    reversed) under the same number, re-signed: equivocation."""
    done: list[bool] = []

    def tamper(player: int, msg: SignedMessage) -> list[SignedMessage]:
        env = msg.envelope
        if player != cheater or done or env.kind != "play":
            return [msg]
        done.append(True)
        body = dict(reversed(list(env.body.items())))
        twin = Envelope(env.version, env.game_id, env.hand, env.step, env.sender, env.seq,
                        env.prev, env.kind, body)  # fmt: skip
        return [msg, encode_message(identities(cheater + 1)[cheater], twin)]

    return tamper


def late_twin(cheater: int, plays: int) -> Tamper:
    """``cheater`` sends with its ``plays``-th play another message for the step of its first
    (the body's keys reversed, re-signed), under the number after that play's: equivocation for
    one step, the cheater's numbers in between cut from the log with the rest of the game."""
    sent: list[SignedMessage] = []

    def tamper(player: int, msg: SignedMessage) -> list[SignedMessage]:
        env = msg.envelope
        if player != cheater or env.kind != "play":
            return [msg]
        sent.append(msg)
        if len(sent) != plays:
            return [msg]
        first = sent[0].envelope
        body = dict(reversed(list(first.body.items())))
        late = Envelope(first.version, first.game_id, first.hand, first.step, first.sender,
                        env.seq + 1, first.prev, first.kind, body)  # fmt: skip
        return [msg, encode_message(identities(cheater + 1)[cheater], late)]

    return tamper


def leaves(player: int, step: str) -> Chooser:
    """``player`` leaves the table when the game waits for ``step``."""

    def choose(i: int, p: GameProtocol) -> bool:
        if i != player or p.step.name != step or p.status is not Status.RUNNING:
            return False
        p.quit(NAMES[player])
        return True

    return choose


def gives_up(player: int, about: int, step: str) -> Chooser:
    """``player`` ends the game when it waits for ``step``, saying ``about`` has gone."""

    def choose(i: int, p: GameProtocol) -> bool:
        if i != player or p.step.name != step or p.status is not Status.RUNNING:
            return False
        p.give_up_on(about, 120)
        return True

    return choose


def goes_silent(
    player: int, step: str, clocks: tuple[int, ...] | None = None
) -> tuple[Chooser, Tamper]:
    """``player`` sends nothing from ``step`` on. Every other peer's clock runs out on it; or,
    given ``clocks``, only those peers' clocks run out, on whoever they wait for."""
    silent: list[bool] = []

    def choose(i: int, p: GameProtocol) -> bool:
        if i == player and p.step.name == step:
            silent.append(True)
        if i == player or not silent or (clocks is not None and i not in clocks):
            return False
        waiting = p.waiting_for()
        if clocks is None:
            waiting = [player] if player in waiting else []
        if p.status is not Status.RUNNING or not waiting:
            return False
        p.give_up_on(waiting[0], 120)
        return True

    def tamper(i: int, m: SignedMessage) -> list[SignedMessage]:
        return [] if i == player and silent else [m]

    return choose, tamper


def go_silent_together(players: tuple[int, ...], step: str) -> tuple[Chooser, Tamper]:
    """``players`` send nothing from ``step`` on, together; every other peer's clock runs out
    on each of them it waits for."""
    silent: list[bool] = []

    def choose(i: int, p: GameProtocol) -> bool:
        if i in players and p.step.name == step:
            silent.append(True)
        if i in players or not silent or p.status is not Status.RUNNING:
            return False
        waiting = [w for w in p.waiting_for() if w in players]
        if not waiting:
            return False
        p.give_up_on(waiting[0], 120)
        return True

    def tamper(i: int, m: SignedMessage) -> list[SignedMessage]:
        return [] if i in players and silent else [m]

    return choose, tamper


def comes_back(player: int, step: str) -> tuple[Chooser, Tamper]:
    """``player`` goes silent from ``step`` on until the others, their clocks run out, take
    its seat over; then it follows, asks its seat back with a fresh secret and plays again."""
    silent: list[bool] = []
    taken: list[bool] = []

    def choose(i: int, p: GameProtocol) -> bool:
        if i == player and p.step.name == step:
            silent.append(True)
        if i == player:
            if p.taken_over:
                taken.append(True)
            if p.wants_secret:
                p.come_back(secret(player, b"fresh"))
                return True
            return False
        if not silent or taken or p.status is not Status.RUNNING:
            return False
        if player not in p.waiting_for():
            return False
        p.give_up_on(player, 120)
        return True

    def tamper(i: int, m: SignedMessage) -> list[SignedMessage]:
        return [] if i == player and silent and not taken else [m]

    return choose, tamper


NEWCOMER = "gus"  # player 6 of the naming scheme: seed 0xA6 and secret 0xB6, 32 bytes each


def sits_down(player: int, step: str) -> tuple[Chooser, Tamper, Arrival]:
    """``player`` goes silent from ``step`` on, for good; every other peer's clock runs out on
    it and the table takes its seat over. Then a newcomer, caught up from player 0's log and
    the step under way (as a sync does), takes the dead peer's place on the network and asks
    for the seat (SPEC 6.15)."""
    silent: list[bool] = []
    came: list[GameProtocol] = []

    def choose(i: int, p: GameProtocol) -> bool:
        if i == player and p.step.name == step:
            silent.append(True)
        if i == player or not silent or came or p.status is not Status.RUNNING:
            return False  # the clocks stop once the newcomer is there: it acts in its turn
        if player in p.table_seats or player not in p.waiting_for():
            return False
        p.give_up_on(player, 120)
        return True

    def tamper(i: int, m: SignedMessage) -> list[SignedMessage]:
        return [] if i == player and silent and not came else [m]

    def arrive(protos: list[GameProtocol]) -> bool:
        if came or not all(player in p.table_seats for i, p in enumerate(protos) if i != player):
            return False
        me = Identity.from_seed(bytes([0xA6]) * 32)
        new = GameProtocol(GAME_ID, protos[0].host_key, me, secret=bytes([0xB6]) * 32)
        for raw in protos[0].entries:
            new.receive(decode_frame(raw))
        for m in protos[0].pending():
            new.receive(m)
        new.ask_seat(player, NEWCOMER, True)
        protos[player] = new
        came.append(new)
        return True

    return choose, tamper, arrive


def says_nolead(cheater: int) -> Chooser:
    """``cheater``, if it holds 2♣ at hand 1's first lead, signs ``nolead`` in place of leading
    it; every other peer's clock then runs out there and it says ``nolead`` too (SPEC 6.6)."""
    lied: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if p.status is not Status.RUNNING or (p.step.hand, p.step.name) != (1, "play.0"):
            return False
        if player == cheater:
            if not lied:
                view = p.choice_needed()
                assert view is not None and PlayCard(CARDS[0]) in view.legal, "not the holder"
                msg = sign_nolead(p._s)
                p._s.outbox.append(msg)
                p.receive(msg)
                lied.append(True)
            return True  # never leads
        return bool(lied) and p.roll_call()

    return choose


def _sealing_wrong_keys(seat: int) -> AbstractContextManager[Any]:
    """``seat`` seals the scalar 1 in place of each lock key it passes, with its own nonces:
    only the receiver can open the box, so only it can see."""

    def seal(params: Any, passer: int, positions: Any, keys: Any, ephemeral: Any) -> bytes:
        if passer == seat:
            keys = [(bytes(31) + b"\x01", nonce) for _, nonce in keys]
        return seal_box(params, passer, positions, keys, ephemeral)

    return mock.patch.object(deck_seat, "seal_box", seal)


def _false_alarm(seat: int, reason: str) -> AbstractContextManager[Any]:
    """``seat`` says its dealt cards are unsound when they are not."""
    real = SeatDeck._learn_hand

    def learn(self: SeatDeck) -> None:
        real(self)
        if self.seat == seat:
            self._alarm = self._alarm or reason

    return mock.patch.object(SeatDeck, "_learn_hand", learn)


# -- log files and entries ----------------------------------------------------------------------


def log_bytes(entries: list[bytes]) -> bytes:
    records = [struct.pack(">II", len(e), zlib.crc32(e)) + e for e in entries]
    return MAGIC + b"".join(records)


def steps(entries: list[bytes]) -> list[tuple[int, str]]:
    out = []
    for raw in entries:
        env = decode_frame(raw).envelope
        out.append((env.hand, env.step))
    return out


def resign(raw: bytes, signer: Identity, **changes: Any) -> bytes:
    """``raw`` with envelope fields replaced, signed by ``signer``."""
    env = decode_frame(raw).envelope
    fields = {name: getattr(env, name) for name in Envelope.__slots__}
    fields.update(changes)
    return encode_message(signer, Envelope(**fields)).raw


def rechain(entries: list[bytes], start: int) -> list[bytes]:
    """Entries from ``start`` on re-signed by their senders with ``prev`` fixed up.

    ``prev`` is the chain head before the first entry of the sender's step, so a rewritten entry
    leaves a log whose chain and signatures all hold.
    """
    ids = identities()
    out = list(entries[:start])
    at = steps(entries)
    head, step_head = GENESIS_HEAD, GENESIS_HEAD
    for i, raw in enumerate(entries):
        if i == 0 or at[i] != at[i - 1] or at[i][1] == "abort":
            step_head = head
        if i >= start:
            sender = decode_frame(raw).envelope.sender
            raw = resign(raw, ids[sender], prev=step_head)
            out.append(raw)
        head = chain(head, decode_frame(out[i]).envelope_bytes)
    return out


def find(entries: list[bytes], step: str, nth: int = 0) -> int:
    hits = [i for i, (_, name) in enumerate(steps(entries)) if name == step]
    return hits[nth]


def with_body(raw: bytes, signer: Identity, **changes: Any) -> bytes:
    body = dict(decode_frame(raw).envelope.body)
    body.update(changes)
    return resign(raw, signer, body=body)


# -- the vectors --------------------------------------------------------------------------------


def vectors() -> dict[str, tuple[str, bytes]]:
    """File name -> (what it is, file bytes)."""
    out: dict[str, tuple[str, bytes]] = {}
    for make in GROUPS.values():
        out.update(make())
    return out


def game_vectors() -> dict[str, tuple[str, bytes]]:
    """The honest game, its cheats, and the log tampered with after the fact."""
    ids = identities()
    honest = play()[0].entries
    out: dict[str, tuple[str, bytes]] = {
        "valid.log": ("a complete one-hand game to 10 points, four players", log_bytes(honest))
    }

    i = find(honest, "play.20")
    body = decode_frame(honest[i]).envelope.body
    sender = decode_frame(honest[i]).envelope.sender
    other = decode_frame(honest[find(honest, "play.21")]).envelope.body["card"]
    changed = list(honest)
    changed[i] = with_body(honest[i], ids[sender], card=other)
    out["changed_card.log"] = (
        f"{NAMES[sender]}'s play.20 (trick 6) shows {CARDS[other]} (the next card played) "
        f"instead of {CARDS[body['card']]}; re-signed by {NAMES[sender]}, and the rest of the log "
        "re-chained and re-signed by its senders",
        log_bytes(rechain(changed, i)),
    )

    a, b = find(honest, "play.30"), find(honest, "play.31")
    swapped = list(honest)
    swapped[a], swapped[b] = swapped[b], swapped[a]
    out["reordered.log"] = ("the entries of play.30 and play.31 swapped", log_bytes(swapped))

    i = find(honest, "play.12")
    env_bytes, sig = decode_frame(honest[i]).envelope_bytes, decode_frame(honest[i]).signature
    bad_sig = list(honest)
    bad_sig[i] = _frame(env_bytes, bytes([sig[0] ^ 1]) + sig[1:])
    out["bad_signature.log"] = ("one bit of play.12's signature flipped", log_bytes(bad_sig))

    data = log_bytes(honest)
    out["torn_tail.log"] = ("the valid log with its last 10 bytes cut off", data[:-10])
    cut = find(honest, "play.9")
    out["cut_mid_game.log"] = (
        "the valid log cut after play.8, at a record boundary",
        log_bytes(honest[:cut]),
    )

    i = find(honest, "play.16")
    victim = decode_frame(honest[i]).envelope.sender
    forger = (victim + 1) % len(ids)
    forged = list(honest)
    forged[i] = resign(honest[i], ids[forger])
    out["forged_sender.log"] = (
        f"{NAMES[victim]}'s play.16 replaced by the same envelope signed by {NAMES[forger]}",
        log_bytes(forged),
    )

    i = find(honest, "deal", 2)
    sender = decode_frame(honest[i]).envelope.sender
    keys = list(decode_frame(honest[i]).envelope.body["keys"])
    keys[5] = bytes(31) + b"\x05"
    broken = list(honest)
    broken[i] = with_body(honest[i], ids[sender], keys=keys)
    out["broken_commitment.log"] = (
        f"{NAMES[sender]}'s sixth deal key replaced by the scalar 5, which its commitment does "
        f"not match; re-signed by {NAMES[sender]}, the rest re-chained and re-signed",
        log_bytes(rechain(broken, i)),
    )

    cheated = play(renege(cheater=2))
    out["renege_caught.log"] = (
        f"{NAMES[2]} reneges once; {NAMES[0]}'s log, ending with the evidence: {NAMES[2]}'s "
        "own play of the suit it showed out of, and nothing of ann's",
        log_bytes(cheated[0].entries),
    )
    with _blind_to_voids():
        passed = play(renege(cheater=2))
    reporter = passed[0].entries
    reveal_end = max(i for i, (_, name) in enumerate(steps(reporter)) if name == "reveal") + 1
    out["renege.log"] = (
        "the same renege, played on by peers that ignore shown voids, up to the end-of-hand "
        "reveals and without the abort: a log in which every player let the renege pass",
        log_bytes(reporter[:reveal_end]),
    )
    return out


def rule_vectors() -> dict[str, tuple[str, bytes]]:
    """Honest games under the other table sizes and rule options."""
    out: dict[str, tuple[str, bytes]] = {}
    for players in (3, 5, 6):
        rules = Rules(players=players, target=10)
        out[f"{players}_players.log"] = (
            f"a complete one-hand game to 10 points, {players} players (salt 0)",
            log_bytes(finished(play(rules=rules, salt=b"0"), 1)),
        )
    out["no_pass.log"] = (
        "a one-hand game to 10 points with passing off: no pass steps (salt 2)",
        log_bytes(finished(play(rules=Rules(passing=False, target=10), salt=b"2"), 1)),
    )
    out["spot_hearts.log"] = (
        "a one-hand game to 10 points with spot hearts: hearts by rank, Q♠ 25 (salt 1)",
        log_bytes(finished(play(rules=Rules(spot_hearts=True, target=10), salt=b"1"), 1)),
    )
    out["jack_of_diamonds.log"] = (
        "a one-hand game to 10 points with J♦ scoring −10 to its taker (salt 1)",
        log_bytes(finished(play(rules=Rules(jack_of_diamonds=True, target=10), salt=b"1"), 1)),
    )
    rules = Rules(queen_breaks_hearts=True, target=10)
    records: list[HandRecord] = []
    protos = play(rules=rules, salt=b"1", policy=queen_then_hearts, records=records)
    trick = _heart_led_after_queen(rules, records[0])
    out["queen_breaks_hearts.log"] = (
        f"a one-hand game to 10 points with queen_breaks_hearts: Q♠ is played as soon as it may "
        f"be, a heart led whenever one may be, and trick {trick} is a heart led by a seat that "
        "holds other suits, before any heart was played (salt 1)",
        log_bytes(finished(protos, 1)),
    )
    rules = Rules(moon=Moon.CHOICE, target=1)
    protos = play(rules=rules, salt=b"3", policy=shooter(0))
    moon = _moon(protos, 0)
    out["moon_choice.log"] = (
        f"a one-hand game to 1 point with moon choice: seat {moon} shoots the moon and its "
        "moon step adds 26 to everyone else (salt 3; seat 0 plays high, the others low)",
        log_bytes(finished(protos, 1)),
    )
    rules = Rules(players=3, moon=Moon.NEGATIVE, target=1)
    protos = play(rules=rules, salt=b"11", policy=shooter(1))
    moon = _moon(protos, 0)
    out["moon_negative.log"] = (
        f"a game to 1 point, 3 players, negative moon: seat {moon} shoots the moon in hand 1 "
        "(−26, the others 0, so nobody reaches the target) and hand 2 ends the game (salt 11; "
        "seat 1 plays high, the others low)",
        log_bytes(finished(protos, 2)),
    )
    rules = Rules(players=3, ties=Ties.PLAY_ON, target=1)
    protos = play(rules=rules, salt=b"14")
    game = protos[0].game
    assert game is not None
    first = game.results[0].points
    assert max(first) >= 1 and first.count(min(first)) > 1
    out["ties_play_on.log"] = (
        f"a game to 1 point, 3 players, ties play on: hand 1 scores {list(first)}, the target "
        "is reached with the lowest total shared, so hand 2 is played (salt 14)",
        log_bytes(finished(protos, 2)),
    )
    return out


GONGZHU = Rules(game=GameKind.GONGZHU, limit=1)  # one hand: any loss ends the game


def exposing(policy: Policy) -> Policy:
    """Every seat exposes all it may; then ``policy`` plays."""

    def choose(seat: int, view: SeatView) -> Action:
        if view.phase is HandPhase.EXPOSE:
            return max(view.legal, key=lambda a: len(a.cards) if isinstance(a, Expose) else 0)
        return policy(seat, view)

    return choose


def claiming(seat: int, view: SeatView) -> Action:
    """A seat that claims the rest whenever it holds; otherwise its first legal action."""
    claims = [a for a in view.legal if isinstance(a, Claim)]
    return claims[0] if claims else lowest(seat, view)


def claims_too_soon(claimer: int) -> Chooser:
    """``claimer`` claims once on lead with a hand that can still lose a trick: refused."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != claimer or done or p.choice_needed() is None or p.game is None:
            return False
        hand, seat = p.game.hand, p.my_seat
        assert hand is not None and seat is not None
        if hand.trick or not hand.tricks or hand.claim_refusal(seat, hand.hands[seat]) is None:
            return False
        assert p.flow is not None
        p._send(p.step.name, {"claim": p.flow.make_shows(cards_of(hand.hands[seat]))})
        done.append(True)
        return True

    return choose


def false_exposure(cheater: int) -> tuple[Chooser, Tamper]:
    """``cheater`` exposes a card it does not hold: the open of its lowest card's position with
    that position's true key, naming another exposable card. The chooser makes the body from
    the cheater's deck when its exposure is due; the tamper puts it in place of the exposure its
    software sends, re-signed."""
    forged: list[dict[str, Any]] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != cheater or forged or p.step.kind is not StepKind.EXPOSE:
            return False
        assert p.flow is not None and p.flow.deck is not None
        hand = p.flow.my_hand()
        missing = next(c for c in (QUEEN_SPADES, JACK_DIAMONDS, TEN_CLUBS) if not hand >> c & 1)
        real = p.flow.deck.show(min(c for c in range(52) if hand >> c & 1))
        forged.append({"cards": [dataclasses.replace(real, card=missing).to_wire()]})
        return False

    def tamper(player: int, msg: SignedMessage) -> list[SignedMessage]:
        env = msg.envelope
        if player != cheater or env.kind != "expose" or not forged:
            return [msg]
        return [
            encode_message(
                identities(cheater + 1)[cheater], dataclasses.replace(env, body=forged[0])
            )
        ]

    return choose, tamper


def hides_exposure(cheater: int) -> Chooser:
    """``cheater`` exposes nothing though an option forces it to expose what it holds; its own
    engine checks the exposure as a stranger's, as a cheating client would."""

    def choose(player: int, p: GameProtocol) -> bool:
        if player != cheater or p.step.kind is not StepKind.EXPOSE or p.choice_needed() is None:
            return False
        assert p.game is not None and p.game.hand is not None and p.my_seat is not None
        hand = p.game.hand
        assert hand.hands[p.my_seat] & EXPOSABLE_MASK, "the cheater holds nothing to hide"
        hand.known &= ~(1 << p.my_seat)
        try:
            p._send(p.step.name, {"cards": []})
        finally:
            hand.known |= 1 << p.my_seat
        return True

    return choose


def gongzhu_vectors() -> dict[str, tuple[str, bytes]]:
    """Gong Zhu games: exposures through the deck, 全红, and two exposure cheats."""
    out: dict[str, tuple[str, bytes]] = {}
    records: list[HandRecord] = []
    protos = play(rules=GONGZHU, salt=b"gz0", policy=exposing(lowest), records=records)
    exposed = [cards_of(e or 0) for e in records[0].replay.exposures]
    assert sum(map(len, exposed)) == 4
    shown = ", ".join(
        f"{_name_at(protos, s)} {' '.join(str(CARDS[c]) for c in e)}"
        for s, e in enumerate(exposed)
        if e
    )
    out["gongzhu.log"] = (
        f"a one-hand Gong Zhu game to −1 (salt gz0): every seat exposes all it holds of Q♠ J♦ "
        f"10♣ A♥ ({shown}), each exposure the deck's open of the card",
        log_bytes(finished(protos, 1)),
    )
    records = []
    protos = play(rules=GONGZHU, salt=b"gz11", policy=exposing(shooter(3)), records=records)
    taker = next(s for s, t in enumerate(records[0].replay.taken) if t & HEARTS_MASK == HEARTS_MASK)
    out["gongzhu_all_hearts.log"] = (
        f"a one-hand Gong Zhu game to −1 (salt gz11; every seat exposes all it may, seat 3 plays "
        f"high): seat {taker} ({_name_at(protos, taker)}) takes all 13 hearts (全红), scoring "
        f"{records[0].replay.result.points[taker]:+d}",  # type: ignore[union-attr]
        log_bytes(finished(protos, 1)),
    )
    protos = play(rules=GONGZHU, salt=b"gz0", policy=exposing(claiming))
    out["gongzhu_claim.log"] = (
        f"the game of gongzhu.log with every seat claiming the rest as soon as its claim holds "
        f"(salt gz0): {_claims(protos)}",
        log_bytes(finished(protos, 1)),
    )
    protos = play(claims_too_soon(CHEATER), rules=GONGZHU, salt=b"gz0")
    out["gongzhu_claim_refused.log"] = (
        f"{NAMES[CHEATER]} claims the rest on lead while a card of its own can still lose "
        "(salt gz0): the claim is logged and refused, blaming no one, and the same seat plays in "
        "a play step of the same number; the game finishes",
        log_bytes(finished(protos, 1)),
    )
    protos = play(rules=Rules(claims=True, target=10), salt=b"c0", policy=claiming)
    out["hearts_claim.log"] = (
        f"Hearts with claims, to 10 points (salt c0), every seat claiming as soon as its claim "
        f"holds: {_claims(protos)}",
        log_bytes(finished(protos, protos[0].game.number if protos[0].game else 0)),
    )
    choose, tamper = false_exposure(CHEATER)
    protos = play(choose, rules=GONGZHU, salt=b"gz0", tamper=tamper)
    out["gongzhu_false_exposure.log"] = (
        f"{NAMES[CHEATER]} exposes a card it does not hold, with the true key of one of its own "
        f"positions; every peer names it at once; {NAMES[0]}'s log",
        log_bytes(protos[0].entries),
    )
    rules = Rules(game=GameKind.GONGZHU, limit=1, expose_all=True)
    protos = play(hides_exposure(CHEATER), rules=rules, salt=b"gz1")
    out["gongzhu_missed_exposure.log"] = (
        f"分牌全亮 (salt gz1): {NAMES[CHEATER]} exposes nothing while holding exposable cards; the "
        f"end-of-hand replay names it; {NAMES[0]}'s log, ending with the reveals",
        log_bytes(protos[0].entries),
    )
    return out


def holding_back(card: int) -> Policy:
    """Every seat exposes all it may but ``card``; then it plays its lowest legal card. With
    every exposable card dealt, three are exposed and, under 逼明, the fourth is forced out."""

    def choose(seat: int, view: SeatView) -> Action:
        if view.phase is HandPhase.EXPOSE:
            kept = [a for a in view.legal if isinstance(a, Expose) and card not in a.cards]
            return max(kept or view.legal, key=lambda a: len(getattr(a, "cards", ())))
        return lowest(seat, view)

    return choose


def _exposed(protos: list[GameProtocol], replay: HandState, leaving: int = 0) -> str:
    """Who exposed what in a hand, by name, but the cards of ``leaving``."""
    shown = [
        f"{_name_at(protos, seat)} {' '.join(str(CARDS[c]) for c in cards_of(mask & ~leaving))}"
        for seat, mask in enumerate(replay.exposures)
        if mask and mask & ~leaving
    ]
    return ", ".join(shown) or "nothing"


def _points(replay: HandState) -> list[int]:
    assert replay.result is not None
    return list(replay.result.points)


def _scored(rules: Rules, replay: HandState, exposed: int) -> list[int]:
    """What the cards each seat took in ``replay`` would score under ``rules`` with ``exposed``
    (the figure an option's vector is compared with)."""
    return [gongzhu_points(rules, taken, exposed) for taken in replay.taken]


def _off_colour_wins(replay: HandState) -> list[int]:
    """The tricks (1-based) taken by a card off the led suit's colour (同色垫牌)."""
    won = []
    for k, trick in enumerate(replay.tricks, 1):
        led = trick.cards[0] // 13 % 2  # clubs and spades 0 (black), diamonds and hearts 1
        off = [i for i, c in enumerate(trick.cards) if c // 13 % 2 != led]
        if off and trick.winner == trick.seat_of(off[0], replay.n):
            won.append(k)
    return won


def _one_hand(rules: Rules, policy: Policy = lowest) -> tuple[list[GameProtocol], HandRecord]:
    """A one-hand Gong Zhu game (salt gz0) and its hand as the end-of-hand audit found it."""
    records: list[HandRecord] = []
    protos = play(rules=rules, salt=b"gz0", policy=policy, records=records)
    (record,) = records
    return protos, record


def gongzhu_rule_vectors() -> dict[str, tuple[str, bytes]]:
    """Honest Gong Zhu games, one per option (salt gz0: with 4 players, gongzhu.log's deal);
    each about states the figures that show the option at work."""
    out: dict[str, tuple[str, bytes]] = {}
    ace = int(ACE_HEARTS)
    rules = dataclasses.replace(GONGZHU, force_fourth=True)
    protos, record = _one_hand(rules, holding_back(ace))
    replay = record.replay
    envs = [decode_frame(e).envelope for e in protos[0].entries]
    (fourth,) = [e for e in envs if e.kind == "expose_fourth"]
    holder = protos[0].seat_of[fourth.sender]
    assert record.held[holder] >> ace & 1 and replay.exposed == EXPOSABLE_MASK
    taker = next(s for s, t in enumerate(replay.taken) if t >> ace & 1)
    hidden = _scored(rules, replay, EXPOSABLE_MASK & ~(1 << ace))
    assert hidden[taker] != _points(replay)[taker]
    out["gongzhu_force_fourth.log"] = (
        f"逼明 (force_fourth), to −1 (salt gz0; every seat exposes all it may but A♥): the expose "
        f"step shows three cards ({_exposed(protos, replay, 1 << ace)}), so "
        f"{NAMES[fourth.sender]} (seat {holder}), holding A♥, shows it in the "
        f"expose_fourth step; seat {taker} takes A♥ and its hearts count double: points "
        f"{_points(replay)} (with A♥ left hidden {hidden})",
        log_bytes(finished(protos, 1)),
    )
    rules = dataclasses.replace(GONGZHU, expose_all_but_sheep=True)
    protos, record = _one_hand(rules)
    replay = record.replay
    sheep = next(s for s, h in enumerate(record.held) if h >> JACK_DIAMONDS & 1)
    assert replay.exposed == EXPOSABLE_MASK & ~(1 << JACK_DIAMONDS)
    bare = _scored(rules, replay, 0)
    assert bare != _points(replay)
    out["gongzhu_expose_all_but_sheep.log"] = (
        f"除羊全亮 (expose_all_but_sheep), to −1 (salt gz0; no seat exposes more than it must): "
        f"Q♠ 10♣ A♥ are exposed ({_exposed(protos, replay)}) and J♦ is not, though seat "
        f"{sheep} ({_name_at(protos, sheep)}) holds it: points {_points(replay)} (with nothing "
        f"exposed {bare})",
        log_bytes(finished(protos, 1)),
    )
    rules = dataclasses.replace(GONGZHU, hearts_by_rank=True)
    protos, record = _one_hand(rules)
    replay = record.replay
    plain = _scored(GONGZHU, replay, replay.exposed)
    assert plain != _points(replay)
    out["gongzhu_hearts_by_rank.log"] = (
        f"按点计分 (hearts_by_rank), to −1 (salt gz0): 2♥ 3♥ score −2 −3, 4♥ −10, 5♥ to 9♥ minus "
        f"their rank: points {_points(replay)} (the same tricks score {plain} without the "
        "option)",
        log_bytes(finished(protos, 1)),
    )
    rules = dataclasses.replace(GONGZHU, same_colour_discard=True)
    protos, record = _one_hand(rules)
    replay = record.replay
    won = _off_colour_wins(replay)
    assert won
    trick = replay.tricks[won[0] - 1]
    discard = CARDS[trick.cards[(trick.winner - trick.leader) % replay.n]]
    out["gongzhu_same_colour_discard.log"] = (
        f"同色垫牌 (same_colour_discard), to −1 (salt gz0): tricks {won} are taken by the first "
        f"card off the led suit's colour; in trick {won[0]} "
        f"({' '.join(str(CARDS[c]) for c in trick.cards)}, seat {trick.leader} leading) seat "
        f"{trick.winner} discards {discard} and takes it; points {_points(replay)}",
        log_bytes(finished(protos, 1)),
    )
    rules = dataclasses.replace(GONGZHU, partners=True)
    protos = play(rules=rules, salt=b"gz0")
    game = protos[0].game
    assert game is not None and game.result is not None
    results, winners = game.result.results, list(game.result.winners)
    alone = [s for s in range(4) if results[s] > 0]
    assert winners != alone
    out["gongzhu_partners.log"] = (
        f"打对家 (partners), to −1 (salt gz0): results {list(results)}; seats 0 and 2 add up to "
        f"{results[0] + results[2]}, seats 1 and 3 to {results[1] + results[3]}, so the winners "
        f"are seats {winners} (alone, the seats with a positive result would be {alone})",
        log_bytes(finished(protos, 1)),
    )
    rules = dataclasses.replace(GONGZHU, players=5)
    records: list[HandRecord] = []
    protos = play(rules=rules, salt=b"gz0", records=records)
    game = protos[0].game
    assert game is not None and game.result is not None
    firsts = [r.replay.tricks[0] for r in records]
    assert all(t.leader == (r.replay.dealer + 1) % 5 for r, t in zip(records, firsts, strict=True))
    leads = "; ".join(
        f"hand {r.number}: seat {t.leader} leads {CARDS[t.cards[0]]}"
        for r, t in zip(records, firsts, strict=True)
    )
    out["gongzhu_5_players.log"] = (
        f"Gong Zhu, 5 players, to −1 (salt gz0): no 2♣ or 2♦ is dealt, so the dealer's left "
        f"leads the first trick ({leads}); hand 1 scores {_points(records[0].replay)}, no total "
        f"at −1, so hand 2 is played: totals {list(game.totals)}, results "
        f"{list(game.result.results)} (5 × total − Σ), winners {list(game.result.winners)}",
        log_bytes(finished(protos, len(records))),
    )
    return out


def _first_leader() -> int:
    """The player who leads 2♣ in hand 1 of the valid game."""
    envs = [decode_frame(e).envelope for e in play()[0].entries]
    return next(e.sender for e in envs if (e.hand, e.step) == (1, "play.0"))


def stop_vectors() -> dict[str, tuple[str, bytes]]:
    """Games that stop early, each as one honest peer logged it."""
    out: dict[str, tuple[str, bytes]] = {}
    with _sealing_wrong_keys(CHEATER):
        protos = play()
    passer = _name_at(protos, CHEATER)
    out["alarm.log"] = (
        f"seat {CHEATER} ({passer}) seals wrong lock keys for the cards it passes; its receiver "
        "raises an alarm at the passed checkpoint, every seat reveals, and the audit names the "
        f"passer; {NAMES[0]}'s log, ending with the reveals that prove it",
        log_bytes(protos[0].entries),
    )
    with _false_alarm(CHEATER, "dealt position 0 does not hold a fresh card"):
        protos = play()
    out["false_alarm.log"] = (
        f"seat {CHEATER} ({_name_at(protos, CHEATER)}) raises an alarm at the dealt checkpoint "
        "with nothing wrong; every seat reveals, the audit finds no fault, and the alarming seat "
        f"is blamed; {NAMES[0]}'s log, ending with the reveals",
        log_bytes(protos[0].entries),
    )
    protos = play(tamper=twin_play(CHEATER))
    out["equivocation.log"] = (
        f"{NAMES[CHEATER]} sends its first play twice, the second in other bytes under the same "
        f"number; {NAMES[0]}'s log, cut back to where that play's step began and ending with "
        "both frames in byte order, nothing of ann's own: every honest peer's log is the same",
        log_bytes(protos[0].entries),
    )
    protos = play(tamper=late_twin(CHEATER, 4))
    honest = [p for i, p in enumerate(protos) if i != CHEATER]
    assert all(p.abort is not None and p.abort.reason == ONE_STEP for p in honest)
    assert len({tuple(p.entries) for p in honest}) == 1
    out["late_equivocation.log"] = (
        f"{NAMES[CHEATER]} sends, with its fourth play, another message for the step of its "
        "first (in other bytes) under the number after that play's; "
        f"{NAMES[0]}'s log, cut back to where the first play's step began and ending with both "
        f"frames in byte order: {NAMES[CHEATER]}'s numbers in between are not in it",
        log_bytes(protos[0].entries),
    )
    protos = play(leaves(CHEATER, "play.5"))
    out["left.log"] = (
        f"{NAMES[CHEATER]} leaves at play.5: the others vote with its signed leave as evidence, "
        f"show their escrow shares of its secret, and the table plays its seat to the end; "
        f"{NAMES[0]}'s log, the same as every survivor's",
        log_bytes(protos[0].entries),
    )
    silent, drop = goes_silent(CHEATER, "play.5")
    protos = play(silent, tamper=drop)
    out["taken_over.log"] = (
        f"{NAMES[CHEATER]} goes silent at play.5: each other peer's clock runs out, they vote, "
        f"show their shares, and the table plays its seat to the end; {NAMES[0]}'s log",
        log_bytes(protos[0].entries),
    )
    together, drop = go_silent_together((1, CHEATER), "play.5")
    protos = play(together, tamper=drop, rules=Rules(players=4, target=30))
    out["voided.log"] = (
        f"a game to 30 points: {NAMES[1]} and {NAMES[CHEATER]} go silent together at play.5 of "
        "hand 1; the others' clocks run out on both, and neither secret can be recovered (each "
        "one's escrow needs the other's share), so their votes void hand 1: it scores nothing, "
        "and hand 2 is dealt among the rest, the two seats open, played by the table from a "
        f"public stand-in secret, to the end; {NAMES[0]}'s log",
        log_bytes(protos[0].entries),
    )
    protos = play(gives_up(0, CHEATER, "play.5"))
    out["unfounded_vote.log"] = (
        f"{NAMES[0]} alone votes to take {NAMES[CHEATER]}'s seat over at play.5; the others "
        f"hold {NAMES[CHEATER]}'s play and answer with it: the vote changes nothing and is not "
        "logged, and the log is the valid game's",
        log_bytes(protos[0].entries),
    )
    back, drop = comes_back(CHEATER, "play.5")
    protos = play(back, tamper=drop, rules=Rules(players=4, target=40))
    out["reclaimed.log"] = (
        f"a game to 40 points: {NAMES[CHEATER]} goes silent at play.5 of hand 1 and is taken "
        "over; it follows, signing "
        "nothing, and at the end of the hand its signed reclaim (a fresh secret's pass key) is "
        "carried in the others' seats messages with their own fresh keys; each escrows a fresh "
        "secret in rekey, its rejoin (its escrow) is carried in welcome and every box opens, so "
        "every seat switches to its fresh keys and the next hand deals it normally again; "
        f"{NAMES[0]}'s log, the same as every peer's, its own included",
        log_bytes(protos[0].entries),
    )
    liar = _first_leader()
    protos = play(says_nolead(liar))
    assert all(p.abort is not None and p.abort.culprit == liar for p in protos)
    assert len({tuple(p.entries) for p in protos}) == 1
    out["nobody_led.log"] = (
        f"{NAMES[liar]} holds 2♣ at hand 1's first lead and signs nolead in place of leading it; "
        "each other peer's clock runs out there and it signs nolead too, so the four noleads are "
        "the step's parts, in player order, and the hand stops: every seat reveals, and the "
        f"reveals show 2♣ in {NAMES[liar]}'s hand; {NAMES[0]}'s log, the same as every peer's",
        log_bytes(protos[0].entries),
    )
    silent, drop = goes_silent(CHEATER, "play.5", clocks=(0,))
    protos = play(silent, tamper=drop)
    out["claim.log"] = (
        f"{NAMES[CHEATER]} goes silent at play.5 and only {NAMES[0]}'s clock runs out: its vote "
        f"is never answered, its clock runs out on {NAMES[1]} too, and it ends the game on its "
        f"own word, an unproven claim that blames no one; {NAMES[0]}'s log, ending with its "
        "signed abort",
        log_bytes(protos[0].entries),
    )
    return out


def newcomer_vectors() -> dict[str, tuple[str, bytes]]:
    """A seat the table plays goes to a newcomer, through the sit of SPEC 6.15."""
    choose, tamper, arrive = sits_down(CHEATER, "play.5")
    rules = Rules(target=40, open_seats=OpenSeats.ANYONE)
    protos = play(choose, tamper=tamper, arrive=arrive, rules=rules)
    entries = finished(protos, protos[0].game.number if protos[0].game else 0)
    assert len({tuple(p.entries) for p in protos}) == 1  # the newcomer's log too
    assert protos[CHEATER].holders[CHEATER].name == NEWCOMER
    envs = [decode_frame(e).envelope for e in entries]
    seats = next(e for e in envs if e.kind == "seats")
    (carried,) = {decode_frame(raw).envelope.kind for raw in seats.body["reclaims"]}
    assert carried == "sit"
    hands = protos[0].game.number if protos[0].game else 0
    return {
        "sit.log": (
            f"a game to 40 points whose rules let anyone take an open seat: {NAMES[CHEATER]} "
            f"goes silent at play.5 of hand 1 and the table takes its seat over; a newcomer, "
            f"{NEWCOMER} (seed 0xA6, secret 0xB6), follows the game from {NAMES[0]}'s log and "
            f"signs a sit for {NAMES[CHEATER]}'s seat for hand {seats.hand}; the others carry it "
            "in their seats messages, each escrows a fresh secret in rekey, the newcomer's rejoin "
            "(signed by its own key) is carried in welcome and every box opens, so from hand "
            f"{seats.hand} on {NEWCOMER} holds player {CHEATER} (seat "
            f"{protos[0].seat_of[CHEATER]}) and signs for it, to the end of hand {hands}; "
            f"{NAMES[0]}'s log, the same as every peer's, the newcomer's included",
            log_bytes(entries),
        )
    }


def _claims(protos: list[GameProtocol]) -> str:
    """Who claimed, at which step, in player 0's log."""
    envs = [decode_frame(e).envelope for e in protos[0].entries]
    made = [
        f"{NAMES[env.sender]} at hand {env.hand} {env.step}" for env in envs if "claim" in env.body
    ]
    assert made, "nobody claimed"
    return "claims by " + ", ".join(made)


def _name_at(protos: list[GameProtocol], seat: int) -> str:
    return NAMES[protos[0].player_at[seat]]


def _moon(protos: list[GameProtocol], hand: int) -> int:
    """The seat that shot the moon in ``hand`` (0-based) of the game."""
    game = protos[0].game
    assert game is not None
    moon = game.results[hand].moon
    assert moon is not None
    return moon


def _heart_led_after_queen(rules: Rules, record: HandRecord) -> int:
    """The first trick (1-based) led with a heart while hearts were unbroken, Q♠ had been played
    and the leader held another suit: a lead only queen_breaks_hearts allows."""
    held = record.held
    played = 0
    for k, trick in enumerate(record.replay.tricks, 1):
        lead = trick.cards[0]
        hand = held[trick.leader] & ~played
        if (
            1 << lead & HEARTS_MASK
            and not played & HEARTS_MASK
            and played >> QUEEN_SPADES & 1
            and hand & ~HEARTS_MASK
        ):
            return k
        for c in trick.cards:
            played |= 1 << c
    raise AssertionError("no heart was led on the strength of Q♠")


@contextlib.contextmanager
def _blind_to_voids() -> Iterator[None]:
    """Peers that do not notice a seat playing a suit it showed out of (as older peers did)."""
    real = HandState._shown_out
    HandState._shown_out = lambda self, seat, suit: 0  # type: ignore[method-assign]
    try:
        yield
    finally:
        HandState._shown_out = real  # type: ignore[method-assign]


def _frame(envelope_bytes: bytes, signature: bytes) -> bytes:
    return pack([envelope_bytes, signature])


def expected(files: dict[str, tuple[str, bytes]], where: Path) -> dict[str, Any]:
    """What the audit reports for each file, as written to expected.json."""
    out: dict[str, Any] = {}
    for name, (about, _) in files.items():
        report = audit_log(where / name).to_json()
        out[name] = {
            "about": about,
            "exit": 0 if report["valid"] else 4,
            "valid": report["valid"],
            "status": report["status"],
            "abort": report["abort"],
            "takeovers": report["takeovers"],
            "returns": report["returns"],
            "voids": report["voids"],
            "final_hash": report["final_hash"],
            "problems": report["problems"],
        }
    return out


# The vectors by how they are made, so the tests can reproduce each group on its own.
GROUPS: dict[str, Callable[[], dict[str, tuple[str, bytes]]]] = {
    "game": game_vectors,
    "rules": rule_vectors,
    "stops": stop_vectors,
    "gongzhu": gongzhu_vectors,
    "gongzhu_rules": gongzhu_rule_vectors,
    "newcomer": newcomer_vectors,
}


def main() -> None:
    DIR.mkdir(parents=True, exist_ok=True)
    files = vectors()
    for name, (_, data) in files.items():
        (DIR / name).write_bytes(data)
    table = expected(files, DIR)
    (DIR / "expected.json").write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
