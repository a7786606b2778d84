"""One simulated table from one seed: the peers, the network, the faults, and the record the
invariants are checked on."""

from __future__ import annotations

import functools
import hashlib
import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..game import GameProtocol, Genesis, Player, Status
from ..game.timebank import BANK_SHARE
from ..identity import Identity
from ..wire import SignedMessage
from .adversary import Adversary
from .network import Clock, Network
from .peer import SimPeer
from .scenario import Fault, FaultKind, Scenario

__all__ = ["World"]

# A normal hand of simulated time with no fault: bots think 0.3 s on average and frames take
# 25 ms; a 6-seat hand with passing takes about 30 s. Anything past this and the timeouts the
# faults and the attacks may each cost is a table held hostage.
HAND_SECONDS = 120.0
MAX_TRACE = 2000
_TRACED = frozenset({"takeover", "recover", "abort", "nolead", "rejoin", "reclaim", "sit"})
LINGER = 5.0  # simulated seconds the run goes on once it is done
LINGER_RELAYED = 1.0  # its last part, when only what honest peers relay is still sent
MAX_EVENTS = 400_000  # a run's events at most: far past any table the bound lets finish


@dataclass
class Coverage:
    """What a run reached: (step kind, message kind, fault) triples, and milestones."""

    combos: set[tuple[str, str, str]] = field(default_factory=set)
    milestones: Counter[str] = field(default_factory=Counter)


def scored(proto: GameProtocol) -> int:
    """Hands this peer has seen scored (the next deck's steps run during a hand's play, so the
    step's hand number runs ahead)."""
    return len(proto.game.results) if proto.game is not None else 0


