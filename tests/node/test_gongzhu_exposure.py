"""Gong Zhu at an in-memory table: exposures travel through the deck and every peer checks them.

An honest game plays to its end with exposures made and shown alike at every peer, and audits
valid. A false exposure (a card not held, a card that cannot be exposed), a late one, and a
missed forced one are each named by every honest peer on the same evidence, and by the audit.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hearts_p2p.audit import audit_log
from hearts_p2p.cards import JACK_DIAMONDS, QUEEN_SPADES
from hearts_p2p.deck import Open
from hearts_p2p.engine import Action, HandPhase, SeatView
from hearts_p2p.engine.scoring import EXPOSABLE_MASK
from hearts_p2p.game import CardsExposed, GameProtocol, HandRecord, Status, StepKind
from hearts_p2p.rules import GameKind, Rules
from hearts_p2p.wire import decode_frame, encode_message

from .table import Table, forge, send_to_all
from .test_cheats import CHEATER, assert_named, honest, write_log

GONGZHU = Rules(game=GameKind.GONGZHU, limit=300)


class Exposing:
    """A bot that exposes every card it may (``most``) or none, and plays as ``bot``."""

    def __init__(self, bot: Any, *, most: bool) -> None:
        self.bot, self.most = bot, most

    def choose(self, view: SeatView) -> Action:
        if view.phase is not HandPhase.EXPOSE:
            return self.bot.choose(view)  # type: ignore[no-any-return]
        sizes = sorted(view.legal, key=lambda a: len(a.cards))  # type: ignore[union-attr]
        return sizes[-1] if self.most else sizes[0]


class FirstLegal:
    def choose(self, view: SeatView) -> Action:
        return view.legal[0]


def assert_audit_names_the_cheat(table: Table, tmp_path: Path) -> None:
    """Every honest peer's log audits as a valid aborted game with the cheat proven."""
    for i, p in enumerate(honest(table)):
        report = audit_log(write_log(tmp_path / f"honest{i}.log", p.entries))
        assert report.valid and report.status == "aborted", report.problems
        assert report.abort is not None and report.abort.confirmed
        assert report.abort.blamed is not None and report.abort.blamed.endswith(f"(p{CHEATER})")


def steps_of(p: GameProtocol) -> list[str]:
    return [decode_frame(e).envelope.step for e in p.entries]


def exposures_of(p: GameProtocol) -> list[dict[str, Any]]:
    return [
        decode_frame(e).envelope.body
        for e in p.entries
        if decode_frame(e).envelope.kind in (StepKind.EXPOSE, StepKind.EXPOSE_FOURTH)
    ]


def send_unchecked(table: Table, player: int, body: dict[str, Any]) -> None:
    """Send ``body`` as this seat's message for its current step, its own engine checking it
    only as a stranger's would: what a cheating client does."""
    p = table.protos[player]
    assert p.game is not None and p.game.hand is not None and p.my_seat is not None
    hand = p.game.hand
    hand.known &= ~(1 << p.my_seat)
    try:
        msg = forge(p, body)
        p.receive(msg)
    finally:
        hand.known |= 1 << p.my_seat
    send_to_all(table, player, msg)


