"""The words at quit say what happens: the game goes on for the others, the table playing the
leaver's seat, and nobody is told a leaver is waited for. Screen lines without a network, then
the real program in two terminals."""

from __future__ import annotations

import io
import re
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearts_p2p.cli.render import Screen, Style
from hearts_p2p.cli.terminal import QUIT_SEATED, QUIT_UNSEATED, TerminalSeat
from hearts_p2p.frontend import YOU_LEFT, PeerState, PeerStatus, RosterEntry, SeatedRoster
from hearts_p2p.game import Aborted, Termination

from .pty_term import FIND_WAIT, Terminal, data_dir, free_port, hearts_env

ROSTER = SeatedRoster(tuple(RosterEntry(s, n, "fp", False) for s, n in enumerate("ABCD")), 0, "")


def shown(*events: object) -> str:
    out = io.StringIO()
    screen = Screen(out, Style(unicode=False, color=False))
    for ev in events:
        screen.event(ev)  # type: ignore[arg-type]
    return out.getvalue()


def test_a_player_who_quits_is_told_the_game_goes_on_without_it() -> None:
    text = shown(ROSTER, Aborted(Termination.LEFT, "A left the table", 0, "g.log"))
    assert YOU_LEFT in text and "aborted" not in text
    assert "hearts audit g.log" in text


def test_a_leaving_before_the_seats_are_drawn_ends_the_game() -> None:
    assert "Game aborted: A left the table" in shown(
        Aborted(Termination.LEFT, "A left the table", None, "g.log")
    )


def test_a_dropped_link_is_waited_for_only_when_the_player_has_not_left() -> None:
    dropped = shown(ROSTER, PeerState(1, PeerStatus.WAITING))
    left = shown(ROSTER, PeerState(1, PeerStatus.LEFT))
    assert "lost the connection; the seat is taken over if not back in time" in dropped
    assert "B (left) has left: the table plays that seat" in left
    assert "waiting for" not in dropped + left


class _Controls:
    def say(self, text: str) -> None:
        raise AssertionError("nothing to say")

    def consent(self, newcomer: bytes, yes: bool) -> None:
        raise AssertionError("nobody asks")

    def quit(self) -> None:
        raise AssertionError("asked first")


@pytest.mark.parametrize("seated", [False, True])
def test_the_quit_question_says_what_leaving_does_now(seated: bool) -> None:
    out = io.StringIO()
    seat = TerminalSeat(Screen(out, Style(unicode=False, color=False)), _Controls())
    seat._seated = seated
    seat.handle_line("quit")
    assert out.getvalue().endswith(QUIT_SEATED if seated else QUIT_UNSEATED)
    assert ("ends for everyone" in out.getvalue()) is not seated


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


@pytest.mark.slow
def test_the_others_see_the_quitter_taken_over_not_waited_for(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    ada = Terminal(
        ["host", "--bot-strategy", "heuristic", "--name", "Ada", "--table", "Friday",
         "--bots", "2", "--bot-delay", "0", "--data-dir", data_dir(tmp_path, "ada"),
         "--discovery-port", disc],
        hearts_env(),
    )  # fmt: skip
    terminals.append(ada)
    ada.expect(r'Table "Friday" open on', 30)
    bea = Terminal(
        ["join", "Friday", "--name", "Bea", "--data-dir", data_dir(tmp_path, "bea"),
         "--discovery-port", disc, "--wait", FIND_WAIT],
        hearts_env(),
    )  # fmt: skip
    terminals.append(bea)
    bea.expect(r"pass 3 cards to [^\n>]*> ", timeout=60)
    bea.send("quit")
    bea.expect(re.escape(QUIT_SEATED))
    bea.send("y")
    bea.expect(re.escape(YOU_LEFT))
    assert bea.wait() == 3
    ada.expect(r"Bea \(\w+\) left the table: the table plays that seat from here on", 60)
    ada.expect(r"pass 3 cards to [^\n>]*> ", timeout=30)  # the game goes on for Ada
    assert "lost the connection" not in ada.text and "waiting for them" not in ada.text
    assert "Traceback" not in ada.text + bea.text
