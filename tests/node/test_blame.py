"""Blame is always right: every attack of a hostile seat or of anyone on the path, in memory.

The invariant of every test: no honest seat is ever named, and every honest peer reaches the
same verdict, with the same evidence, in byte-identical logs that the audit reads alike.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hearts_p2p.audit import audit_log
from hearts_p2p.bots import make_bot
from hearts_p2p.deck.curve import CARD_POINTS
from hearts_p2p.game import GameProtocol, LocalTable, Status, Termination
from hearts_p2p.log import GameLog
from hearts_p2p.rules import Rules
from hearts_p2p.wire import (
    PROTOCOL_VERSION,
    Envelope,
    SignedMessage,
    WireError,
    decode_frame,
    encode_message,
    pack,
)

from .table import Table, identities

RULES = Rules(players=4, target=10)
CHEATER = 2
VICTIM = 1


def honest(table: Table) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i != CHEATER]


def resigned(table: Table, msg: SignedMessage, **changes: Any) -> SignedMessage:
    """``msg`` with some envelope fields changed, signed by its sender."""
    env = msg.envelope
    fields = {f: getattr(env, f) for f in Envelope.__slots__}
    fields.update(changes)
    return encode_message(table.ids[env.sender], Envelope(**fields))


def assert_one_verdict(table: Table, culprit: int, *, evidence: int) -> None:
    """Every honest peer names ``culprit`` as a proven cheat, with the same evidence, in the
    same log; the audit of that log says the same."""
    verdicts = {(p.abort.culprit, p.abort.evidence) for p in honest(table) if p.abort}
    assert all(p.status is Status.ABORTED for p in honest(table)), [p.abort for p in honest(table)]
    assert len(verdicts) == 1, verdicts
    ((named, proof),) = verdicts
    assert named == culprit and len(proof) == evidence
    assert all(
        p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
        for p in honest(table)
    )
    assert len({tuple(p.entries) for p in honest(table)}) == 1


def audit_of(tmp_path: Path, p: GameProtocol) -> dict[str, Any]:
    path = tmp_path / "peer.log"
    log = GameLog.open(path)
    for e in p.entries:
        log.append(e)
    log.close()
    report = audit_log(path)
    assert report.valid, report.problems
    out: dict[str, Any] = report.to_json()
    return out


def overlong(raw: bytes) -> bytes:
    """The same frame with its envelope's length written in a longer form than needed."""
    msg = decode_frame(raw)
    env, sig = msg.envelope_bytes, msg.signature
    return b"\x92" + b"\xc6" + len(env).to_bytes(4, "big") + env + pack(sig)


# -- 1. a genuine frame re-wrapped -------------------------------------------------------------


def test_a_rewrapped_frame_is_refused_by_the_decoder() -> None:
    table = Table(RULES, seed=1)
    table.protos[0].propose(table.genesis)
    genuine = table.protos[0].drain()[0][0]
    with pytest.raises(WireError) as e:
        decode_frame(overlong(genuine.raw))
    assert e.value.code == "not_canonical"
    inner = msgpack.packb([msgpack.packb(genuine.envelope.to_list()), genuine.signature])
    assert decode_frame(inner).raw == genuine.raw  # the canonical form is the one frame


def test_a_rewrapped_frame_past_the_decoder_is_the_same_message(tmp_path: Path) -> None:
    """Even a frame that reached the protocol in other outer bytes is judged by its signed
    envelope alone: the same message, never two."""
    table = Table(RULES, seed=2)
    done: list[bool] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == VICTIM and msg.envelope.kind == "play" and not done:
            twin = SignedMessage(msg.envelope, msg.envelope_bytes, msg.signature, overlong(msg.raw))
            table.queue += [(j, twin) for j in range(4) if j != sender]
            done.append(True)
        return msg

    table.tamper = tamper
    table.run()
    assert done
    assert all(p.status is Status.FINISHED for p in table.protos), [p.abort for p in table.protos]
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert audit_of(tmp_path, table.protos[0])["status"] == "finished"


