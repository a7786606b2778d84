"""The audit's costly checks, done ahead in worker processes: signatures and each hand's deck.

Each message's signature under the key of the player it names, and each hand's deck (every
message as any peer checks it, then the end-of-hand audit), depend on the log alone, not on the
replay before them: hands are checked in parallel while the replay runs through the protocol,
which then takes a signature found good without checking it again and a hand found sound as a
``PresumedHand`` (no cryptography repeated). Whatever did not pass ahead, the replay checks in
full itself, so the verdicts are those of a replay that does everything.

The workers start with the decoded log and the roster's keys (inherited as they fork, so
nothing of the log is pickled; sent once each under another start method): a job names entries
by their index, and only verdicts and checked hands come back.
"""

from __future__ import annotations

import gc
import os
from bisect import bisect_right
from collections.abc import Callable, Sequence
from concurrent.futures import BrokenExecutor, Future
from types import TracebackType
from typing import TYPE_CHECKING, TypeVar

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
     "remix_share", "remix_answer", "play", "reveal"}
)  # fmt: skip
"""The envelope kinds that carry a deck message."""

MIN_POOLED = 400  # fewer log entries than this (about 4 hands): a pool costs more than it saves
CHUNKS_PER_WORKER = 4
MIN_CHUNK = 8  # signatures: under a millisecond of work, worth the round trip to a worker

DeckJob = tuple[HandParams, tuple[int, ...], tuple[int, ...]]  # (params, entries, seat_of)

T = TypeVar("T")

_shared: tuple[Sequence[SignedMessage], Sequence[bytes]] = ((), ())
"""In a worker process: the log's decoded messages and the roster's keys."""


def default_workers(entries: int) -> int:
    """Worker processes for a log of ``entries``: one per core, none for a short one."""
    return 0 if entries < MIN_POOLED else min(os.cpu_count() or 1, 8)


def _share(messages: Sequence[SignedMessage], keys: Sequence[bytes]) -> None:
    global _shared
    _shared = (messages, keys)


def signed(
    messages: Sequence[SignedMessage], keys: Sequence[bytes], start: int, stop: int
) -> list[bool]:
    """Whether each of ``messages[start:stop]`` is signed by the player it names."""
    out = []
    for m in messages[start:stop]:
        sender = m.envelope.sender
        out.append(
            sender < len(keys) and verify_signature(keys[sender], m.envelope_bytes, m.signature)
        )
    return out


def check_deck(messages: Sequence[SignedMessage], job: DeckJob) -> CheckedHand | None:
    """The hand of ``job`` checked from its entries, or None if the replay must judge it."""
    params, entries, seat_of = job
    deck = []
    for i in entries:
        env = messages[i].envelope
        try:
            msg = message_from_wire(env.body)
        except DeckError:
            return None
        seat = seat_of[env.sender] if env.sender < len(seat_of) else -1
        if msg.seat != seat or kind_of(msg).value != env.kind:
            return None  # the replay will judge it
        deck.append(msg)
    return check_hand(params, deck)


def _signed_ahead(start: int, stop: int) -> list[bool]:
    return signed(*_shared, start, stop)


def _check_deck(job: DeckJob) -> CheckedHand | None:
    return check_deck(_shared[0], job)


