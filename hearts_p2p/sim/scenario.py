"""What one seed decides before the table sits down: the rules, the seats, the adversaries and
every fault with its moment. Drawn from the seed alone, so a run replays exactly."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from enum import StrEnum

from ..rules import GameKind, Moon, Rules

__all__ = ["Attack", "Fault", "FaultKind", "Scenario", "draw"]


class FaultKind(StrEnum):
    """What the network, a clock or a person does to an honest peer."""

    CRASH = "crash"  # the process dies; it comes back from its log after a while, or never
    PARTITION = "partition"  # some connections break, heal later or never
    QUIT = "quit"  # the person quits: signed, the table plays the seat
    EARLY_CLOCK = "early clock"  # its clock gives up on a peer that is still there
    SLOW = "slow"  # the person thinks to the move clock on every decision
    DUPLICATES = "duplicates"  # frames come twice


class Attack(StrEnum):
    """What a hostile peer does, with every key it holds, through the project's own classes."""

    FALSE_VOTE = "false vote"  # signs that a present player is gone or stalled
    NOLEAD = "nolead"  # says the first lead's card is not its, at any moment
    CLAIM = "refused claim"  # claims the rest when the claim does not hold, again and again
    EQUIVOCATE = "equivocate"  # two bodies for one step, to different peers
    REPLAY = "replay"  # sends old frames again: its own, the others', another game's
    JUNK = "junk"  # signs any kind with a malformed or random body
    WITHHOLD = "withhold"  # sends its messages to some peers only
    STALL = "stall"  # takes 0.9 of the timeout over every message it owes
    QUIT = "quit"  # signs that it leaves, then goes on sending
    ABORT = "abort"  # signs an abort naming another player
    SILENT = "silent"  # stops answering for good


@dataclass(frozen=True)
class Fault:
    kind: FaultKind
    peer: int
    at: float
    lasts: float | None = None  # None: for good
    torn: bool = False
    others: tuple[int, ...] = ()  # a partition's other side; an early clock's victim


@dataclass(frozen=True)
class Scenario:
    seed: int
    rules: Rules
    timeout: float
    hostile: dict[int, frozenset[Attack]]  # player -> its attacks
    faults: tuple[Fault, ...]
    max_hands: int
    bots: tuple[str, ...]
    proof_rounds: int = 2
    names: tuple[str, ...] = field(default=())

    @property
    def n(self) -> int:
        return self.rules.players

    def describe(self) -> str:
        hostile = ", ".join(
            f"p{p}: {'+'.join(sorted(a.value for a in attacks))}"
            for p, attacks in sorted(self.hostile.items())
        )
        faults = ", ".join(f"{f.kind.value} p{f.peer}@{f.at:.1f}s" for f in self.faults)
        return (
            f"seed {self.seed}: {self.rules.summary()}; timeout {self.timeout:.0f} s; "
            f"up to {self.max_hands} hands; hostile [{hostile or 'none'}]; "
            f"faults [{faults or 'none'}]"
        )


def _rules(rng: random.Random, players: int | None) -> Rules:
    if rng.random() < 0.3 and players in (None, 4, 5):
        n = players or rng.choice((4, 5))
        exposed = rng.random() < 0.1
        return Rules(
            n,
            game=GameKind.GONGZHU,
            limit=rng.choice((200, 400, 600)),
            expose_all=exposed,
            force_fourth=rng.random() < 0.2 and not exposed,
            hearts_by_rank=rng.random() < 0.2,
            same_colour_discard=rng.random() < 0.2,
        )
    n = players or rng.choice((3, 4, 4, 5, 6))
    return Rules(
        n,
        passing=rng.random() < 0.8,
        moon=rng.choice(list(Moon)),
        jack_of_diamonds=rng.random() < 0.2,
        queen_breaks_hearts=rng.random() < 0.2,
        target=rng.choice((15, 26, 40)),
        claims=rng.random() < 0.4,
    )


def draw(
    seed: int, *, players: int | None = None, adversaries: int | None = None, faults: bool = True
) -> Scenario:
    """The scenario of ``seed``: ``players`` and ``adversaries`` fixed, or drawn (adversaries
    from 0 up to n − 2, the most colluders the promise covers)."""
    rng = random.Random(seed)
    rules = _rules(rng, players)
    n = rules.players
    timeout = rng.choice((4.0, 10.0, 30.0))
    k = adversaries if adversaries is not None else rng.choice((0, 0, 1, 1, 1, n - 2))
    k = max(0, min(k, n - 2))
    seats = rng.sample(range(n), k)
    hostile = {
        p: frozenset(rng.sample(list(Attack), rng.choice((1, 1, 2, 3)))) for p in sorted(seats)
    }
    honest = [p for p in range(n) if p not in hostile]
    drawn: list[Fault] = []
    span = 40.0 + 3 * timeout
    for _ in range(rng.choice((0, 0, 1, 1, 2)) if faults else 0):
        kind = rng.choice(list(FaultKind))
        peer = rng.choice(honest)
        at = rng.uniform(0.0, span)
        others = tuple(q for q in range(n) if q != peer)
        if kind is FaultKind.PARTITION:
            side = rng.sample(others, rng.randint(1, len(others)))
            lasts = rng.choice((0.5 * timeout, 2.0 * timeout, None))
            drawn.append(Fault(kind, peer, at, lasts, others=tuple(sorted(side))))
        elif kind is FaultKind.CRASH:
            lasts = rng.choice((0.2 * timeout, 0.9 * timeout, 3.0 * timeout, None))
            drawn.append(Fault(kind, peer, at, lasts, torn=rng.random() < 0.5))
        elif kind is FaultKind.EARLY_CLOCK:
            drawn.append(Fault(kind, peer, at, others=(rng.choice(others),)))
        else:
            drawn.append(Fault(kind, peer, at))
    bots = tuple(rng.choice(("random", "random", "heuristic")) for _ in range(n))
    return Scenario(
        seed, rules, timeout, hostile, tuple(drawn), max_hands=rng.choice((1, 1, 2, 3)),
        bots=bots, names=tuple(f"p{i}" for i in range(n)),
    )  # fmt: skip