# -- 2. different messages to different peers --------------------------------------------------


def equivocate(table: Table, kind: str, change: Any) -> list[bool]:
    """The cheater sends its first ``kind`` message as is to player 0, changed to the rest."""
    done: list[bool] = []

    def route(sender: int, to: int, msg: SignedMessage) -> SignedMessage | None:
        if sender != CHEATER or msg.envelope.kind != kind or to == 0:
            return msg
        if done and done[0] is not True:
            return done[0]  # type: ignore[return-value]
        body = change(dict(msg.envelope.body))
        twin = resigned(table, msg, body=body)
        assert twin.envelope_bytes != msg.envelope_bytes
        done[:] = [twin]  # type: ignore[list-item]
        return twin

    table.route = route
    return done


def _other_deck(body: dict[str, Any]) -> dict[str, Any]:
    deck = list(body["deck"])
    deck[0], deck[1] = deck[1], deck[0]
    return {**body, "deck": deck}


@pytest.mark.parametrize(
    ("kind", "change"),
    [
        ("shuffle", _other_deck),
        ("dealt", lambda b: {"alarm": "my cards are wrong"}),
        ("pass_commit", lambda b: {**b, "digest": bytes(32)}),
        ("accept", lambda b: {"genesis": bytes(32)}),
        ("echo_lock", lambda b: {**b, "digest": bytes(32)}),
    ],
    ids=["shuffle", "dealt", "pass_commit", "accept", "echo_lock"],
)
def test_different_messages_to_different_peers_are_proven_equivocation(
    kind: str, change: Any, tmp_path: Path
) -> None:
    table = Table(RULES, seed=3)
    done = equivocate(table, kind, change)
    table.run()
    assert done
    assert_one_verdict(table, CHEATER, evidence=2)
    report = audit_of(tmp_path, honest(table)[0])
    seat = table.protos[0].seat_of[CHEATER] if table.protos[0].seat_of else None
    assert report["status"] == "aborted"
    assert report["abort"]["ending"] == "cheat proven"
    assert report["abort"]["blamed"].endswith(f"(p{CHEATER})")
    if seat is not None:
        assert report["abort"]["blamed"].startswith(f"seat {seat} ")


# -- 3 and 4. accusations --------------------------------------------------------------------


