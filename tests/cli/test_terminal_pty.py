"""The real ``hearts`` program in a pseudo-terminal: games played by typing what the screen shows.

Every peer listens on loopback only, each test has its own discovery port, and every wait has a
deadline, so a hang fails instead of stalling the suite.
"""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hearts_p2p.cli.commands import COMMAND_WORDS
from hearts_p2p.cli.render import shown_width

from .pty_term import (
    FIND_WAIT,
    SUITS,
    Terminal,
    Timeout,
    data_dir,
    free_port,
    hand_cards,
    hearts_env,
    prompt_cards,
    running,
)

PROMPTS = {
    "pass": r"pass 3 cards to [^\n>]*> ",
    "send": r"Enter to send, undo to choose again> ",
    "play": r"play \[(?P<legal>[^\]\n]*)\]> ",
    "moon": r"you shot the moon![^\n]*> ",
    "over": r"Game over after [^\n]*\n",
    "aborted": r"Game aborted: [^\n]*\n",
}


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """Terminals opened by a test, killed (with their bots) however the test ends."""
    opened: list[Terminal] = []
    yield opened
    for t in opened:
        t.close()


def open_terminal(opened: list[Terminal], *args: str, **env: str) -> Terminal:
    t = Terminal(list(args), hearts_env(**env))
    opened.append(t)
    return t


def last_hand(term: Terminal, before: int) -> list[str]:
    """The cards of the last ``Your hand:`` line shown before position ``before``."""
    text = term.text
    start = text.rindex("Your hand: ", 0, before) + len("Your hand: ")
    return hand_cards(text[start : text.index("\n", start)])


def answer(term: Terminal, key: str, m: re.Match[str]) -> None:
    """Type what a beginner would: the lowest legal card, the first three cards to pass."""
    if key == "pass":
        term.send(" ".join(last_hand(term, m.start())[:3]))
    elif key == "play":
        legal = prompt_cards(m.group("legal"))
        term.send("" if len(legal) == 1 else legal[0])  # Enter plays a forced card
    elif key == "send":
        term.send("")
    elif key == "moon":
        term.send("a")


def play_to_the_end(terms: list[Terminal], deadline: float = 60.0) -> None:
    """Answer every prompt on every terminal until each shows the end of the game."""
    done = [False] * len(terms)
    end = time.monotonic() + deadline
    while not all(done) and time.monotonic() < end:
        for i, term in enumerate(terms):
            if done[i]:
                continue
            try:
                key, m = term.expect_any(PROMPTS, timeout=0.1)
            except Timeout:
                continue
            if key in ("over", "aborted"):
                done[i] = True
            else:
                answer(term, key, m)
    assert all(done), "the game did not end in time:\n" + "\n".join(t.tail() for t in terms)


@pytest.mark.slow
def test_whole_game_against_three_bots(tmp_path: Path, terminals: list[Terminal]) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--name", "Ada", "--target", "10", "--bot-delay", "0",
        "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    term.expect(r"── Hand 1 · pass left to Bot \d \(left\) ──", timeout=30)
    play_to_the_end([term], deadline=90)
    assert term.wait() == 0
    screen = term.text
    assert "Traceback" not in screen
    assert re.search(r"^  Bot \d \(left\) +key [a-z0-9-]+  bot$", screen, re.M)
    assert re.search(r"You passed (\S+ ){2}\S+ to Bot \d \(left\)", screen)
    assert re.search(r"You received (\S+ ){2}\S+ from Bot \d \(right\)", screen)
    assert (
        re.search(r"Trick 1: Bot \d \((left|across|right)\) 2♣", screen)
        or "Trick 1 · you lead" in screen
    )
    assert re.search(r"(You take|Bot \d \(\w+\) takes) trick 13: ", screen)
    # A moon, or a line from elsewhere, may come between the heading and the table.
    scored = (
        r"── Hand 1 scored · the game ends at 10 ──\n(?:.*\n){0,2}?"
        r"  player +hand +total\n  you +[+-]\d+ "
    )
    assert re.search(scored, screen)
    assert re.search(r"Game over after \d+ hands?\. Winners?: ", screen)
    log = re.search(r"Game log: (\S+\.log)", screen)
    assert log is not None
    assert f"Check it yourself: hearts audit {log.group(1)}" in screen
    assert "\x1b[31m♥" in term.raw or "\x1b[31m♦" in term.raw  # red suits on a colour terminal
    audit = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "audit", log.group(1)],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    assert audit.returncode == 0, audit.stdout + audit.stderr
    assert "VALID: a finished game" in audit.stdout