class World:
    """The table of ``scenario``: every peer's real protocol on a simulated network."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.rng = random.Random(scenario.seed ^ 0x5EED)
        self.n = scenario.n
        self.timeout = scenario.timeout
        self.proof_rounds = scenario.proof_rounds
        self.clock = Clock()
        self.net = Network(self.clock, self.rng, self.n, self._deliver, self._changed)
        self.game_id = hashlib.sha256(b"sim game %d" % scenario.seed).digest()[:16]
        ids = [Identity.from_seed(hashlib.sha256(b"sim id %d" % i).digest()) for i in range(self.n)]
        self.keys = [i.public_key for i in ids]
        self.host_key = self.keys[0]
        self.coverage = Coverage()
        self.faulted: dict[int, set[FaultKind]] = {p: set() for p in range(self.n)}
        self.give_ups: list[tuple[int, int, bool, float]] = []  # (by, about, stalled, when)
        self._partitioned: set[tuple[int, int]] = set()
        self.reached = False  # the run got where it was asked to, within the bound
        self.trace: list[str] = []
        self.peers: list[SimPeer] = []
        for i in range(self.n):
            secret = hashlib.sha256(b"sim secret %d %d" % (scenario.seed, i)).digest()
            attacks = scenario.hostile.get(i)
            bot = scenario.bots[i]
            if attacks:
                self.peers.append(Adversary(self, i, ids[i], secret, bot, attacks))
            else:
                self.peers.append(SimPeer(self, i, ids[i], secret, bot))
        players = tuple(
            Player(scenario.names[i], self.keys[i], self.peers[i].protocol.dh_public, False)
            for i in range(self.n)
        )
        self.genesis = Genesis(
            self.game_id, "sim table", scenario.rules, players, 0, scenario.proof_rounds
        )

    # -- the run -----------------------------------------------------------------------------

    def start(self) -> None:
        """Schedule the faults, start every peer's clocks, and have the host propose."""
        for f in self.scenario.faults:
            self.clock.at(f.at, functools.partial(self._fault, f))
        for peer in self.peers:
            peer.start()
            if isinstance(peer, Adversary):
                peer.plan()
        host = self.peers[0]
        host.protocol.propose(self.genesis)
        host.flush()

    def run_until(self, stop: Callable[[], bool], max_events: int = MAX_EVENTS) -> bool:
        """Run events until ``stop()`` holds (True), or none is left within the time bound."""
        limit = self.time_bound
        while self.clock.processed < max_events:
            if stop():
                return True
            if not self.clock.step(limit):
                return False
        return False

    def finish(self, max_events: int = MAX_EVENTS) -> None:
        """Run to the end the scenario asks for, then linger as a node does after its end:
        what is in flight still arrives, and a late copy of an equivocation upgrades a verdict
        alike at every peer. In its last second the hostile peers send nothing more: what a
        culprit sent reaches every honest peer, relayed, while they still listen. (One sent as
        the last of them leaves can reach only some: SPEC 6.11, what may still differ.)"""
        self.reached = self.run_until(self.done, max_events)
        linger = min(self.time_bound, self.clock.now + LINGER)
        self._run_to(linger - LINGER_RELAYED, max_events)
        self.net.quiet = frozenset(p.index for p in self.peers if p.hostile)
        self._run_to(linger, max_events)

    def _run_to(self, until: float, max_events: int) -> None:
        while self.clock.processed < max_events and self.clock.step(until):
            pass

    def run(self, max_events: int = MAX_EVENTS) -> None:
        self.start()
        self.finish(max_events)

    @property
    def time_bound(self) -> float:
        """How long the table may take before it counts as held: a normal hand's time for each
        hand, and, for each fault and each hostile seat, what the clocks let one seat cost a
        hand: its bank and one timeout more (``TimeBank``), a step's stall, a takeover round
        and a return, each within a timeout."""
        s = self.scenario
        hands = s.max_hands + 1
        per_seat = (BANK_SHARE + 4) * self.timeout
        trouble = len(s.faults) + len(s.hostile)
        return hands * (HAND_SECONDS + trouble * per_seat) + 60.0

    def honest(self) -> list[SimPeer]:
        return [p for p in self.peers if not p.hostile]

    def done(self) -> bool:
        """Every honest peer still running has ended its game, or played the hands asked."""
        live = [p for p in self.honest() if p.alive or not p.gone_for_good]
        for p in live:
            if not p.alive:
                return False  # it comes back: wait for it
            if p.finished:
                continue
            if scored(p.protocol) < self.scenario.max_hands:
                return False
        return True

    # -- wiring --------------------------------------------------------------------------------

    def _deliver(self, sender: int, receiver: int, frame: bytes) -> None:
        self.peers[receiver].deliver(sender, frame)

    def _changed(self, peer: int, other: int, up: bool) -> None:
        self.peers[peer].link_changed(other, up)

    def peer_down(self, index: int) -> None:
        for j in range(self.n):
            if j != index:
                self.net.set_link(index, j, False)

    def peer_up(self, index: int) -> None:
        for j in range(self.n):
            if j != index and self.peers[j].alive and not self._cut(index, j):
                self.net.set_link(index, j, True)

    def _cut(self, i: int, j: int) -> bool:
        return (i, j) in self._partitioned or (j, i) in self._partitioned

    def player_of(self, proto: GameProtocol, peer: int) -> int | None:
        """The player ``peer``'s key signs for now (a newcomer's seat has none here)."""
        g = proto.genesis
        if g is None:
            return None
        key = self.keys[peer]
        for player, new in proto.holders.items():
            if new.key == key:
                return player
        first = g.index_of(key)
        return None if first is None or first in proto.holders else first

    def holder_index(self, proto: GameProtocol, player: int) -> int | None:
        g = proto.genesis
        if g is None or not 0 <= player < len(g.players):
            return None
        key = proto.holders.get(player, g.players[player]).key
        return self.keys.index(key) if key in self.keys else None

    # -- faults ------------------------------------------------------------------------------

    def _fault(self, f: Fault) -> None:
        peer = self.peers[f.peer]
        if peer.gone_for_good or peer.finished:
            return
        self.faulted[f.peer].add(f.kind)
        self._milestone(f"fault: {f.kind.value}")
        self.note(peer, f"fault: {f.kind.value} {f}")
        step = peer.protocol.step.kind.value
        self.coverage.combos.add((step, "-", f.kind.value))
        if f.kind is FaultKind.CRASH and peer.alive:
            peer.crash(f.torn)
            if f.lasts is None:
                peer.gone_for_good = True
            else:
                self.clock.after(f.lasts, functools.partial(self._restart, f.peer))
        elif f.kind is FaultKind.PARTITION:
            pairs = {(f.peer, o) for o in f.others}
            for o in f.others:
                self.faulted[o].add(f.kind)
            self._partitioned = self._partitioned | pairs
            for o in f.others:
                self.net.set_link(f.peer, o, False)
            if f.lasts is not None:
                self.clock.after(f.lasts, lambda: self._heal(pairs))
        elif f.kind is FaultKind.QUIT:
            peer.quit()
        elif f.kind is FaultKind.EARLY_CLOCK:
            victim = f.others[0]
            p = peer.protocol
            if p.status is Status.RUNNING:
                self.note_give_up(peer, victim, stalled=False)
                p.give_up_on(victim, self.timeout, stalled=self.rng.random() < 0.5)
                peer.flush()
        elif f.kind is FaultKind.SLOW:
            peer.slow = 1.0
        elif f.kind is FaultKind.DUPLICATES:
            self.net.duplicates = 0.2

    def _restart(self, index: int) -> None:
        self._milestone("restart from the log")
        self.peers[index].restart()

    def _heal(self, pairs: set[tuple[int, int]]) -> None:
        self._partitioned = self._partitioned - pairs
        for i, j in pairs:
            if self.peers[i].alive and self.peers[j].alive:
                self.net.set_link(i, j, True)

    # -- the record --------------------------------------------------------------------------

    def _milestone(self, name: str) -> None:
        self.coverage.milestones[name] += 1

    def note_give_up(self, peer: SimPeer, about: int, stalled: bool) -> None:
        self.give_ups.append((peer.index, about, stalled, self.clock.now))
        self.note(peer, f"its clock gives up on p{about}" + (" (stalled)" if stalled else ""))

    def note(self, peer: SimPeer, what: str) -> None:
        """A line of the run's trace: what a replay prints."""
        if len(self.trace) < MAX_TRACE:
            self.trace.append(f"{self.clock.now:9.3f}s p{peer.index} {what}")

    def note_sent(self, peer: SimPeer, msg: SignedMessage) -> None:
        env = msg.envelope
        if env.kind in _TRACED or peer.hostile:
            body = {k: v for k, v in env.body.items() if not isinstance(v, bytes | list)}
            self.note(peer, f"signs {env.kind} for {env.hand}:{env.step} #{env.seq} {body}")

    def note_message(self, peer: SimPeer, msg: SignedMessage) -> None:
        """Coverage of what hostile peers send: the step the receiver is at, the kind."""
        sender = msg.envelope.sender
        hostile = self.peers[sender] if 0 <= sender < self.n else None
        if isinstance(hostile, Adversary):
            step = peer.protocol.step.kind.value
            for a in hostile.attacks:
                self.coverage.combos.add((step, msg.envelope.kind, a.value))
