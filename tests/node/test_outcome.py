"""The end of a game is data: every way a game ends gives its ``Termination``, and the screen
reads that, not the reason's words."""

from __future__ import annotations

import io

import pytest

from hearts_p2p.cli.render import Screen, Style
from hearts_p2p.game import (
    Abort,
    Aborted,
    GameProtocol,
    RosterEntry,
    SeatedRoster,
    Status,
    Termination,
)
from hearts_p2p.rules import Rules
from hearts_p2p.wire import PROTOCOL_VERSION, Envelope, SignedMessage, encode_message

from .table import Table, send_to_all

RULES = Rules(players=4, target=10)
ACTOR = 2


def stop_at(table: Table, step: str, act: object) -> None:
    """At ``step``, ``act(p)`` once in the actor's place."""
    done: list[bool] = []

    def choose(player: int, p: GameProtocol) -> bool:
        if player != ACTOR or done or p.step.name != step or p.status is not Status.RUNNING:
            return False
        act(p)  # type: ignore[operator]
        done.append(True)
        return True

    table.choose = choose


def abort_of(p: GameProtocol) -> Abort:
    assert p.abort is not None
    return p.abort


def others(table: Table) -> list[GameProtocol]:
    return [p for i, p in enumerate(table.protos) if i != ACTOR]


def test_a_finished_game_is_finished_for_everyone() -> None:
    table = Table(RULES, seed=4)
    table.run()
    assert [p.termination for p in table.protos] == [Termination.FINISHED] * 4
    assert all(p.abort is None for p in table.protos)


def test_a_player_who_quits_has_left_on_its_own_word_and_the_others_play_on() -> None:
    table = Table(RULES, seed=11)
    stop_at(table, "play.5", lambda p: p.quit("p2"))
    table.run()
    leaver = table.protos[ACTOR]
    assert leaver.termination is Termination.LEFT
    assert leaver.abort is not None and leaver.abort.culprit == ACTOR
    assert leaver.abort.blamed is None
    for p in others(table):
        assert p.termination is Termination.FINISHED and p.table_seats == {ACTOR}
    assert len({tuple(p.entries) for p in others(table)}) == 1


def test_a_vote_that_a_present_player_has_gone_changes_nothing() -> None:
    """One peer's clock runs out on a player the others still hear: they answer its vote with
    that player's part, and the game finishes for everyone, nobody taken over or named."""
    table = Table(RULES, seed=12)
    stop_at(table, "play.3", lambda p: p.give_up_on(1, 120))
    table.run()
    for p in table.protos:
        assert p.termination is Termination.FINISHED and not p.table_seats
    assert len({tuple(p.entries) for p in table.protos}) == 1


def test_a_vote_about_a_player_owing_nothing_changes_nothing() -> None:
    table = Table(RULES, seed=12)
    stop_at(table, "play.3", lambda p: p.give_up_on(3, 120, stalled=True))
    table.run()
    for p in table.protos:
        assert p.termination is Termination.FINISHED and not p.table_seats


def test_a_cheat_is_proven_by_each_peer_itself() -> None:
    """Two different messages under one number: each honest peer proves it with both."""
    table = Table(RULES, seed=9)
    done: list[bool] = []

    def tamper(sender: int, msg: SignedMessage) -> SignedMessage | None:
        if sender == ACTOR and not done and msg.envelope.kind == "play":
            env = msg.envelope
            body = dict(reversed(list(env.body.items())))
            identity = table.protos[ACTOR].identity
            assert identity is not None
            fields = (env.version, env.game_id, env.hand, env.step, env.sender, env.seq, env.prev)
            twin = encode_message(identity, Envelope(*fields, env.kind, body))
            send_to_all(table, sender, twin)
            done.append(True)
        return msg

    table.tamper = tamper
    table.run()
    for p in others(table):
        assert p.termination is Termination.CHEAT_PROVEN
        assert p.abort is not None and p.abort.culprit == ACTOR and len(p.abort.evidence) == 2


def test_an_accusation_whose_evidence_shows_nothing_blames_no_one() -> None:
    """A report naming player 3 with an honest message as its evidence: the peer that judges
    it takes nothing from it and goes on."""
    table = Table(RULES, seed=12)

    def accuse(p: GameProtocol) -> None:
        assert p.identity is not None and p.me is not None
        honest = p.entries[5]
        body = {"reason": "p3 cheated", "culprit": 3, "evidence": [honest]}
        env = Envelope(PROTOCOL_VERSION, p.game_id, p.step.hand, "abort", p.me, p.next_seq,
                       p.head, "abort", body)  # fmt: skip
        table.protos[0].receive(encode_message(p.identity, env))

    stop_at(table, "play.3", accuse)
    table.run()
    for p in others(table):
        assert p.abort is None or p.abort.blamed is None


@pytest.mark.parametrize(
    ("termination", "culprit", "blamed"),
    [
        (Termination.LEFT, 1, False),  # a player who left is named, not blamed
        (Termination.LEFT, 2, False),
        (Termination.GONE, 2, False),  # one peer's word blames no one
        (Termination.STALLED, 2, False),
        (Termination.CHEAT_PROVEN, 2, True),  # only a proven cheat is
    ],
)
def test_the_screen_reads_the_termination_not_the_words(
    termination: Termination, culprit: int, blamed: bool
) -> None:
    out = io.StringIO()
    screen = Screen(out, Style(unicode=False, color=False))
    roster = tuple(RosterEntry(s, f"p{s}", "fp", False) for s in range(4))
    screen.event(SeatedRoster(roster, 1, "rules"))
    screen.event(Aborted(termination, "p1 left the table", culprit, "game.log"))
    lines = out.getvalue().splitlines()
    shown = next(line for line in lines if "aborted" in line or "You left" in line)
    assert ("cheat proven" in shown) is blamed
