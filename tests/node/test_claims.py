"""Claims (摊牌) at an in-memory table: a claim that holds ends the hand at every peer alike, one
that does not is refused blaming no one and play goes on, and a claim that lies is a cheat."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hearts_p2p.audit import audit_log
from hearts_p2p.bots import make_bot
from hearts_p2p.bots.botseat import BotSeat
from hearts_p2p.cards import cards_of
from hearts_p2p.deck import Open
from hearts_p2p.engine import Action, Claim, Expose, Game, PlayCard, SeatView
from hearts_p2p.game import GameProtocol, Status, StepKind
from hearts_p2p.rules import GameKind, Rules
from hearts_p2p.wire import decode_frame

from .table import GAME_ID, TEST_PROOF_ROUNDS, Table, forge, send_to_all
from .test_cheats import CHEATER, assert_named, write_log
from .test_gongzhu_exposure import assert_audit_names_the_cheat

GONGZHU = Rules(game=GameKind.GONGZHU, limit=300)


class Claimer:
    """Claims whenever the game offers a claim; otherwise plays as ``bot``."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.claims = bot, 0

    def choose(self, view: SeatView) -> Action:
        claims = [a for a in view.legal if isinstance(a, Claim)]
        if claims:
            self.claims += 1
            return claims[0]
        return self.bot.choose(view)  # type: ignore[no-any-return]


def claims_in(p: GameProtocol) -> list[dict[str, Any]]:
    bodies = [decode_frame(e).envelope.body for e in p.entries]
    return [b for b in bodies if "claim" in b]


def test_claims_that_hold_end_their_hands_alike_at_every_peer(tmp_path: Path) -> None:
    for rules in (GONGZHU, Rules(claims=True, target=50)):
        table = Table(rules, seed=3)
        table.seats = [Claimer(bot) for bot in table.seats]
        table.run()
        for p in table.protos:
            assert p.status is Status.FINISHED, p.abort
        assert len({tuple(p.entries) for p in table.protos}) == 1
        made = sum(seat.claims for seat in table.seats)  # type: ignore[attr-defined]
        assert made and len(claims_in(table.protos[0])) == made
        report = audit_log(write_log(tmp_path / f"{rules.game}.log", table.protos[0].entries))
        assert report.valid and report.status == "finished", report.problems
        assert any(len(h.tricks) < rules.cards_each for h in report.hands)


def claim_on_lead(table: Table, body_of: Any) -> list[bool]:
    """The cheater, on lead after the first trick, sends ``body_of(p)`` as its play (None: it
    plays as its bot would)."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != CHEATER or done or view is None or p.game is None:
            return False
        hand = p.game.hand
        if p.step.kind is not StepKind.OPEN or hand is None or hand.trick or not hand.tricks:
            return False
        body = body_of(p)
        if body is None:
            return False
        msg = forge(p, body)
        p.receive(msg)
        send_to_all(table, player, msg)
        done.append(True)
        return True

    table.choose = choose
    return done


def whole_hand(p: GameProtocol) -> list[int]:
    assert p.game is not None and p.game.hand is not None and p.my_seat is not None
    return cards_of(p.game.hand.hands[p.my_seat])


def shows(p: GameProtocol, cards: list[int]) -> dict[str, Any]:
    assert p.flow is not None
    return {"claim": p.flow.make_shows(cards)}


def test_a_claim_that_does_not_hold_is_refused_blaming_no_one(tmp_path: Path) -> None:
    """A true claim of the whole hand that some card can lose: logged, refused, and the same
    seat plays on; the game finishes and audits valid."""

    def body(p: GameProtocol) -> dict[str, Any] | None:
        assert p.game is not None and p.game.hand is not None and p.my_seat is not None
        hand = p.game.hand
        if hand.claim_refusal(p.my_seat, hand.hands[p.my_seat]) is None:
            return None
        return shows(p, whole_hand(p))

    table = Table(GONGZHU, seed=4)
    done = claim_on_lead(table, body)
    table.run()
    assert done
    for p in table.protos:
        assert p.status is Status.FINISHED, p.abort
    assert len({tuple(p.entries) for p in table.protos}) == 1
    entries = [decode_frame(e).envelope for e in table.protos[0].entries]
    i = next(k for k, env in enumerate(entries) if "claim" in env.body)
    assert entries[i + 1].step == entries[i].step  # the same play step again, a card this time
    assert entries[i + 1].sender == entries[i].sender and "card" in entries[i + 1].body
    report = audit_log(write_log(tmp_path / "refused.log", table.protos[0].entries))
    assert report.valid and report.status == "finished", report.problems


def test_claiming_again_after_a_refusal_is_named_and_never_holds_the_table(
    tmp_path: Path,
) -> None:
    """A seat whose claim was refused claims again in the play step that follows, as it could
    for ever (each refusal a new step, so no stall clock fired): a cheat every peer names on
    its own signed claim, and the audit too."""
    claims: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if player != CHEATER or view is None or p.game is None or len(claims) >= 2:
            return False
        hand = p.game.hand
        if p.step.kind is not StepKind.OPEN or hand is None or hand.trick or not hand.tricks:
            return False
        assert p.my_seat is not None
        if hand.claim_refusal(p.my_seat, hand.hands[p.my_seat]) is None:
            return False
        msg = forge(p, shows(p, whole_hand(p)))
        p.receive(msg)
        send_to_all(table, player, msg)
        claims.append(True)
        return True

    table = Table(GONGZHU, seed=4)
    table.choose = choose
    table.run()
    assert len(claims) == 2
    assert_named(table, CHEATER, reason="claimed again after its claim was refused")
    assert_audit_names_the_cheat(table, tmp_path)


def test_a_claim_showing_part_of_the_hand_is_named_by_every_peer(tmp_path: Path) -> None:
    table = Table(GONGZHU, seed=4)
    done = claim_on_lead(table, lambda p: shows(p, whole_hand(p)[1:]))
    table.run()
    assert done
    assert_named(table, CHEATER, reason="a claim shows the whole hand")
    assert_audit_names_the_cheat(table, tmp_path)


def test_a_claim_showing_a_card_not_held_is_named_by_every_peer(tmp_path: Path) -> None:
    def body(p: GameProtocol) -> dict[str, Any]:
        assert p.flow is not None and p.flow.deck is not None and p.game is not None
        mine = whole_hand(p)
        out = next(c for c in cards_of(p.game.rules.deck_mask) if c > mine[-1])
        real = [p.flow.deck.show(c) for c in mine]
        fake = Open(real[-1].seat, real[-1].position, out, real[-1].key, real[-1].nonce)
        return {"claim": [m.to_wire() for m in real[:-1]] + [fake.to_wire()]}

    table = Table(GONGZHU, seed=4)
    done = claim_on_lead(table, body)
    table.run()
    assert done
    assert_named(table, CHEATER, reason="which position")
    assert_audit_names_the_cheat(table, tmp_path)


def test_a_claim_by_a_seat_not_on_lead_is_named_by_every_peer() -> None:
    """Sent for another seat's play step: a message out of turn."""
    table = Table(GONGZHU, seed=4)
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != CHEATER or done or p.game is None or p.game.hand is None:
            return False
        hand = p.game.hand
        if p.step.kind is not StepKind.OPEN or not hand.tricks or p.me in p.step.senders:
            return False
        msg = forge(p, shows(p, whole_hand(p)))
        send_to_all(table, player, msg)
        done.append(True)
        return True

    table.choose = choose
    table.run()
    assert done
    assert_named(table, CHEATER, reason="sent play.")  # out of turn, or for a finished step


