"""The hard bot: the Monte-Carlo search with plans for the moon, a searched pass, an exact endgame
and the game standing in every decision.

It samples worlds as ``montecarlo`` does, from everything the plays prove and what they suggest
(``inference``), and plays every candidate card out in the same worlds (common random numbers).
On top of that:

- **Moon attempts.** While nobody else has taken a point and our hand is strong enough, every
  candidate is also played out with us running for the moon whatever happens (``play_out``'s
  ``shoots``); a card is worth its better plan. So the bot goes for the moon when the worlds say
  it comes home, keeps going while they do, and abandons it the move they stop saying so.
- **Moon defence.** While a rival could still take every point (nobody has one yet, or it alone
  has), each world is also played out with it running for the moon, weighed by how likely an
  attempt is: before any point, a rival whose hand in the world could run the rest; then the one
  rival who alone has points, weighed by what it has shown (a point or two rarely means a moon,
  Q♠ and many hearts often do); and a rival that led what only a hunter leads (a top heart, Q♠,
  or A♠ or K♠ while Q♠ is out). A hunt is played out in a world dealt for it (``HuntWorlds``):
  one in which its moon runs against a table that does not see it coming, since a world dealt
  at random gives the hunter a hand as weak as anyone's, in which its moon fails on its own and
  no defence looks worth a card. In that playout we alone defend from the first card and keep
  our stoppers (``play_out``'s ``watchers``); the other seats wait for its points as the policy
  does, since a defence that counts on a partner's stop is how moons get through when every
  defender counts on it. The cards that stop it (a heart kept to win a trick, a point taken
  early or given to a third seat) gain by what the moon would have cost.
- **Searched pass** (``passing``), with the moon plans for a hand that could shoot; a pass other
  than the heuristic's is chosen only when its paired worlds prove it better, since the lowest
  mean of a dozen candidates in a few dozen worlds is often luck.
- **Exact endgame.** Once few cards are left, each world is solved by max-n search
  (``endgame``) instead of played out by the policy.
- **A race among the candidates** (``racing``): a card or a moon plan that the worlds so far
  prove worse stops being played out, and the search ends once one card is left in it.
- **Game standing** (``standing``): a hand that ends the game is worth whether we win the game,
  so the bot ducks a moon that ends it in someone else's favour and shoots when that alone wins;
  the moon choice is the heuristic's, which is by the standing.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable

from ..cards import CARDS, HEARTS_MASK, QUEEN_SPADES, cards_of
from ..engine import Action, HandPhase, HandState, PassCards, PlayCard, SeatView
from ..rules import Moon
from .base import check_turn, register
from .candidates import distinct_plays
from .endgame import ENDGAME_CARDS, Endgame
from .heuristic import choose_moon
from .inference import with_signals
from .knowledge import POINTS_MASK, Knowledge, knowledge_of
from .passing import PLAN_MARGIN, PassSearch, pass_candidates
from .policy import choose_card, losers
from .racing import Race
from .rollout import Position, score, table_of
from .rollout import play_out as play
from .sampler import Dealer
from .search import SearchBot
from .standing import Standing

__all__ = ["HardBot", "moon_hunters"]

PASS_BUDGET = 2.0  # a pass may think this many times the budget of a card
PROOF_Z = 1.0  # standard errors by which a searched pass must beat the heuristic's to be chosen
_QS = 1 << QUEEN_SPADES
_SPADE_GUARDS = (1 << (QUEEN_SPADES + 1)) | (1 << (QUEEN_SPADES + 2))  # K♠ A♠
SHOOT_LOSERS = 7  # we try the moon plan with at most this many losers in hand
HUNTER_LOSERS = 3  # a rival's sampled hand with at most this many losers may be shooting
EARLY_HUNT = 0.5  # how likely such a rival runs for the moon before it has shown any points
SURE_HUNT = 7  # a lone rival with this many point cards is hunting whatever its hand
SURE_POINTS = 15  # or this many points by card, whatever the rules' values (Q♠, two hearts)
HUNT_TRIES = 30  # worlds dealt to find a first one in which a hunter's moon runs
FRESH_TRIES = 8  # and after that, before a world found already is played again
BOLD_HUNT = 0.8  # how likely a rival that led a card only a hunter leads is hunting


@register("hard")
class HardBot(SearchBot):
    """The strongest bot; ``samples`` fixes the worlds per decision, else ``budget_ms``."""

    name = "hard"

    def choose(self, view: SeatView) -> Action:
        check_turn(view)
        if view.phase is HandPhase.PASSING:
            return PassCards(tuple(cards_of(self._pass(view))))
        if view.phase is not HandPhase.PLAYING:
            return self.fallback.choose(view)
        k = knowledge_of(view)
        h = k.state
        trick = sum(1 << c for c in h.trick)
        options = distinct_plays(
            h.legal_play_mask(view.seat), h.hands[view.seat], k.unseen | trick, view.rules
        )
        if len(options) == 1:
            return PlayCard(CARDS[options[0]])
        return self.timed(lambda: self._search(view, k, options))

    def _cost(self, view: SeatView) -> Callable[[list[int]], float]:
        """Our cost of the cards each seat took, by the game standing when it matters."""
        rules = view.rules
        t = table_of(rules)
        seat = view.seat
        moon_adds = [
            rules.moon is Moon.CHOICE and choose_moon(rules, view.totals, s) for s in range(t.n)
        ]
        standing = Standing.of(rules, view.totals, seat)
        others = t.n - 1
        if standing.live:
            return lambda taken: standing.cost(score(t, taken, moon_adds))

        def plain(taken: list[int]) -> float:
            points = score(t, taken, moon_adds)
            mine = points[seat]
            return mine - (sum(points) - mine) / others

        return plain

    def _pass(self, view: SeatView) -> int:
        hand = sum(1 << c for c in view.hand)
        rules = view.rules
        candidates, moon = pass_candidates(hand, rules)
        search = PassSearch(rules, view.hand_number, view.seat, hand)
        cost = self._cost(view)
        usual: dict[int, list[float]] = {p: [] for p in candidates}
        shoot: dict[int, list[float]] = {p: [] for p in candidates}
        deadline = self.deadline(PASS_BUDGET)
        worlds = 0
        while not self.enough(worlds, deadline):
            hands, passes = search.deal(self.rng)
            for p in candidates:
                usual[p].append(search.cost(hands, passes, p, -1, cost))
                if moon:
                    shoot[p].append(search.cost(hands, passes, p, view.seat, cost) + PLAN_MARGIN)
            worlds += 1

        def plan(p: int) -> list[float]:
            """The per-world costs of ``p``'s better plan: as usual, or running for the moon."""
            return shoot[p] if moon and sum(shoot[p]) < sum(usual[p]) else usual[p]

        return _proven_best(candidates, plan)

    def _search(self, view: SeatView, k: Knowledge, options: list[int]) -> int:
        deadline = self.deadline()
        seat = view.seat
        h = k.state
        default = choose_card(h, seat, k.forbidden)
        pos = Position.of(h, seat)
        cost = self._cost(view)
        dealer = _dealer(view, k)
        rng = self.rng
        if sum(k.counts) <= ENDGAME_CARDS and h.tricks:
            return self._endgame(view, k, options, pos, dealer, default, deadline)
        shooter = _can_try_moon(k, seat)
        rivals, strong, shown, bold = moon_hunters(k, seat)
        hunts = HuntWorlds(pos, dealer, options)
        ours = 1 << seat  # who watches a hunt from its first card: we alone
        # Each card as usual (while a rival may shoot: less what its moon would cost), and each
        # card run for the moon, which must beat the usual plan by a margin a world to be chosen.
        race = Race([*((c, False) for c in options), *((c, True) for c in options if shooter)])
        worlds = 0
        while not self.enough(worlds, deadline):
            hands = dealer.deal(rng)
            hunter, weight = _hunter_in(hands, rivals, strong, shown, bold)
            hunting = hunts.deal(hands, hunter, rng) if hunter >= 0 else None
            for c in options:
                if race.live((c, False)):
                    mine = cost(play(pos, hands[:], c))
                    if hunting is not None:
                        hunt = play(pos, hunting[:], c, hunter, hunter, ours)
                        mine += weight * (cost(hunt) - mine)
                    race.add((c, False), mine)
                if race.live((c, True)):
                    race.add((c, True), cost(play(pos, hands[:], c, seat)) + PLAN_MARGIN)
            worlds += 1
            race.settle(worlds)
            if len({c for c, _ in race.costs}) == 1:
                break  # one card is left in the race: nothing more to decide
        self.worlds += worlds
        best = min(race.costs, key=lambda a: (race.mean(a), a[0] != default))
        return best[0]

    def _endgame(
        self,
        view: SeatView,
        k: Knowledge,
        options: list[int],
        pos: Position,
        dealer: Dealer,
        default: int,
        deadline: float,
    ) -> int:
        """Each world solved exactly: every seat plays the rest to its own best."""
        rules = view.rules
        t = pos.table
        seat = view.seat
        mine = self._cost(view)
        moon_adds = [
            rules.moon is Moon.CHOICE and choose_moon(rules, view.totals, s) for s in range(t.n)
        ]
        others = t.n - 1

        def costs(taken: list[int]) -> tuple[float, ...]:
            points = score(t, taken, moon_adds)
            total = sum(points)
            each = [p - (total - p) / others for p in points]
            each[seat] = mine(taken)
            return tuple(each)

        value = dict.fromkeys(options, 0.0)
        endgame = Endgame(pos, tuple(k.state.trick), rules, costs)
        worlds = 0
        while not self.enough(worlds, deadline):
            hands = dealer.deal(self.rng)
            for c in options:
                value[c] += endgame.solve(hands, c)
            worlds += 1
        self.worlds += worlds
        return min(options, key=lambda c: (value[c], c != default))


