"""The line a person types on: when it is an editor line, what Tab offers, and the history's
bound. The editor itself is driven through a real terminal in test_terminal_pty.py."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from hearts_p2p.cards import Card
from hearts_p2p.cli.commands import COMMAND_WORDS
from hearts_p2p.cli.lineinput import PLAIN_ENV, completions, edited, trim_history
from hearts_p2p.cli.render import Screen, Style
from hearts_p2p.cli.terminal import TerminalSeat
from hearts_p2p.engine import PlayCard

from .test_render import _Controls, passing_view, playing_view


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_an_editor_line_only_on_a_terminal_that_can_draw_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(PLAIN_ENV, raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    assert edited(_Tty(), _Tty())
    assert not edited(io.StringIO(), _Tty())  # typed lines from a pipe
    assert not edited(_Tty(), io.StringIO())  # the screen to a file
    monkeypatch.setenv("TERM", "dumb")
    assert not edited(_Tty(), _Tty())
    monkeypatch.setenv("TERM", "xterm-256color")
    monkeypatch.setenv(PLAIN_ENV, "1")
    assert not edited(_Tty(), _Tty())
    monkeypatch.setenv(PLAIN_ENV, "0")
    assert edited(_Tty(), _Tty())


def _offered(words: list[str], typed: str) -> list[str]:
    doc = Document(typed, len(typed))
    return [c.text for c in completions(lambda: words).get_completions(doc, CompleteEvent())]


def test_tab_offers_the_commands_and_the_cards_of_the_hand() -> None:
    s = Screen(io.StringIO(), Style(unicode=True, color=False))
    seat = TerminalSeat(s, _Controls())
    assert seat.words() == list(COMMAND_WORDS)  # before the deal: commands only
    seat._view = passing_view()
    hand = [Card(c).ascii.lower() for c in seat._view.hand]
    assert seat.words() == [*COMMAND_WORDS, *hand]
    view = playing_view()
    seat._choosing = view
    legal = [Card(a.card).ascii.lower() for a in view.legal if isinstance(a, PlayCard)]
    assert seat.words() == [*COMMAND_WORDS, *legal]  # asked to play: what it may play
    assert _offered(seat.words(), "sc") == ["scores"]
    assert _offered(["qs", "qh", "2c", "scores"], "pass q") == ["qh", "qs"]  # the last word
    assert _offered(["qs"], "QS") == ["qs"]


def test_the_history_keeps_its_newest_entries_within_its_bound(tmp_path: Path) -> None:
    path = tmp_path / "history"
    entries = [f"\n# 2026-12-07 16:00:{i % 60:02d}\n+line {i}\n" for i in range(2000)]
    path.write_text("".join(entries), encoding="utf-8")
    trim_history(path, limit=4096)
    kept = path.read_text(encoding="utf-8")
    assert len(kept.encode()) <= 4096
    assert kept.startswith("\n# ") and kept.endswith("+line 1999\n")
    trim_history(path, limit=4096)  # within the bound: left alone
    assert path.read_text(encoding="utf-8") == kept
    trim_history(tmp_path / "none")  # no file yet: nothing to do


def test_a_screen_with_an_editor_line_leaves_the_prompt_to_it() -> None:
    out = io.StringIO()
    asked: list[str] = []
    s = Screen(out, Style(unicode=True, color=False), asker=asked.append)
    s.prompt("play [2♣]> ")
    s.line("Bot 1 (left) leads 3♣")
    s.typed()
    s.prompt("pass> ")
    s.drop_prompt()
    assert asked == ["play [2♣]> ", "", "pass> ", ""]
    assert out.getvalue() == "Bot 1 (left) leads 3♣\n"  # no prompt drawn or redrawn here