class AheadChecks:
    """The checks of one log, ahead of its replay: in ``workers`` processes, or (0 or 1) in
    this one, each when first asked for. The first ``checked`` messages are known to be
    signed by their senders (the genesis, checked before the replay)."""

    def __init__(
        self,
        messages: Sequence[SignedMessage],
        keys: Sequence[bytes],
        workers: int,
        *,
        checked: int = 0,
    ) -> None:
        self._messages = messages
        self._keys = keys
        self._checked = checked
        self._pool: ProcessPoolExecutor | None = None
        self._starts = _chunk_starts(messages, checked, max(workers, 1) * CHUNKS_PER_WORKER)
        # The seating's chunk, first, is checked here: it is wanted at once, and is short.
        self._signed: list[Future[list[bool]] | None] = [None]  # the chunks handed out so far
        self._hands: dict[int, Future[CheckedHand | None] | DeckJob] = {}
        self._read: tuple[int, int, list[bool]] = (0, 0, [])  # the chunk last read: its range
        self.hands_started = False
        if workers > 1:
            import multiprocessing  # only a pooled audit needs it
            from concurrent.futures import ProcessPoolExecutor

            methods = multiprocessing.get_all_start_methods()
            context = multiprocessing.get_context("fork" if "fork" in methods else None)
            self._pool = ProcessPoolExecutor(
                workers, mp_context=context, initializer=_share, initargs=(messages, keys)
            )
            # A forked worker's collector would walk every object it inherits, and so copy
            # every page of them: frozen as the workers fork, they are no collector's.
            frozen = gc.get_freeze_count() > 0
            gc.freeze()
            try:
                self._submit_chunks(1 + workers)  # the first hands' signatures: none waits
            finally:
                if not frozen:
                    gc.unfreeze()

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
        start, stop, verdicts = self._read
        if start <= index < stop:
            return verdicts[index - start]
        if index < self._checked:
            return True
        if self._pool is None:
            return signed(self._messages, self._keys, index, index + 1)[0]
        k = bisect_right(self._starts, index) - 1
        self._submit_chunks(k + 1)
        chunk = self._signed[k]
        try:
            if chunk is not None:
                self._read = (self._starts[k], self._starts[k + 1], chunk.result())
                self._release_when_done()
                return self._read[2][index - self._starts[k]]
        except BrokenExecutor:
            pass
        return signed(self._messages, self._keys, index, index + 1)[0]

    def _submit_chunks(self, count: int) -> None:
        starts = self._starts
        while len(self._signed) < min(count, len(starts) - 1):
            k = len(self._signed)
            self._signed.append(self._submit(_signed_ahead, starts[k], starts[k + 1]))

    def _release_when_done(self) -> None:
        """Let the workers go as soon as every check handed to them is done: they exit while
        the replay runs through its last steps."""
        pool = self._pool
        if pool is None or not self.hands_started or len(self._signed) < len(self._starts) - 1:
            return
        if any(isinstance(job, Future) and not job.done() for job in self._hands.values()):
            return
        if all(chunk is None or chunk.done() for chunk in self._signed):
            pool.shutdown(wait=False)

    def _submit(self, fn: Callable[..., T], *args: object) -> Future[T] | None:
        """``fn(*args)`` in the pool; None once a worker has died (killed, out of memory): the
        pool takes no more, and what it would have done is done here."""
        assert self._pool is not None
        try:
            return self._pool.submit(fn, *args)
        except BrokenExecutor:
            return None

    def start_hands(self, genesis: Genesis, seat_of: Sequence[int]) -> None:
        """Check every hand's deck, now the seats are known: in the pool, in the order of the
        log, each hand's signatures just before its deck, so the replay waits least."""
        self.hands_started = True
        rules = genesis.rules
        player_at = sorted(range(len(seat_of)), key=lambda p: seat_of[p])
        pass_keys = [genesis.players[p].dh for p in player_at]
        entries: dict[int, list[int]] = {}  # each hand's deck messages, by index, in log order
        for i, m in enumerate(self._messages):
            env = m.envelope
            if env.hand >= 1 and env.kind in DECK_KINDS:
                entries.setdefault(env.hand, []).append(i)
        seats = tuple(seat_of)
        for number, indices in sorted(entries.items(), key=lambda item: item[1][0]):
            try:
                params = HandParams.for_rules(
                    rules, genesis.game_id, number, pass_keys, genesis.proof_rounds
                )
            except ValueError:
                continue  # no such hand: the replay says why
            job: DeckJob = (params, tuple(indices), seats)
            if self._pool is None:
                self._hands[number] = job
                continue
            self._submit_chunks(bisect_right(self._starts, indices[0]))
            self._hands[number] = self._submit(_check_deck, job) or job
        if self._pool is not None:
            self._submit_chunks(len(self._starts))

    def presume(self, flow: HandFlow) -> None:
        """Let ``flow``, a hand the replay just began, take what was checked ahead of it."""
        job = self._hands.pop(flow.params.hand_number, None)
        if job is None or not flow.public.fresh:
            return
        try:
            checked = job.result() if isinstance(job, Future) else check_deck(self._messages, job)
        except BrokenExecutor:
            return  # a worker died: the replay checks this hand in full
        if checked is not None and checked.params == flow.params:
            flow.public = PresumedHand(checked)
        self._release_when_done()


def _chunk_starts(messages: Sequence[SignedMessage], first: int, chunks: int) -> list[int]:
    """Where each chunk of signatures starts (and, last, where the messages end): at each
    hand's first message, so that a hand's signatures come with its deck; at most
    ``len / chunks`` messages apart; and towards the end, each at most half of what is left
    (down to ``MIN_CHUNK``), so the replay runs through the last hand while its last
    signatures are checked, rather than after."""
    end = len(messages)
    size = max(1, -(-(end - first) // chunks))
    hands: set[int] = set()
    starts = [first]
    for i in range(first, end):
        hand = messages[i].envelope.hand
        limit = max(MIN_CHUNK, min(size, (end - starts[-1]) // 2))
        if i - starts[-1] >= limit or (hand not in hands and i > starts[-1]):
            starts.append(i)
        hands.add(hand)
    starts.append(end)
    return starts