def _dealer(view: SeatView, k: Knowledge) -> Dealer:
    """A dealer of worlds that fit the signals too, unless no world does."""
    soft = with_signals(view, k)
    if soft is not k:
        try:
            dealer = Dealer(soft)
            dealer.deal(random.Random(0))
            return dealer
        except ValueError:
            pass
    return Dealer(k)


def _proven_best(candidates: list[int], costs: Callable[[int], list[float]]) -> int:
    """The candidate of lowest mean cost if its paired worlds prove it better than the first (the
    heuristic's pick) by ``PROOF_Z`` standard errors, else the first. Among a dozen candidates
    in a few dozen worlds the lowest mean is often luck, and luck's pick plays worse than the
    heuristic's."""
    first = candidates[0]
    best = min(candidates, key=lambda p: (sum(costs(p)), p != first))
    diffs = [a - b for a, b in zip(costs(best), costs(first), strict=True)]
    n = len(diffs)
    if best == first or n < 2:
        return first
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return best if mean < -PROOF_Z * math.sqrt(var / n) else first


class HuntWorlds:
    """Worlds in which a hunter's moon runs against a table that does not see it coming: at least
    one of our candidate cards lets it take every point while the other seats wait for its points
    before they defend (the policy's way).

    Found by dealing worlds until one fits, ``HUNT_TRIES`` for a hunter's first, ``FRESH_TRIES``
    after that before one found already is played again; a hunter for whom none fits has no moon
    to fear in this decision. A world dealt at random knows nothing of a hunter's strength, which
    its plays and points show: in it a moon mostly fails on its own, and the defence it asks for
    looks worth nothing.
    """

    def __init__(self, pos: Position, dealer: Dealer, options: list[int]) -> None:
        self.pos = pos
        self.dealer = dealer
        self.options = options
        self.found: dict[int, list[list[int]]] = {}  # by hunter; empty if it has no moon

    def deal(self, hands: list[int], hunter: int, rng: random.Random) -> list[int] | None:
        """A world for ``hunter``'s hunt, trying ``hands`` (this world) first."""
        found = self.found.get(hunter)
        if found is not None and not found:
            return None
        tries = FRESH_TRIES if found else HUNT_TRIES
        for i in range(tries):
            if i:
                hands = self.dealer.deal(rng)
            if self._runs(hands, hunter):
                self.found.setdefault(hunter, []).append(hands)
                return hands
        if not found:
            self.found[hunter] = []
            return None
        return found[rng.randrange(len(found))]

    def _runs(self, hands: list[int], hunter: int) -> bool:
        for c in self.options:
            if play(self.pos, hands[:], c, hunter)[hunter] & POINTS_MASK == POINTS_MASK:
                return True
        return False