def cheat_at_exposure(table: Table, body_of: Any) -> None:
    """At its first exposure the cheater sends ``body_of(p)`` (None: it plays honestly)."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER or done or p.choice_needed() is None:
            return False
        if p.step.kind is not StepKind.EXPOSE:
            return False
        body = body_of(p)
        if body is None:
            return False
        send_unchecked(table, player, body)
        done.append(True)
        return True

    table.choose = choose


@pytest.mark.parametrize("players", [4, 5])
def test_a_gongzhu_game_plays_to_its_end_with_exposures_shown_alike(
    tmp_path: Path, players: int
) -> None:
    table = Table(replace(GONGZHU, players=players), seed=3)
    table.seats[0] = Exposing(table.seats[0], most=True)
    table.run()
    for p in table.protos:
        assert p.status is Status.FINISHED, p.abort
        assert p.game is not None and p.game.over
        assert min(p.game.totals) <= -300
    assert len({tuple(p.entries) for p in table.protos}) == 1
    shown = [b["cards"] for b in exposures_of(table.protos[0])]
    assert any(shown), "no seat exposed a card in the whole game"
    assert steps_of(table.protos[0]).count("expose") == players * table.protos[0].game.number  # type: ignore[union-attr]
    report = audit_log(write_log(tmp_path / "gz.log", table.protos[0].entries))
    assert report.valid, report.problems
    assert report.rules.startswith("Gong Zhu")
    assert any(any(h.exposed) for h in report.hands)


def test_every_peer_sees_each_exposure_with_its_owner() -> None:
    """Each peer is told every seat's exposure, as the audit's replay finds it."""
    table = Table(GONGZHU, seed=3)
    seen: dict[int, list[CardsExposed]] = {i: [] for i in range(4)}
    records: list[HandRecord] = []
    for i, p in enumerate(table.protos):
        drain = p.drain

        def recording(i: int = i, drain: Any = drain) -> Any:
            out, entries, events = drain()
            seen[i] += [e for e in events if isinstance(e, CardsExposed)]
            if i == 0:
                records.extend(e for e in events if isinstance(e, HandRecord))
            return out, entries, events

        p.drain = recording  # type: ignore[method-assign]
    table.run()
    told = [[(e.seat, e.cards) for e in seen[i]] for i in range(4)]
    assert told[0] and all(t == told[0] for t in told)
    for e in seen[1]:
        assert e.view.exposed[e.seat] == e.cards
    hands = len(records)
    assert len(told[0]) == 4 * hands
    for k, record in enumerate(records):
        for seat, cards in told[0][4 * k : 4 * k + 4]:
            assert record.replay.exposures[seat] == sum(1 << int(c) for c in cards)


def test_exposing_a_card_not_held_is_named_by_every_peer(tmp_path: Path) -> None:
    """An open of the cheater's own position naming a card it does not hold: the key turns the
    locked point into another card, which every peer sees at once."""

    def body(p: GameProtocol) -> dict[str, Any] | None:
        assert p.flow is not None and p.flow.deck is not None
        hand = p.flow.my_hand()
        missing = [c for c in (QUEEN_SPADES, JACK_DIAMONDS) if not hand >> c & 1]
        if not missing:
            return None
        mine = min(c for c in range(52) if hand >> c & 1)
        real = p.flow.deck.show(mine)
        return {"cards": [replace(real, card=missing[0]).to_wire()]}

    table = Table(GONGZHU, seed=4)
    cheat_at_exposure(table, body)
    table.run()
    assert_named(table, CHEATER, reason="which position")
    assert_audit_names_the_cheat(table, tmp_path)


def test_exposing_another_seats_position_is_named_by_every_peer(tmp_path: Path) -> None:
    def body(p: GameProtocol) -> dict[str, Any] | None:
        assert p.flow is not None and p.my_seat is not None
        other = next(i for i, s in enumerate(p.flow.public.holder) if s != p.my_seat)
        return {
            "cards": [Open(p.my_seat, other, QUEEN_SPADES, bytes(31) + b"\1", bytes(16)).to_wire()]
        }

    table = Table(GONGZHU, seed=4)
    cheat_at_exposure(table, body)
    table.run()
    assert_named(table, CHEATER, reason="which it does not hold")
    assert_audit_names_the_cheat(table, tmp_path)


def test_exposing_a_card_that_cannot_be_exposed_is_named_by_every_peer(tmp_path: Path) -> None:
    """A true open of a card the cheater holds, but not one of Q♠ J♦ 10♣ A♥."""

    def body(p: GameProtocol) -> dict[str, Any] | None:
        assert p.flow is not None and p.flow.deck is not None
        hand = p.flow.my_hand() & ~EXPOSABLE_MASK
        card = min(c for c in range(52) if hand >> c & 1)
        return {"cards": [p.flow.deck.show(card).to_wire()]}

    table = Table(GONGZHU, seed=4)
    cheat_at_exposure(table, body)
    table.run()
    assert_named(table, CHEATER, reason="cannot be exposed")
    assert_audit_names_the_cheat(table, tmp_path)


def test_a_late_exposure_is_named_by_every_peer(tmp_path: Path) -> None:
    """Once play has begun the cheater sends another exposure for the finished step (a true
    open of a card it kept back): two different messages for one step, which its own
    signatures prove."""
    done: list[bool] = []
    shows: dict[int, Open] = {}

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER or done or p.choice_needed() is None or p.game is None:
            return False
        assert p.flow is not None and p.flow.deck is not None and p.my_seat is not None
        hand = p.game.hand
        assert hand is not None
        if p.step.kind is StepKind.EXPOSE:
            mine = p.flow.my_hand() & EXPOSABLE_MASK
            shows.update((c, p.flow.deck.show(c)) for c in range(52) if mine >> c & 1)
            return False  # its bot exposes as it likes
        kept = [c for c in shows if not hand.exposed >> c & 1 and hand.hands[p.my_seat] >> c & 1]
        if p.step.kind is not StepKind.OPEN or not hand.tricks or not kept:
            return False
        expose = next(
            decode_frame(e) for e in p.entries if decode_frame(e).envelope.step == "expose"
        )
        env = forge(p, {"cards": [shows[kept[0]].to_wire()]}).envelope
        late = replace(env, step="expose", kind="expose", prev=expose.envelope.prev)
        assert p.identity is not None
        send_to_all(table, player, encode_message(p.identity, late))
        done.append(True)
        return True

    for deal in range(12):
        table = Table(GONGZHU, seed=4, deal=deal)
        table.choose = choose
        shows.clear()
        table.run()
        if done:
            break
    assert done, "the cheater never kept an exposable card back"
    assert_named(table, CHEATER, reason="two different messages for one step")


def test_an_exposure_sent_during_play_is_named_by_every_peer_and_the_audit(
    tmp_path: Path,
) -> None:
    """On its turn to play the cheater sends an exposure (a true open of a card it holds) as
    its message for the play step: the step takes a play, not an exposure."""
    table = Table(GONGZHU, seed=4)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER or done or p.choice_needed() is None or p.game is None:
            return False
        hand = p.game.hand
        if p.step.kind is not StepKind.OPEN or hand is None or not hand.tricks:
            return False
        assert p.flow is not None and p.flow.deck is not None and p.my_seat is not None
        held = min(c for c in range(52) if hand.hands[p.my_seat] >> c & 1)
        shown = {"cards": [p.flow.deck.open(held)[0].to_wire()]}
        env = replace(forge(p, shown).envelope, kind="expose")
        assert p.identity is not None
        send_to_all(table, player, encode_message(p.identity, env))
        done.append(True)
        return True

    table.choose = choose
    table.run()
    assert done
    assert_named(table, CHEATER, reason="sent a expose message in hand 1 play.")
    assert_audit_names_the_cheat(table, tmp_path)


def test_a_missed_forced_exposure_is_named_by_the_end_of_hand_replay(tmp_path: Path) -> None:
    """分牌全亮: every exposable card must be exposed; the cheater shows none of its own, which
    only its whole hand shows, so every peer names it once the hand's cards are revealed."""
    rules = Rules(game=GameKind.GONGZHU, limit=300, expose_all=True)

    def body(p: GameProtocol) -> dict[str, Any] | None:
        assert p.flow is not None
        return {"cards": []} if p.flow.my_hand() & EXPOSABLE_MASK else None

    for deal in range(8):
        table = Table(rules, seed=4, deal=deal)
        table.seats[CHEATER] = FirstLegal()  # its own engine knows the fault: no bot of ours
        cheat_at_exposure(table, body)
        table.run()
        if all(p.status is Status.ABORTED for p in honest(table)):
            break
    assert_named(table, CHEATER, reason="you must expose")
    for p in honest(table):
        assert p.abort is not None and "end-of-hand replay" in p.abort.reason
    assert_audit_names_the_cheat(table, tmp_path)


def test_the_fourth_card_is_shown_by_its_holder_under_force_fourth() -> None:
    """逼明: whenever three exposable cards are out, the holder of the fourth shows it in an
    ``expose_fourth`` step that its software sends by itself, and the game goes on."""
    rules = Rules(game=GameKind.GONGZHU, limit=300, force_fourth=True)
    found = False
    for deal in range(40):
        table = Table(rules, seed=2, deal=deal)
        table.seats = [Exposing(bot, most=i != 3) for i, bot in enumerate(table.seats)]
        table.run()
        p = table.protos[0]
        assert p.status is Status.FINISHED, p.abort
        if "expose_fourth" in steps_of(p):
            found = True
            fourth = [
                b for e in p.entries if (b := decode_frame(e).envelope).step == "expose_fourth"
            ]
            assert all(len(b.body["cards"]) == 1 for b in fourth)
            break
    assert found, "no deal put three exposed cards on the table"
