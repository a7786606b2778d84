"""``hearts audit LOG`` checks a finished game; ``hearts replay LOG`` shows it trick by trick."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hearts_p2p.cards import Card
from hearts_p2p.frontend import voided_text
from hearts_p2p.text import clean, json_escaped, quoted

from .overview import COMMANDS
from .render import Style, points_text

if TYPE_CHECKING:  # the audit itself (the game protocol, the deck) loads only when it runs
    from hearts_p2p.audit import AuditReport, HandSummary, TrickSummary

EXIT_VALID = 0
EXIT_INVALID = 4


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "audit",
        help=COMMANDS["audit"],
        description="Verify a game log on its own: signatures, the hash chain, the genesis, the "
        "deck protocol and its end-of-hand audits, every play through the rules, every score.",
        epilog="exit codes: 0 the log is valid (a finished game, or an aborted one whose log is "
        "consistent), 4 the log is not valid, 1 the file cannot be read, 2 usage.\n"
        "example: hearts audit ~/.local/share/hearts-p2p/games/3f2a….log --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("log", type=Path, help="the game log file")
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")
    p.set_defaults(func=run_audit)

    r = sub.add_parser(
        "replay",
        help=COMMANDS["replay"],
        description="Show a game from its log: passes, every trick, points and totals.",
        epilog="example: hearts replay game.log",
    )
    r.add_argument("log", type=Path, help="the game log file")
    r.add_argument(
        "--json",
        action="store_true",
        help="print the game as one JSON object: players, every hand and trick, totals by "
        "name, winners, the final hash",
    )
    r.set_defaults(func=run_replay)


EXIT_ERROR = 1


def unreadable(path: Path) -> str | None:
    """Why ``path`` cannot be read as a log, if it cannot: a missing file is a mistake in the
    command, not an invalid game."""
    try:
        with open(path, "rb"):
            return None
    except FileNotFoundError:
        return f"{path}: no such file"
    except IsADirectoryError:
        return f"{path}: is a directory, not a game log"
    except OSError as e:
        return f"{path}: cannot read it ({e.strerror or e})"


def run_audit(args: argparse.Namespace) -> int:
    if (problem := unreadable(args.log)) is not None:
        sys.stderr.write(f"hearts audit: {problem}\n")
        return EXIT_ERROR
    from hearts_p2p.audit import audit_log

    report = audit_log(args.log)
    _show(report, args.json, tricks=False)
    return EXIT_VALID if report.valid else EXIT_INVALID


def run_replay(args: argparse.Namespace) -> int:
    if (problem := unreadable(args.log)) is not None:
        sys.stderr.write(f"hearts replay: {problem}\n")
        return EXIT_ERROR
    from hearts_p2p.audit import audit_log

    report = audit_log(args.log)
    _show(report, args.json, tricks=True)
    return EXIT_VALID if report.valid else EXIT_INVALID


def _show(report: AuditReport, as_json: bool, *, tricks: bool) -> None:
    if as_json:
        document = json.dumps(report_json(report), indent=2, ensure_ascii=False)
        sys.stdout.write(json_escaped(document) + "\n")
    else:
        style = Style.for_stream(sys.stdout)
        sys.stdout.write("\n".join(render_report(report, style, tricks=tricks)) + "\n")


def report_json(report: AuditReport) -> dict[str, object]:
    """The report as data, with the totals and winners by name as well as by seat."""
    document = report.to_json()
    document["scores"] = [
        {"seat": s, "name": _player(report, s), "total": t} for s, t in enumerate(report.totals)
    ]
    document["winner_names"] = [_player(report, w) for w in report.winners]
    return document


def _player(report: AuditReport, seat: int) -> str:
    """A seat's player by name alone, where the seat is clear from the line around it."""
    return report.players[seat].name if 0 <= seat < len(report.players) else f"seat {seat}"


def _card(style: Style, text: str) -> str:
    return style.card(Card.parse(text))


def render_report(report: AuditReport, style: Style, *, tricks: bool) -> list[str]:
    lines = [f"Game log {report.path}: {report.entries} entries", *table_lines(report)]
    for hand in report.hands:
        lines += _hand_lines(report, hand, style, tricks)
    for taken in report.takeovers:
        lines.append(
            f"{clean(report.name(taken.seat), 60)} {taken.ending} in hand {taken.hand}: "
            "its secret recovered from the escrow, the table played it from there"
        )
    for void in report.voids:
        names = [clean(report.players[s].name, 60) if s < len(report.players) else f"seat {s}"
                 for s in void.seats]  # fmt: skip
        lines.append(voided_text(void.hand, names, void.redeal))
    for back in report.returns:
        who = clean(report.name(back.seat), 60)
        if back.back:
            lines.append(f"{who} took its seat back at hand {back.hand}; every seat re-keyed")
        elif back.refused_by:
            by = ", ".join(clean(report.name(s), 60) for s in back.refused_by)
            why = "said a fresh escrow box to them does not open, or carried no rejoin"
            lines.append(f"{who} asked its seat back at hand {back.hand}; refused: {by} {why}")
        else:
            lines.append(f"{who} asked its seat back at hand {back.hand}; its rejoin never came")
    for sit in report.sits:
        where = clean(report.name(sit.seat), 60)
        who = f"{clean(sit.name, 60)} ({sit.fingerprint})"
        if sit.taken:
            lines.append(f"{who} took {where} from hand {sit.hand} (was {clean(sit.was, 60)}); "
                         "every seat re-keyed")  # fmt: skip
        elif sit.refused_by:
            by = ", ".join(clean(report.name(s), 60) for s in sit.refused_by)
            lines.append(f"{who} asked for {where} at hand {sit.hand}; refused by {by}")
        else:
            lines.append(f"{who} asked for {where} at hand {sit.hand}; its rejoin never came")
    return lines + end_lines(report)


