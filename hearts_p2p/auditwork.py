"""The audit's costly checks, done ahead in worker processes: signatures and each hand's deck.

Each message's signature under the key of the player it names, and each hand's deck (every
message as any peer checks it, then the end-of-hand audit), depend on the log alone, not on the
replay before them: hands are checked in parallel while the replay runs through the protocol,
which then takes a signature found good without checking it again and a hand found sound as a
``PresumedHand`` (no cryptography repeated). Whatever did not pass ahead, the replay checks in
full itself, so the verdicts are those of a replay that does everything.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from concurrent.futures import BrokenExecutor, Future
from types import TracebackType
from typing import TYPE_CHECKING, Any

from .deck import DeckError, HandParams, message_from_wire
from .deck.presumed import CheckedHand, PresumedHand, check_hand
from .game import Genesis, HandFlow
from .game.handflow import kind_of
from .wire import SignedMessage, verify_signature

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

__all__ = ["AheadChecks", "default_workers"]

DECK_KINDS = frozenset(
    {"shuffle", "echo_shuffle", "lock", "echo_lock", "deal", "pass_commit", "pass_reveal", "remix",
     "play", "reveal"}
)  # fmt: skip
"""The envelope kinds that carry a deck message."""

MIN_POOLED = 400  # fewer log entries than this (about 4 hands): a pool costs more than it saves
CHUNKS_PER_WORKER = 4

Signed = tuple[bytes, bytes, bytes]  # (key, envelope bytes, signature)
DeckJob = tuple[HandParams, list[tuple[int, str, dict[str, Any]]]]  # (seat, kind, body)


def default_workers(entries: int) -> int:
    """Worker processes for a log of ``entries``: one per core, none for a short log."""
    return 0 if entries < MIN_POOLED else min(os.cpu_count() or 1, 8)


def _verify_all(items: list[Signed | None]) -> list[bool]:
    return [item is not None and verify_signature(*item) for item in items]


def _check_deck(job: DeckJob) -> CheckedHand | None:
    params, bodies = job
    messages = []
    for seat, kind, body in bodies:
        try:
            msg = message_from_wire(body)
        except DeckError:
            return None
        if msg.seat != seat or kind_of(msg).value != kind:
            return None  # the replay will judge it
        messages.append(msg)
    return check_hand(params, messages)


class AheadChecks:
    """The checks of one log, ahead of its replay: in ``workers`` processes, or (0 or 1) in
    this one, each when first asked for."""

    def __init__(
        self, messages: Sequence[SignedMessage], keys: Sequence[bytes], workers: int
    ) -> None:
        self._messages = messages
        self._pool: ProcessPoolExecutor | None = None
        if workers > 1:
            import multiprocessing  # only a pooled audit needs it
            from concurrent.futures import ProcessPoolExecutor

            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ProcessPoolExecutor(workers, mp_context=context)
        items = [
            (keys[m.envelope.sender], m.envelope_bytes, m.signature)
            if m.envelope.sender < len(keys)
            else None
            for m in messages
        ]
        self._size = max(1, -(-len(items) // (max(workers, 1) * CHUNKS_PER_WORKER)))
        self._chunks = [items[i : i + self._size] for i in range(0, len(items), self._size)]
        self._signed: list[Future[list[bool]]] = []  # the chunks handed to the pool so far
        self._hands: dict[int, Future[CheckedHand | None] | DeckJob] = {}
        self.hands_started = False

    def __enter__(self) -> AheadChecks:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)

    def signed_by_sender(self, index: int) -> bool:
        """Whether message ``index`` is signed by the player it names."""
        k, at = divmod(index, self._size)
        if self._pool is None:
            return _verify_all([self._chunks[k][at]])[0]
        self._submit_chunks(k + 1)
        try:
            return self._signed[k].result()[at]
        except BrokenExecutor:  # a worker died (killed, out of memory): check it here
            return _verify_all([self._chunks[k][at]])[0]

    def _submit_chunks(self, count: int) -> None:
        assert self._pool is not None
        while len(self._signed) < min(count, len(self._chunks)):
            self._signed.append(self._pool.submit(_verify_all, self._chunks[len(self._signed)]))

    def start_hands(self, genesis: Genesis, seat_of: Sequence[int]) -> None:
        """Check every hand's deck, now the seats are known: in the pool, in the order of the
        log, each hand's signatures just before its deck, so the replay waits least."""
        self.hands_started = True
        rules = genesis.rules
        player_at = sorted(range(len(seat_of)), key=lambda p: seat_of[p])
        pass_keys = [genesis.players[p].dh for p in player_at]
        jobs: dict[int, list[tuple[int, str, dict[str, Any]]]] = {}
        first: dict[int, int] = {}  # each hand's first message, by its index
        for i, m in enumerate(self._messages):
            env = m.envelope
            if env.hand >= 1 and env.kind in DECK_KINDS:
                seat = seat_of[env.sender] if env.sender < len(seat_of) else -1
                jobs.setdefault(env.hand, []).append((seat, env.kind, env.body))
                first.setdefault(env.hand, i)
        for number, bodies in sorted(jobs.items(), key=lambda item: first[item[0]]):
            try:
                params = HandParams.for_rules(rules, genesis.game_id, number, pass_keys)
            except ValueError:
                continue  # no such hand: the replay says why
            job: DeckJob = (params, bodies)
            if self._pool is None:
                self._hands[number] = job
                continue
            self._submit_chunks(first[number] // self._size + 1)
            self._hands[number] = self._pool.submit(_check_deck, job)
        if self._pool is not None:
            self._submit_chunks(len(self._chunks))

    def presume(self, flow: HandFlow) -> None:
        """Let ``flow``, a hand the replay just began, take what was checked ahead of it."""
        job = self._hands.pop(flow.params.hand_number, None)
        if job is None or not flow.public.fresh:
            return
        try:
            checked = job.result() if isinstance(job, Future) else _check_deck(job)
        except BrokenExecutor:
            return  # a worker died: the replay checks this hand in full
        if checked is not None and checked.params == flow.params:
            flow.public = PresumedHand(checked)