def test_the_terminal_and_bots_see_claims_as_an_action() -> None:
    """A claim sits after the cards in the legal actions, so a bot's first choice is a card."""
    table = Table(GONGZHU, seed=3)
    table.seats = [Claimer(bot) for bot in table.seats]
    offered: list[tuple[Action, ...]] = []

    def choose(player: int, p: GameProtocol) -> bool:
        view = p.choice_needed()
        if view is not None and any(isinstance(a, Claim) for a in view.legal):
            offered.append(view.legal)
        return False

    table.choose = choose
    table.run()
    assert offered
    for legal in offered:
        assert isinstance(legal[0], PlayCard) and isinstance(legal[-1], Claim)


def test_a_gongzhu_peer_resumes_from_its_log_inside_the_exposure_and_after_a_claim() -> None:
    """Cut a peer's log inside the expose step and right after a claim: a fresh protocol resumed
    from it and then given the rest reaches the same end with the same log."""
    table = Table(GONGZHU, seed=3)
    table.seats = [Claimer(bot) for bot in table.seats]
    table.run()
    player = 1
    full = table.protos[player].entries
    envs = [decode_frame(e).envelope for e in full]
    cuts = [
        next(i for i, env in enumerate(envs) if env.step == "expose") + 2,
        next(i for i, env in enumerate(envs) if "claim" in env.body) + 1,
    ]
    for cut in cuts:
        secret = bytes([player + 9]) * 32
        p = GameProtocol(
            GAME_ID,
            table.ids[0].public_key,
            table.ids[player],
            secret,
            min_proof_rounds=TEST_PROOF_ROUNDS,
        )
        p.resume(full[:cut])
        for entry in full[cut:]:
            p.receive(decode_frame(entry))
        assert p.status is Status.FINISHED, (cut, p.abort)
        assert p.entries == full


async def test_a_bot_peer_takes_a_claim_the_game_offers() -> None:
    game = Game(GONGZHU)
    game.start_hand([0x1FFF << (13 * s) for s in range(4)])  # each seat one whole suit
    for seat in range(4):
        game.apply(seat, Expose(()))
    for seat in range(4):
        game.apply(seat, SeatView.of(game, seat).legal[0])
    view = SeatView.of(game, 0)
    assert await BotSeat(make_bot("heuristic", 1)).choose(view) == view.legal[-1]
    assert isinstance(view.legal[-1], Claim)