def table_lines(report: AuditReport) -> list[str]:
    """The table and who sits where."""
    lines = [f"Table {quoted(report.table)}: {report.rules}"] if report.table else []
    for p in report.players:
        bot = " (bot)" if p.bot else ""
        lines.append(f"  seat {p.seat}: {clean(p.name)}{bot}, key {p.fingerprint}")
    return lines


def end_lines(report: AuditReport) -> list[str]:
    """Totals, winners, how the game ended, the final hash, the problems and the verdict."""
    from hearts_p2p.audit import AuditStatus  # loaded already: there is a report

    lines = []
    if report.totals:
        lines.append("Totals: " + ", ".join(
            f"{clean(report.players[s].name)} {t}" for s, t in enumerate(report.totals)
        ))  # fmt: skip
    if report.results:
        lines.append("Results (own total × 3 − the others'): " + ", ".join(
            f"{clean(report.players[s].name)} {r:+d}" for s, r in enumerate(report.results)
        ))  # fmt: skip
    if report.winners:
        lines.append("Winner: " + ", ".join(clean(report.name(w), 60) for w in report.winners))
    if report.abort:
        a = report.abort
        if a.blamed:
            tail = f"; cheat proven: {clean(a.blamed, 60)}"
        elif a.claim_by:
            tail = f" (the word of {clean(a.claim_by, 60)} alone: it blames no one)"
        else:
            tail = ""
        lines.append(f"Aborted: {clean(a.reason, 300)}{tail}")
    if report.final_hash:
        lines.append(f"Final hash: {report.final_hash}")
    lines += [f"PROBLEM {clean(str(problem), 500)}" for problem in report.problems]
    if report.valid:
        verdict = (
            "VALID: a finished game"
            if report.status is AuditStatus.FINISHED
            else "VALID: an aborted game"
        )
    else:
        verdict = f"INVALID: {len(report.problems)} problem(s)"
    lines.append(verdict)
    return lines


def hand_heading(report: AuditReport, number: int, dealer: int, direction: str) -> str:
    """``Hand 2 (dealer …, pass right)``; no pass named for a game without one (Gong Zhu)."""
    passing = f", pass {direction}" if direction else ""
    return f"Hand {number} (dealer {clean(report.name(dealer), 60)}{passing})"


def trick_line(report: AuditReport, number: int, t: TrickSummary, style: Style) -> str:
    def name(seat: int) -> str:
        return clean(report.name(seat), 60)

    plays = ", ".join(f"{name(s)} {_card(style, c)}" for s, c in t.plays)
    pts = f" ({points_text(t.points)})" if t.points else ""
    arrow = "→" if style.unicode else "->"
    return f"  trick {number}: {plays} {arrow} {name(t.winner)}{pts}"


def _before_tricks(report: AuditReport, hand: HandSummary, style: Style) -> list[str]:
    """The exposures (Gong Zhu) and the passes, known once the hand's cards are revealed."""

    def name(seat: int) -> str:
        return clean(report.name(seat), 60)

    out = []
    for seat, shown_cards in enumerate(hand.exposed):
        if shown_cards:
            out.append(f"  {name(seat)} exposed {' '.join(_card(style, c) for c in shown_cards)}")
    for src, dst, cards in hand.passes:
        if cards is None:
            out.append(f"  {name(src)} passed to {name(dst)}: private")
            continue
        shown = " ".join(_card(style, c) for c in cards)
        out.append(f"  {name(src)} passed {shown} to {name(dst)}")
    return out


def _after_tricks(report: AuditReport, hand: HandSummary) -> list[str]:
    """A claim, the moon, the points and the totals."""

    def name(seat: int) -> str:
        return clean(report.name(seat), 60)

    out = []
    if hand.claimed is not None:
        out.append(f"  {name(hand.claimed)} claimed the rest")
    if hand.moon is not None:
        out.append(f"  {name(hand.moon)} shot the moon")
    short = [clean(_player(report, s)) for s in range(len(hand.points))]
    out.append(
        "  points: " + ", ".join(f"{n} {p:+d}" for n, p in zip(short, hand.points, strict=True))
    )
    out.append(
        "  totals: " + ", ".join(f"{n} {t}" for n, t in zip(short, hand.totals, strict=True))
    )
    return out


def hand_end_lines(report: AuditReport, hand: HandSummary, style: Style) -> list[str]:
    """What a hand shows once it is revealed: exposures, passes, a claim, the moon, points."""
    return _before_tricks(report, hand, style) + _after_tricks(report, hand)


def _hand_lines(report: AuditReport, hand: HandSummary, style: Style, tricks: bool) -> list[str]:
    played = enumerate(hand.tricks, 1) if tricks else enumerate(())
    shown = [trick_line(report, i, t, style) for i, t in played]
    direction = "" if hand.exposed else hand.pass_direction
    heading = hand_heading(report, hand.number, hand.dealer, direction)
    before, after = _before_tricks(report, hand, style), _after_tricks(report, hand)
    return [heading, *before, *shown, *after]
