"""What ``hearts watch`` does once it runs (its parser is ``watch.py``, so that building the
command line loads neither the node nor the audit).

It prints what ``hearts replay`` would, as it happens: the seats, each trick, each hand's passes
(once its cards are revealed) and scores, then the audit's verdict on the watcher's own copy of
the log. Exit codes: 0 a finished game that verifies, 3 an aborted one that verifies, 4 the
game or the host's feed does not verify, 1 no table, unreachable or refused, 2 usage.
"""

from __future__ import annotations

import argparse
import dataclasses
import logging
import sys

import trio

from hearts_p2p.audit import AuditReport, AuditStatus, PlayerSummary, Problem
from hearts_p2p.discovery import DiscoveryConfig
from hearts_p2p.frontend import sit_text
from hearts_p2p.game import SeatedRoster, SeatTaken
from hearts_p2p.netif import InterfaceError, interfaces_from
from hearts_p2p.node.store import default_data_dir
from hearts_p2p.node.watch_client import (
    FeedLost,
    FeedProblem,
    Found,
    HandBegun,
    HandDone,
    TrickDone,
    WatchError,
    WatchEvent,
    WatchOptions,
    WatchResult,
    watch_table,
)
from hearts_p2p.text import clean, quoted

from .args import login_name
from .audit import end_lines, hand_end_lines, hand_heading, table_lines, trick_line
from .datadir import unwritable
from .leaving import LEAVING_SIGNALS
from .netlog import say_network_trouble
from .render import Style

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_ABORTED, EXIT_INVALID, EXIT_INTERRUPTED = 0, 1, 2, 3, 4, 130


class Printer:
    """Writes the watched game as ``hearts replay`` would show it, line by line."""

    def __init__(self, style: Style) -> None:
        self.style = style
        self.seats = AuditReport("")

    def line(self, text: str) -> None:
        sys.stdout.write(self.style.text(text) + "\n")
        sys.stdout.flush()

    async def show(self, event: WatchEvent) -> None:
        for text in self.lines(event):
            self.line(text)

    def lines(self, event: WatchEvent) -> list[str]:
        r = self.seats
        if isinstance(event, Found):
            ad = event.info.announcement
            where = f"{quoted(ad.table_name)} hosted by {clean(ad.host_name)} "
            where += f"({event.info.host_fingerprint})"
            if event.playing:
                return [f"Watching {where}"]
            seated = f"{ad.seats_taken}/{ad.seats_total} seated"
            return [f"Table {where} is forming ({seated}); watching starts when it does"]
        if isinstance(event, SeatedRoster):
            r.players = [
                PlayerSummary(p.seat, p.seat, p.name, p.fingerprint, p.is_bot)
                for p in event.players
            ]
            r.rules = event.rules_summary
            return [f"Rules: {event.rules_summary}", *table_lines(r)]
        if isinstance(event, SeatTaken):
            line = sit_text(event, r.name(event.seat))
            if 0 <= event.seat < len(r.players):  # named the newcomer's way from now on
                old = r.players[event.seat]
                r.players[event.seat] = dataclasses.replace(
                    old, name=event.name, fingerprint=event.fingerprint
                )
            return [line]
        if isinstance(event, HandBegun):
            return [hand_heading(r, event.number, event.dealer, event.pass_direction)]
        if isinstance(event, TrickDone):
            return [trick_line(r, event.number, event.trick, self.style)]
        if isinstance(event, HandDone):
            return hand_end_lines(r, event.summary, self.style)
        if isinstance(event, FeedLost):
            return [
                f"The feed from {clean(event.server)}'s node ended before the game did; looking "
                f"for the node that announces the table now (up to {event.patience:.0f} s)"
            ]
        assert isinstance(event, FeedProblem)
        return [f"PROBLEM {clean(event.text, 500)}"]


def run(args: argparse.Namespace) -> int:
    try:
        opts = _options(args)
    except (ValueError, InterfaceError) as e:
        sys.stderr.write(f"hearts watch: {e}\n")
        return EXIT_USAGE
    if (problem := unwritable(opts.log_dir)) is not None:
        sys.stderr.write(f"hearts watch: {problem}\n")
        return EXIT_ERROR
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(name)s: %(message)s")
    else:
        say_network_trouble(lambda text: sys.stderr.write(f"hearts watch: {text}\n"))
    printer = Printer(Style.for_stream(sys.stdout))
    outcome = trio.run(_watch, opts, args.table, printer)
    if isinstance(outcome, WatchError):
        sys.stderr.write(f"hearts watch: {outcome}\n")
        return EXIT_ERROR
    if outcome is None:
        sys.stderr.write("\ninterrupted: stopped watching\n")
        return EXIT_INTERRUPTED
    for text in verdict_lines(outcome):
        printer.line(text)
    return exit_code(outcome)


async def _watch(
    opts: WatchOptions, table: str | None, printer: Printer
) -> WatchResult | WatchError | None:
    """The watch's result, why it could not be had, or None after a Ctrl-C (which only stops
    this program: a watcher leaving changes nothing at the table)."""
    outcome: WatchResult | WatchError | None = None
    async with trio.open_nursery() as nursery:

        async def watch() -> None:
            nonlocal outcome
            try:
                outcome = await watch_table(opts, table, printer.show)
            except WatchError as e:
                outcome = e
            nursery.cancel_scope.cancel()

        async def interrupts() -> None:
            with trio.open_signal_receiver(*LEAVING_SIGNALS) as signals:
                async for _ in signals:
                    nursery.cancel_scope.cancel()

        nursery.start_soon(interrupts)
        nursery.start_soon(watch)
    return outcome


def _options(args: argparse.Namespace) -> WatchOptions:
    name = args.name if args.name is not None else login_name()
    if not 0 < len(name) <= 32 or not name.isprintable():
        raise ValueError("--name must be 1 to 32 printable characters")
    if args.wait <= 0:
        raise ValueError("--wait must be positive")
    root = args.data_dir or default_data_dir()
    discovery = DiscoveryConfig(args.group, args.discovery_port, broadcast=args.broadcast)
    ifaces = interfaces_from(args.interface)
    return WatchOptions(name, ifaces, root / "watched", discovery, find_timeout=args.wait)


def verdict_lines(result: WatchResult) -> list[str]:
    """How the watch ended, then the audit's last lines on the watcher's copy of the log."""
    lines = []
    report = result.report
    if not result.complete:
        lines.append("The host's feed ended before the game did")
    if result.feed_problems:
        lines.append(
            f"The host's feed held {result.feed_problems} frame(s) that no player signed: "
            "the feed is at fault, and no player is blamed for them"
        )
        report = _stalled_by_the_feed(report)
    lines += end_lines(report)
    lines.append(f"Watched log: {result.log_path} (hearts audit checks it again)")
    return lines


def _stalled_by_the_feed(report: AuditReport) -> AuditReport:
    """The audit of a log that stops where the feed dropped a frame says whom the game waits
    for; but that player sent its message, which the feed mangled: say so instead."""
    last = report.problems[-1] if report.problems else None
    if report.status is not AuditStatus.INCOMPLETE or last is None or last.culprit is not None:
        return report
    why = "the game can be checked no further: a message the feed dropped belongs here"
    return dataclasses.replace(report, problems=[*report.problems[:-1], Problem(last.where, why)])


def exit_code(result: WatchResult) -> int:
    report = result.report
    if not report.valid or result.feed_problems:
        return EXIT_INVALID
    return EXIT_OK if report.status is AuditStatus.FINISHED else EXIT_ABORTED