def test_wrong_input_gets_one_line_and_the_prompt_again(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--name", "Ada", "--bot-delay", "0",
        "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    m = term.expect(PROMPTS["pass"], timeout=30)
    hand = last_hand(term, m.start())
    prompt = r"\npass 3 cards to [^\n>]*> "

    term.send("qx")
    term.expect(r"'qx' is not a card; type help for commands" + prompt)
    term.send(hand[0])
    term.expect(r"pass exactly 3 cards \(you named 1\), e.g. qs ah 2d" + prompt)
    term.send(f"{hand[0]} {hand[0]} {hand[1]}")
    term.expect(r"pass 3 different cards" + prompt)
    missing = next(c for c in ("2c", "as", "qh", "10d", "3s") if c not in hand)
    term.send(f"{missing} {hand[0]} {hand[1]}")
    term.expect(r"you do not hold \S+" + prompt)
    term.send("help")
    term.expect(r"commands:\n(  .*\n)+cards: rank 2-10 J Q K A.*" + prompt)
    term.send("scores")
    term.expect(r"Scores before hand 1, and points taken in it so far:\n  player +taken +total\n")
    term.expect(r"  you +0 +0\n(  .*\n){3}" + r"pass 3 cards")
    term.send(" ".join(hand[:3]))
    term.expect(r"You will pass (\S+ ){2}\S+ to [^\n]*\nEnter to send, undo to choose again> ")
    term.send("")
    term.expect("waiting for the others to pass")

    m = term.expect(PROMPTS["play"], timeout=30)
    legal = prompt_cards(m.group("legal"))
    now = last_hand(term, m.start())
    illegal = next((c for c in now if c not in legal), None)
    if illegal is not None:
        term.send(illegal)
        rule = r"(you must (follow|lead) \S+|no points on the first trick|hearts are not broken)"
        term.expect(rule + r": (\S+ )*\S+\nplay \[")
    term.send("play one two")
    term.expect(r"'one' is not a card")
    term.send(f"{legal[0]} {legal[0]}")
    term.expect(r"play one card, not 2\nplay \[")
    term.send("last")
    term.expect(r"no trick taken yet\nplay \[")

    term.send("quit")
    term.expect(r"leave the game\? the others play on, the table playing your seat \[y/N\] ")
    term.send("n")
    term.expect(r"staying\nplay \[")
    term.send("quit")
    term.expect(r"\[y/N\] ")
    term.send("y")
    term.expect(r"You left the game\. The others play on to the end: the table plays your seat")
    term.expect(r"Check it yourself: hearts audit \S+\.log")
    assert term.wait() == 3
    assert "Traceback" not in term.text


def test_the_line_edits_completes_and_remembers_across_games(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """The editor line: Tab completes a command, Backspace and the arrows edit, Up brings back
    a line typed before, in this game and in the next one (the history in the data folder)."""
    disc = str(free_port(socket.SOCK_DGRAM))
    home = data_dir(tmp_path, "ada")
    args = ("play", "--bot-strategy", "heuristic", "--name", "Ada", "--bot-delay", "0",
            "--data-dir", home, "--discovery-port", disc)  # fmt: skip
    term = open_terminal(terminals, *args)
    m = term.expect(PROMPTS["pass"], timeout=30)
    hand = last_hand(term, m.start())
    term.keys("sco\t")  # Tab: the only command that begins so
    term.expect("scores")  # completed on the line, seen before Enter is pressed
    term.send("")
    term.expect(r"Scores before hand 1, and points taken in it so far:")
    term.keys("hlpx\x7f\x1b[D\x1b[De\x1b[F")  # Backspace, Left twice, an e, End: help
    term.send("")
    term.expect(r"commands:\n")
    term.keys("\x1b[A\x1b[A")  # Up twice: the scores line
    term.expect(r"> scores")
    term.send("")
    term.expect(r"Scores before hand 1")
    ranks = [c[:-1] for c in hand]
    card = next(
        c
        for c in hand
        if ranks.count(c[:-1]) == 1 and not any(w.startswith(c[:-1]) for w in COMMAND_WORDS)
    )  # and no command begins so: Tab on "q" offers qc and quit, and completes neither
    term.keys(card[:-1] + "\t")  # a rank the hand holds once: Tab completes the card
    term.expect(re.escape(card))
    term.send("")
    term.expect(r"pass exactly 3 cards \(you named 1\)")
    term.interrupt()
    assert term.wait() == 130
    remembered = (Path(home) / "history").read_text(encoding="utf-8")
    assert "+scores\n" in remembered and "+help\n" in remembered

    again = open_terminal(terminals, *args)
    again.expect(PROMPTS["pass"], timeout=30)
    again.keys("\x1b[A" * 2)  # the earlier game's lines, newest first: the card, scores
    again.expect("scores")
    again.send("")
    again.expect(r"Scores before hand 1")
    again.interrupt()
    assert again.wait() == 130
    assert "Traceback" not in term.text + again.text


@pytest.mark.parametrize("plain", ["0", "1"], ids=["editor-line", "plain-lines"])
def test_ctrl_c_on_a_plain_terminal_leaves_cleanly(
    tmp_path: Path, terminals: list[Terminal], plain: str
) -> None:
    """No colour with NO_COLOR, ASCII suits where the terminal cannot show ♠, exit 130 on ^C;
    on the editor line and on plain lines (HEARTS_PLAIN_INPUT)."""
    disc = str(free_port(socket.SOCK_DGRAM))
    home = data_dir(tmp_path, "ada")
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--name", "Ada", "--data-dir", home, "--discovery-port", disc,
        NO_COLOR="1", PYTHONIOENCODING="ascii", HEARTS_PLAIN_INPUT=plain,
    )  # fmt: skip
    term.expect(r"-- Hand 1 \| pass left to Bot \d \(left\) --", timeout=30)
    m = term.expect(PROMPTS["pass"], timeout=30)
    hand_line = term.text[term.text.rindex("Your hand: ", 0, m.start()) :]
    assert re.match(r"Your hand: [CDSH] (10|[2-9JQKA])", hand_line)
    term.interrupt()
    term.expect(r"interrupted: leaving the table")
    assert term.wait() == 130
    assert not re.search(r"\x1b\[(?!0?m)[0-9;]*m", term.raw)  # no colour or bold; resets are none
    assert ("\x1b[?2004h" in term.raw) == (plain == "0")  # the editor turns on bracketed paste
    assert not any(ch in term.raw for ch in "♣♦♠♥")
    assert "Traceback" not in term.text
    assert not (Path(home) / "unfinished-host.json").exists()


@pytest.mark.slow
def test_list_sees_a_hosted_table_and_a_second_terminal_joins(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    host = open_terminal(
        terminals, "host", "--bot-strategy", "heuristic",
        "--name", "Ada", "--table", "Friday", "--bots", "2", "--target", "1",
        "--bot-delay", "0", "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    host.expect(r'Table "Friday" open on 127\.0\.0\.1:\d+; waiting for 3 player\(s\)', 30)
    host.expect(r"Bot \d joined.*\n.*Bot \d joined", timeout=30)

    listed = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "list", "--port", disc, "--wait", "2"],
        capture_output=True, text=True, timeout=30, env=hearts_env(),
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    assert re.search(r"^Friday +Ada +[a-z0-9-]+ +3/4 +open ", listed.stdout, re.M), listed.stdout

    guest = open_terminal(
        terminals, "join", "Friday", "--name", "Bea",
        "--data-dir", data_dir(tmp_path, "bea"), "--discovery-port", disc, "--wait", FIND_WAIT,
    )  # fmt: skip
    guest.expect(r'Found "Friday" hosted by Ada \([a-z0-9-]+\)', timeout=30)
    host.expect(r"Bea joined \([a-z0-9-]+\)", timeout=30)
    for term, other in ((host, "Bea"), (guest, "Ada")):
        term.expect(rf"  {other} \((left|across|right)\) +key [a-z0-9-]+\n", timeout=30)
    host.send("say hello Bea")
    guest.expect(r"<Ada> hello Bea", timeout=30)
    play_to_the_end([host, guest], deadline=90)
    assert host.wait() == 0
    assert guest.wait() == 0
    for term in (host, guest):
        assert re.search(r"Game over after 1 hand\. Winners?: ", term.text)
        assert "Traceback" not in term.text


def test_ctrl_c_blames_the_player_who_pressed_it_and_no_bot(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """Ctrl-C reaches the player's process only (bots run in sessions of their own): the log
    says the player left, the bots see the game end and exit by themselves."""
    disc = str(free_port(socket.SOCK_DGRAM))
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--name", "Ada", "--bot-delay", "0",
        "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    term.expect(PROMPTS["pass"], timeout=30)
    bots = term.children()
    assert len(bots) == 3
    term.interrupt()
    assert term.wait() == 130
    log = re.search(r"[Gg]ame log: (\S+\.log)", term.text)
    assert log is not None, term.tail()
    audit = subprocess.run(
        [sys.executable, "-m", "hearts_p2p.cli.main", "audit", "--json", log.group(1)],
        capture_output=True, text=True, timeout=60, env=hearts_env(),
    )  # fmt: skip
    report = json.loads(audit.stdout)
    ada = next(p["seat"] for p in report["players"] if p["name"] == "Ada")
    assert report["abort"] is not None, report
    assert report["abort"]["blamed"] in (None, f"seat {ada} (Ada)"), report["abort"]
    assert "Bot" not in report["abort"]["reason"], report["abort"]
    deadline = time.monotonic() + 30
    while any(running(pid) for pid in bots) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(running(pid) for pid in bots), "the bots did not leave by themselves"


def test_two_players_on_one_machine_need_no_data_dir(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """The guide's two-terminal example as written: each name gets its own data directory,
    the login name keeping the one it always had."""
    disc = str(free_port(socket.SOCK_DGRAM))
    xdg = str(tmp_path / "xdg")
    host = open_terminal(
        terminals, "host", "--bot-strategy", "heuristic",
        "--table", "Friday", "--bots", "2", "--discovery-port", disc,
        XDG_DATA_HOME=xdg,
    )  # fmt: skip
    host.expect(r"Bot \d joined.*\n.*Bot \d joined", timeout=30)
    guest = open_terminal(
        terminals, "join", "Friday", "--name", "Bea", "--discovery-port", disc,
        "--wait", FIND_WAIT, XDG_DATA_HOME=xdg,
    )  # fmt: skip
    guest.expect(r"hosted by", timeout=30)
    host.expect(r"Bea joined \([a-z0-9-]+\)", timeout=30)
    guest.expect(PROMPTS["pass"], timeout=30)
    assert (tmp_path / "xdg" / "hearts-p2p" / "identity.key").exists()
    assert (tmp_path / "xdg" / "hearts-p2p" / "players" / "Bea" / "identity.key").exists()


def test_the_aids_of_a_hand_hint_undo_received_cards_and_news(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """What a player of Microsoft or GNOME Hearts expects: a hint, a pass to look at before it is
    sent, the cards received marked, points taken on the trick line, Enter echoed, and hearts
    broken and Q♠ played said once each."""
    disc = str(free_port(socket.SOCK_DGRAM))
    term = open_terminal(
        terminals, "play", "--bot-strategy", "heuristic",
        "--name", "Ada", "--target", "1", "--bot-delay", "0",
        "--data-dir", data_dir(tmp_path, "ada"), "--discovery-port", disc,
    )  # fmt: skip
    m = term.expect(PROMPTS["pass"], timeout=30)
    hand = last_hand(term, m.start())
    term.send("hint")
    term.expect(r"hint: thinking \(a few seconds; the table goes on meanwhile\)")
    term.expect(r"hint: pass (\S+ ){2}\S+ — the cards most likely to take points for you")
    term.send(" ".join(hand[:3]))
    term.expect(r"You will pass (\S+ ){2}\S+ to Bot \d \(left\)\n" + PROMPTS["send"])
    term.send("undo")
    term.expect(r"choose 3 cards to pass again\n" + PROMPTS["pass"])
    term.send(" ".join(hand[-3:]))
    term.expect(PROMPTS["send"])
    term.send("")
    term.expect("waiting for the others to pass")
    got = term.expect(r"You received (\S+) (\S+) (\S+) from Bot \d \(right\)", timeout=30)
    received = {c[:-1].lower() + SUITS[c[-1]] for c in got.groups()}
    m = term.expect(PROMPTS["play"], timeout=30)
    line = term.text[term.text.rindex("Your hand: ", 0, m.start()) :].split("\n")[0]
    starred = {c for c in hand_cards(line[len("Your hand: ") :]) if c in received}
    marked = re.findall(r"(10|[2-9JQKA])\*", line)
    assert len(marked) == 3 and len(starred) == 3, line
    term.send("hint")
    term.expect(r"hint: \S+ — [^\n]+ \(Monte-Carlo[^\n]*\)\n")
    answer(term, "play", m)
    play_to_the_end([term], deadline=90)
    assert term.wait() == 0
    screen = term.text
    assert "Traceback" not in screen
    hands = int(re.findall(r"Game over after (\d+) hands?", screen)[0])
    assert screen.count("(hearts are broken by ") == hands
    assert screen.count("(Q♠ is played)") == hands
    assert re.search(r"^you play \S+, your last card$", screen, re.M)  # played for you
    assert re.search(r"^Trick 13[^\n]* · taken: [^\n]*\d$", screen, re.M)


def test_on_a_narrow_terminal_lines_wrap_between_words(
    tmp_path: Path, terminals: list[Terminal]
) -> None:
    """At 60 columns the help's long rows wrap at the width, between words, the rest indented:
    the terminal never cuts a word."""
    disc = str(free_port(socket.SOCK_DGRAM))
    term = Terminal(
        ["play", "--name", "Ada", "--bot-delay", "0", "--data-dir", data_dir(tmp_path, "ada"),
         "--discovery-port", disc],
        hearts_env(), columns=60,
    )  # fmt: skip
    terminals.append(term)
    term.expect(PROMPTS["pass"], timeout=30)
    term.send("help")
    m = term.expect(r"commands:\n((?:  .*\n)+)cards: ")
    rows = m.group(1).splitlines()
    assert all(shown_width(row) <= 60 for row in rows), rows
    quit_row = next(i for i, row in enumerate(rows) if row.startswith("  quit "))
    assert rows[quit_row + 1].startswith("    ")  # its words went on, indented
    words = " ".join(" ".join(rows[quit_row:]).split())
    assert "the others play on, the table playing your seat" in words