def _out(hands: list[int], seat: int) -> int:
    out = 0
    for s, h in enumerate(hands):
        if s != seat:
            out |= h
    return out


def _can_try_moon(k: Knowledge, seat: int) -> bool:
    """Whether the moon is still open to us and our cards are strong enough to try it."""
    h = k.state
    if h.rules.moon is Moon.OFF:
        return False
    if any(h.taken[s] & POINTS_MASK for s in range(h.n) if s != seat):
        return False
    return losers(h.hands[seat], k.unseen) <= SHOOT_LOSERS


def moon_hunters(k: Knowledge, seat: int) -> tuple[tuple[int, ...], float, float, int]:
    """The rivals who may be running for the moon; how likely one is whose hand in a world could
    run the rest; how likely one is whatever its hand (only the one who alone has points); and
    the rivals (a mask) that made a bold lead.

    Before anyone has a point, any rival may be hunting, if its hand in the world is strong; a
    hunt that waits for its points to show is often too late to stop. Once one rival alone has
    points, only it, the likelier the more it has taken. The worlds dealt know nothing of its
    strength but its points do, so it is also hunted in the worlds that deal it a weak hand, with
    a weight that is small for a point or two (most lone takers are not hunting, and playing
    every world against a phantom moon costs the ordinary hand) and grows to a sure hunt at
    ``SURE_HUNT`` point cards or ``SURE_POINTS`` points: a seat that holds Q♠ alone has little
    else left to play for. What it leads says more than what it took: a bold lead
    (``_bold_leaders``) is a hunter's, and weighs ``BOLD_HUNT`` in every world.
    """
    h = k.state
    if h.rules.moon is Moon.OFF:
        return (), 0.0, 0.0, 0
    takers = [s for s in range(h.n) if h.taken[s] & POINTS_MASK]
    bold = _bold_leaders(h, seat)
    if not takers:
        return tuple(s for s in range(h.n) if s != seat), EARLY_HUNT, 0.0, bold
    if len(takers) != 1 or takers[0] == seat:
        return (), 0.0, 0.0, 0
    who = takers[0]
    taken = h.taken[who]
    cards = (taken & POINTS_MASK).bit_count()
    # What it holds, not what the rules score (spot hearts): a heart a point, Q♠ thirteen.
    points = (taken & HEARTS_MASK).bit_count() + (13 if taken & _QS else 0)
    shown = min(1.0, max(cards / SURE_HUNT, points / SURE_POINTS) ** 2)
    if bold >> who & 1:
        shown = max(shown, BOLD_HUNT)
    return (who,), min(1.0, EARLY_HUNT + 0.1 * cards), shown, bold & (1 << who)