def accuse(table: Table, evidence: list[bytes], at: str = "play.6") -> list[bool]:
    """The cheater, at step ``at``, sends an abort naming the victim, then plays no more."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER:
            return False
        if done:
            return p.choice_needed() is not None and p.status is Status.RUNNING and False
        if p.step.name != at or p.identity is None or p.me is None:
            return False
        body = {"reason": "p1 cheated", "culprit": VICTIM, "evidence": evidence}
        env = Envelope(PROTOCOL_VERSION, p.game_id, p.step.hand, "abort", p.me,
                       p.next_seq, p.head, "abort", body)  # fmt: skip
        msg = encode_message(table.ids[CHEATER], env)
        table.queue += [(j, msg) for j in range(4) if j != CHEATER]
        done.append(True)
        return False

    table.choose = choose
    return done


@pytest.mark.parametrize("junk", [[], [b"\x00garbage"], "valid"], ids=["none", "junk", "genuine"])
def test_an_accusation_without_proof_names_no_one(junk: Any) -> None:
    """The accused is never blamed and no honest peer signs the accusation again; the game
    goes on past it."""
    table = Table(RULES, seed=4)
    evidence: list[bytes] = []
    if junk == "valid":
        # A genuine message of the victim's, which proves nothing against it.
        table.protos[0].propose(table.genesis)
        evidence = [table.protos[0].drain()[0][0].raw]
        table = Table(RULES, seed=4)
    elif junk:
        evidence = junk
    done = accuse(table, evidence)
    table.run()
    assert done
    for p in honest(table):
        assert p.abort is None or p.abort.blamed is None, p.abort
        assert not any(decode_frame(e).envelope.kind == "abort" for e in p.entries)
    assert len({tuple(p.entries) for p in honest(table)}) == 1


# -- 5. a play in another seat's name -----------------------------------------------------------


def test_a_play_in_the_name_of_the_seat_on_turn_names_the_forger(tmp_path: Path) -> None:
    table = Table(RULES, seed=5)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if done or p.step.name != "play.9" or p.choice_needed() is None or player == CHEATER:
            return False
        # The cheater signs this seat's play for it: the same step, the seat's own number.
        env = Envelope(PROTOCOL_VERSION, p.game_id, p.step.hand, p.step.name, player,
                       p.next_seq, p.step.prev, "play",
                       {"kind": "open", "seat": p.my_seat, "position": 0, "card": 0,
                        "key": bytes(31) + b"\x01", "nonce": bytes(16)})  # fmt: skip
        forged = encode_message(table.ids[CHEATER], env)
        table.queue += [(j, forged) for j in range(4) if j != CHEATER]
        done.append(True)
        return False

    table.choose = choose
    table.run()
    assert done
    assert_one_verdict(table, CHEATER, evidence=1)
    report = audit_of(tmp_path, honest(table)[0])
    assert report["abort"]["blamed"].endswith(f"(p{CHEATER})")
    assert "in another player's name" in report["abort"]["reason"]


# -- a hostile seat whose behaviour is drawn at random -------------------------------------------

BEHAVIOURS = ["withhold", "duplicate", "rewrap", "equivocate", "accuse", "forge", "for_other"]


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(1, 10_000),
    acts=st.lists(
        st.tuples(st.sampled_from(BEHAVIOURS), st.integers(0, 120), st.integers(0, 3)),
        min_size=1,
        max_size=4,
    ),
)
def test_a_random_hostile_seat_never_gets_an_honest_seat_named(
    seed: int, acts: list[tuple[str, int, int]]
) -> None:
    table = hostile_game(seed, acts)
    named = {p.abort.blamed for p in honest(table) if p.abort is not None}
    assert named <= {CHEATER, None}, [p.abort for p in honest(table)]
    proven = [p.abort for p in honest(table) if p.abort is not None and p.abort.blamed is not None]
    verdicts = {(a.culprit, a.evidence) for a in proven}
    if verdicts:
        assert len(verdicts) == 1
        assert all(
            p.abort is not None and p.abort.termination is Termination.CHEAT_PROVEN
            for p in honest(table)
        )
        assert len({tuple(p.entries) for p in honest(table)}) == 1


def hostile_game(seed: int, acts: list[tuple[str, int, int]]) -> Table:
    """A game where the cheater does each ``(what, at its n-th message, to whom)``."""
    table = Table(Rules(players=4, target=5), seed=seed)
    plan = {when: (what, to) for what, when, to in acts}
    sent = [0]
    held: list[SignedMessage] = []

    def route(sender: int, to: int, msg: SignedMessage) -> SignedMessage | None:
        if sender != CHEATER:
            return msg
        what, target = plan.get(sent[0], ("", -1))
        if to == 3:
            sent[0] += 1
        if what == "withhold" and to == target:
            return None
        if what == "duplicate":
            table.queue.append((to, msg))
        if what == "rewrap":
            twin = SignedMessage(msg.envelope, msg.envelope_bytes, msg.signature, overlong(msg.raw))
            table.queue.append((to, twin))
        if what == "equivocate" and to == target and msg.envelope.kind != "genesis":
            body = dict(reversed(list(msg.envelope.body.items())))
            twin = resigned(table, msg, body=body)
            if twin.envelope_bytes != msg.envelope_bytes:
                return twin
        if what == "accuse" and to == target:
            env = Envelope(
                PROTOCOL_VERSION,
                msg.envelope.game_id,
                msg.envelope.hand,
                "abort",
                CHEATER,
                msg.envelope.seq + 1,
                msg.envelope.prev,
                "abort",
                {"reason": "x", "culprit": target, "evidence": [m.raw for m in held]},
            )
            table.queue.append((to, encode_message(table.ids[CHEATER], env)))
        if what == "forge" and to == target:
            env = Envelope(**{**{f: getattr(msg.envelope, f) for f in Envelope.__slots__},
                              "sender": target})  # fmt: skip
            table.queue.append((to, encode_message(table.ids[CHEATER], env)))
        if what == "for_other":
            held.append(msg)
        return msg

    table.route = route
    table.run()
    return table


# -- every deck cheat, through the node ---------------------------------------------------------


def _swap(field: str, i: int, j: int) -> Any:
    def change(body: dict[str, Any]) -> dict[str, Any]:
        items = list(body[field])
        items[i] = items[j]
        return {**body, field: items}

    return change


def _set(field: str, value: Any, index: int | None = None) -> Any:
    def change(body: dict[str, Any]) -> dict[str, Any]:
        if index is None:
            return {**body, field: value}
        items = list(body[field])
        items[index] = value
        return {**body, field: items}

    return change


DECK_CHEATS = {
    "shuffle: a duplicate entry": ("shuffle", _swap("deck", 1, 0)),
    "shuffle: not a curve point": ("shuffle", _set("deck", b"\xff" * 32, 0)),
    "shuffle: a card point": ("shuffle", _set("deck", CARD_POINTS[5], 3)),
    "lock: a duplicate entry": ("lock", _swap("deck", 1, 0)),
    "lock: not a curve point": ("lock", _set("deck", b"\xff" * 32, 2)),
    "lock: a commitment short": ("lock", lambda b: {**b, "commitments": b["commitments"][:-1]}),
    "deal: a wrong key": ("deal", _set("keys", bytes(31) + b"\x02", 0)),
    "pass: another nonce": ("pass_reveal", _set("nonce", bytes(16))),
    "reveal: another shuffle key": ("reveal", _set("shuffle_key", bytes(31) + b"\x03")),
    "reveal: a lock key shown in a clean hand": (
        "reveal",
        _set("lock_keys", [bytes(31) + b"\x03"]),
    ),
    "play: another card named": ("play", lambda b: {**b, "card": (b["card"] + 1) % 52}),
    "remix: a duplicate entry": ("remix", _swap("deck", 1, 0)),
    "remix: a card point": ("remix", _set("deck", CARD_POINTS[7], 4)),
    "remix: an entry short": ("remix", lambda b: {**b, "deck": b["deck"][:-1]}),
    "reveal: a remix key shown in a clean hand": (
        "reveal",
        _set("remix_keys", [bytes(31) + b"\x03"]),
    ),
    "reveal: a pass secret shown in a clean hand": ("reveal", _set("pass_secret", bytes(32))),
    "remix: a reused intermediate": (
        "remix",
        lambda b: {**b, "proof": [b["proof"][0], *b["proof"][:-1]]},
    ),
    "remix: a round short": ("remix", lambda b: {**b, "proof": b["proof"][:-1]}),
    "remix_share: not its commitment": ("remix_share", _set("share", bytes(32))),
    "remix_answer: another round's answer": (
        "remix_answer",
        lambda b: {
            **b,
            "orders": b["orders"][1:] + b["orders"][:1],
            "keys": b["keys"][1:] + b["keys"][:1],
        },
    ),
    "remix_answer: another witness's key": (
        "remix_answer",
        _set("keys", [bytes(31) + b"\x05"] * 13, 0),
    ),
}


@pytest.mark.parametrize("cheat", list(DECK_CHEATS))
def test_every_deck_cheat_is_named_alike_by_every_honest_peer(cheat: str, tmp_path: Path) -> None:
    kind, change = DECK_CHEATS[cheat]
    table = Table(RULES, seed=6)
    done: list[bool] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender != CHEATER or msg.envelope.kind != kind or done:
            return msg
        done.append(True)
        return resigned(table, msg, body=change(dict(msg.envelope.body)))

    table.tamper = tamper
    table.run()
    assert done
    verdicts = {(p.abort.blamed, p.abort.evidence) for p in honest(table) if p.abort}
    assert len(verdicts) == 1 and all(p.abort is not None for p in honest(table)), verdicts
    assert next(iter(verdicts))[0] == CHEATER
    assert len({tuple(p.entries) for p in honest(table)}) == 1
    report = audit_of(tmp_path, honest(table)[0])
    assert report["abort"]["blamed"].endswith(f"(p{CHEATER})")


# -- replays of genuine messages ----------------------------------------------------------------


def test_genuine_messages_replayed_from_another_game_or_hand_blame_no_one(tmp_path: Path) -> None:
    """An outsider replays, to every peer, the players' genuine messages of another game under
    the same keys, and of an earlier hand of this one: not this game's, or copies of what is
    held, they are dropped; the game finishes and every log is the same."""
    secrets = [bytes([i + 9]) * 32 for i in range(4)]
    bots = [make_bot("heuristic", i) for i in range(4)]
    other = LocalTable(RULES, identities(4), secrets, bytes(reversed(range(16))), bots)
    other.run()  # the same players, with the same keys, at another table
    foreign = [decode_frame(e) for e in other.protos[0].entries]
    table = Table(RULES, seed=7)
    earlier: list[SignedMessage] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        earlier.append(msg)
        if len(earlier) % 10 == 0:
            table.queue += [(j, earlier[len(earlier) // 2]) for j in range(4)]
            table.queue += [(j, foreign[len(earlier) % len(foreign)]) for j in range(4)]
        return msg

    table.tamper = tamper
    table.run()
    assert all(p.status is Status.FINISHED for p in table.protos), [p.abort for p in table.protos]
    assert len({tuple(p.entries) for p in table.protos}) == 1
    assert all(p.dropped > 0 for p in table.protos)
    assert audit_of(tmp_path, table.protos[1])["status"] == "finished"


def test_the_audit_takes_no_log_owner_s_word_that_another_player_left(tmp_path: Path) -> None:
    """A log whose owner signs that another seat left is not a departure: only a player's own
    word says it leaves, so the audit finds the entry out of place."""
    table = Table(RULES, seed=11)

    def choose(player: int, p: GameProtocol) -> bool:
        if player != 0 or p.step.name != "play.5" or p.status is not Status.RUNNING:
            return False
        p.give_up_on(CHEATER, 120)
        return True

    table.choose = choose
    table.run()
    owner = table.protos[0]
    last = decode_frame(owner.entries[-1])
    body = {**last.envelope.body, "ending": "left", "reason": "p2 left the table"}
    entries = [*owner.entries[:-1], resigned(table, last, body=body).raw]
    path = tmp_path / "left.log"
    log = GameLog.open(path)
    for e in entries:
        log.append(e)
    log.close()
    report = audit_log(path)
    assert not report.valid and report.abort is None


def test_a_forgery_sent_to_others_only_reaches_the_player_it_names() -> None:
    """The cheat signs a play in player 1's name and sends it to player 3 alone: the relay of
    a forgery goes to the player it names too, so all honest peers reach the same verdict."""
    table = Table(RULES, seed=5)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if done or player != 1 or p.step.name != "play.9" or p.choice_needed() is None:
            return False
        env = Envelope(PROTOCOL_VERSION, p.game_id, p.step.hand, p.step.name, player,
                       p.next_seq, p.step.prev, "play",
                       {"kind": "open", "seat": p.my_seat, "position": 0, "card": 0,
                        "key": bytes(31) + b"\x01", "nonce": bytes(16)})  # fmt: skip
        table.queue.append((3, encode_message(table.ids[CHEATER], env)))
        done.append(True)
        return False

    table.choose = choose
    table.run()
    assert done
    assert_one_verdict(table, CHEATER, evidence=1)
