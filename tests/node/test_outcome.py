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


def test_a_player_who_quits_has_left_for_everyone_on_its_own_word() -> None:
    table = Table(RULES, seed=11)
    stop_at(table, "play.5", lambda p: p.quit("p2"))
    table.run()
    for p in table.protos:
        assert p.termination is Termination.LEFT
        assert p.abort is not None and p.abort.culprit == ACTOR and p.abort.blamed is None
    assert len({tuple(p.entries) for p in table.protos}) == 1


def test_a_claim_that_a_player_has_gone_is_the_claimant_s_word_alone() -> None:
    """The claimant ends its own game naming the player, blaming no one; the others neither
    take nor sign its word, and go on until the claimant itself is missing."""
    table = Table(RULES, seed=12)
    stop_at(table, "play.3", lambda p: p.give_up_on(1, 120))
    table.run()
    claimant = table.protos[ACTOR]
    assert claimant.termination is Termination.GONE
    assert claimant.abort is not None and claimant.abort.culprit == 1
    assert claimant.abort.blamed is None
    for p in others(table):
        assert p.abort is None and p.status is Status.RUNNING
        assert ACTOR in p.waiting_for()


def test_a_stalling_player_is_named_as_stalling() -> None:
    table = Table(RULES, seed=12)
    stop_at(table, "play.3", lambda p: p.give_up_on(3, 120, stalled=True))
    table.run()
    abort = table.protos[ACTOR].abort
    assert table.protos[ACTOR].termination is Termination.STALLED
    assert abort is not None and abort.culprit == 3 and abort.blamed is None


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
    shown = next(line for line in out.getvalue().splitlines() if "aborted" in line)
    assert ("cheat proven" in shown) is blamed