def _bold_leaders(h: HandState, seat: int) -> int:
    """The rivals (a mask) that led a card only a hunter leads: a heart above every heart still
    out but ours, Q♠, or A♠ or K♠ while Q♠ is out and not ours. Each hands its leader the
    points that others can throw on it; a seat avoiding points leads none of them."""
    ours = h.hands[seat]
    leads: list[tuple[int, int, int]] = []  # leader, card, cards played before it
    played = 0
    for t in h.tricks:
        leads.append((t.leader, t.cards[0], played))
        for i, c in enumerate(t.cards):
            played |= 1 << c
            if (t.leader + i) % h.n == seat:
                ours |= 1 << c
    if h.trick and h.trick_leader is not None:
        leads.append((h.trick_leader, h.trick[0], played))
        for i, c in enumerate(h.trick):
            if (h.trick_leader + i) % h.n == seat:
                ours |= 1 << c
    bold = 0
    for leader, card, before in leads:
        if leader == seat:
            continue
        bit = 1 << card
        out = ~before & ~ours
        if bit & HEARTS_MASK:
            if not out & HEARTS_MASK & ~((2 << card) - 1):
                bold |= 1 << leader
        elif card == QUEEN_SPADES or (bit & _SPADE_GUARDS and out & _QS):
            bold |= 1 << leader
    return bold


def _hunter_in(
    hands: list[int], rivals: tuple[int, ...], strong: float, shown: float, bold: int = 0
) -> tuple[int, float]:
    """The rival of ``rivals`` hunted in this world and the weight of its hunt: the one whose hand
    could run every trick (weighed ``strong``, or ``shown`` if more), else the one who alone has
    shown points (weighed ``shown``), else one that led boldly (``BOLD_HUNT``), else nobody
    (-1)."""
    best, fewest = -1, HUNTER_LOSERS + 1
    for s in rivals:
        n = losers(hands[s], _out(hands, s))
        if n < fewest:
            best, fewest = s, n
    if best >= 0:
        return best, max(strong, shown if len(rivals) == 1 else 0.0)
    if len(rivals) == 1 and shown:
        return rivals[0], shown
    if bold:
        return (bold & -bold).bit_length() - 1, BOLD_HUNT
    return -1, 0.0
