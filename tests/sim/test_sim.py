"""The simulator: deterministic, its invariants able to fail, and every break it found a case.

Each case is a table built by hand (not drawn from a seed, so it stays the case whatever the
drawing does), played on the fast stand-in group unless it says otherwise, and checked with the
same invariants ``hearts sim`` checks.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from hearts_p2p.cli.main import main
from hearts_p2p.deck import group
from hearts_p2p.game import StepKind, Termination
from hearts_p2p.rules import GameKind, Moon, Rules
from hearts_p2p.sim import Attack, Broken, Fault, FaultKind, Scenario, draw, run_scenario, run_seed
from hearts_p2p.sim.fastgroup import FastGroup
from hearts_p2p.sim.invariants import check
from hearts_p2p.sim.run import campaign, fingerprint
from hearts_p2p.sim.world import World

HEARTS = Rules(4, target=26)
GONGZHU = Rules(4, game=GameKind.GONGZHU, limit=200)


def scenario(
    rules: Rules = HEARTS,
    *,
    hostile: dict[int, frozenset[Attack]] | None = None,
    faults: tuple[Fault, ...] = (),
    timeout: float = 10.0,
    hands: int = 1,
    seed: int = 7,
) -> Scenario:
    n = rules.players
    return Scenario(
        seed, rules, timeout, hostile or {}, faults, max_hands=hands,
        bots=("random",) * n, names=tuple(f"p{i}" for i in range(n)),
    )  # fmt: skip


def broken(world: World) -> set[Broken]:
    violations, _ = check(world)
    return {v.broken for v in violations}


def test_a_seed_replays_exactly() -> None:
    first, again = run_seed(11, adversaries=1), run_seed(11, adversaries=1)
    assert first.trace == again.trace
    assert (first.entries, first.events) == (again.entries, again.events)
    assert first.seconds == again.seconds


def test_the_fast_group_keeps_the_deck_s_algebra() -> None:
    g = FastGroup()
    x = g.card_points[5]
    a, b = 0x1234567, 0xABCDEF
    ab = g.multiply(g.key(a), g.load(g.multiply(g.key(b), g.load(x))))
    ba = g.multiply(g.key(b), g.load(g.multiply(g.key(a), g.load(x))))
    assert ab == ba
    n = group.curve.ORDER
    back = g.multiply(g.key(pow(a, -1, n)), g.load(g.multiply(g.key(a), g.load(x))))
    assert back == x
    with pytest.raises(ValueError):
        g.load(b"\xff" * 32)  # past the written half: no element


def test_a_quiet_table_keeps_the_promise_on_p256_and_the_stand_in_alike() -> None:
    s = scenario()
    fast, real = run_scenario(s), run_scenario(s, real_group=True)
    assert fast.violations == [] and real.violations == []
    assert fast.hands == real.hands >= 1


def test_the_invariants_fail_when_the_promise_does() -> None:
    """A held table, parted logs and a present seat taken over are each reported."""
    with group.using(FastGroup()):
        w = World(scenario())
        w.start()
        w.run_until(lambda: w.clock.now > 3.0)
        assert Broken.HELD in broken(w)  # stopped short of its hand
        w.finish()
        assert broken(w) == set()
        w.peers[1].log[5] = w.peers[2].log[6]
        assert Broken.DISAGREE in broken(w)


def test_a_false_vote_at_the_pass_neither_opens_nor_blames_the_present_player() -> None:
    """Another peer's clock gives up on p0 while p0's person is still choosing its pass: p0
    answers, the others hold its part, nobody is taken over or named, and the logs agree.
    (Before, p0 rebuilt its state on that one vote and named itself.)"""
    with group.using(FastGroup()):
        w = World(scenario())
        w.start()
        p0, p2 = w.peers[0], w.peers[2]
        at_pass = w.run_until(
            lambda: (
                p0.protocol.step.kind is StepKind.PASS_COMMIT
                and p0.protocol.choice_needed() is not None
            )
        )
        assert at_pass
        p2.protocol.give_up_on(0, w.timeout)
        p2.flush()
        w.finish()
        assert broken(w) == set()
        assert all(not p.protocol.table_seats for p in w.peers)
        assert w.peers[0].protocol.abort is None


def test_a_claimer_refused_again_and_again_is_named_not_waited_on() -> None:
    s = scenario(GONGZHU, hostile={1: frozenset({Attack.CLAIM})}, seed=3)
    found = [run_scenario(dataclasses.replace(s, seed=k)) for k in range(1, 9)]
    named = [
        r for r in found if any("claimed again after its claim was refused" in t for t in r.trace)
    ]
    assert named, "no claim was refused in these deals"
    assert all(r.violations == [] for r in found), [r.violations for r in found]


def test_a_seat_slow_on_every_message_is_taken_over_within_the_bound() -> None:
    """Each of its messages 0.9 of the timeout late: every honest peer finds its time for the
    hand used up and takes it over (its shares shown); it may ask its seat back at the next
    hand, and costs that one its bank again, within the bound."""
    s = scenario(hostile={3: frozenset({Attack.STALL})}, timeout=4.0)
    with group.using(FastGroup()):
        w = World(s)
        w.run()
        assert broken(w) == set()
        for p in (0, 1, 2):
            assert any(f"p{p} p3 has used its time for the hand" in t for t in w.trace)
            shown = [t for t in w.trace if f"p{p} signs recover" in t and "'player': 3" in t]
            assert shown, f"p{p} showed no share of p3's secret"


def test_a_host_that_never_sends_the_genesis_holds_no_one() -> None:
    s = scenario(hostile={0: frozenset({Attack.SILENT})})
    with group.using(FastGroup()):
        w = World(s)
        w.peers[0].crash(torn=False)  # gone before it proposes: nobody has the genesis
        w.peers[0].gone_for_good = True
        w.run()
    for p in w.honest():
        a = p.protocol.abort
        assert a is not None and a.termination is Termination.GONE and a.culprit == 0
        assert a.reporter is None and p.log == []  # nothing signed: it had no seat yet


def test_junk_under_one_number_gives_a_log_that_audits() -> None:
    """A host that signs junk of every kind under its numbers is named, and every honest log
    holds the verdict the audit reaches (a sit or a vote under a number is no second message)."""
    s = scenario(hostile={0: frozenset({Attack.JUNK})}, timeout=4.0)
    results = [run_scenario(dataclasses.replace(s, seed=k)) for k in range(1, 13)]
    assert all(r.violations == [] for r in results), [r.violations for r in results]
    assert any(r.ending == "aborted" for r in results)


def test_a_crash_with_a_torn_record_resumes_from_the_log() -> None:
    crash = Fault(FaultKind.CRASH, 2, at=6.0, lasts=3.0, torn=True)
    r = run_scenario(scenario(faults=(crash,)))
    assert r.violations == []
    assert r.milestones["restart from the log"] == 1


def test_a_seat_back_from_a_crash_is_not_named_for_its_old_part_replayed() -> None:
    """p2 crashes at once and comes back after its seat's round; p1 replays p2's first part
    to everyone. Its number was voided when p2 came back, so the same envelope again is a
    replay, not a second message at that step (before, p2 was named on two equal copies)."""
    rules = Rules(3, target=26)
    crash = Fault(FaultKind.CRASH, 2, at=0.7, lasts=12.0, torn=True)
    s = scenario(rules, hostile={1: frozenset({Attack.REPLAY, Attack.ABORT})},
                 faults=(crash,), timeout=4.0, hands=3, seed=3098)  # fmt: skip
    s = dataclasses.replace(s, bots=("random", "random", "heuristic"))
    assert run_scenario(s).violations == []


def test_a_stalling_seat_whose_vote_makes_a_peer_follow_breaks_no_peer() -> None:
    """A seat slow on every message: a vote whose evidence has a peer take the others' state
    leaves the old state's round alone (before, the peer failed on it)."""
    rules = Rules(3, target=40, moon=Moon.CHOICE)
    dup = Fault(FaultKind.DUPLICATES, 0, at=27.4, lasts=None)
    s = scenario(rules, hostile={1: frozenset({Attack.STALL})}, faults=(dup,), hands=3,
                 seed=11844)  # fmt: skip
    r = run_scenario(s)
    assert r.violations == []


def test_a_peer_back_from_a_crash_replays_its_own_votes_as_logged() -> None:
    """A crashed peer's log holds its votes and shares in a takeover round; replaying it, the
    peer takes them from the log rather than signing them again under a later number."""
    rules = Rules(4, target=40, moon=Moon.OFF, claims=True)
    crash = Fault(FaultKind.CRASH, 3, at=8.8, lasts=90.0)
    hostile = {1: frozenset({Attack.JUNK}), 2: frozenset({Attack.QUIT})}
    s = scenario(rules, hostile=hostile, faults=(crash,), timeout=30.0, hands=3, seed=15597)
    s = dataclasses.replace(s, bots=("heuristic", "random", "heuristic", "random"))
    assert run_scenario(s).violations == []


def test_an_equivocating_player_s_own_twin_play_does_not_break_its_bot() -> None:
    rules = Rules(3, target=15, passing=False, moon=Moon.CHOICE, queen_breaks_hearts=True,
                  claims=True)  # fmt: skip
    s = scenario(rules, hostile={0: frozenset({Attack.EQUIVOCATE, Attack.REPLAY})}, seed=20251)
    s = dataclasses.replace(s, bots=("random", "heuristic", "heuristic"))
    assert run_scenario(s).violations == []


def test_peers_that_proved_different_cheats_of_one_player_end_on_the_same_pair() -> None:
    """p2 sends p0 and p1 two accepts under one number, then a malformed commitment. p0 sees
    the two accepts (one relayed by p1) first; p1 sees the malformed commitment. p1, taking
    p0's relayed evidence after its stop, turns to the pair under the lower number, so both
    logs end alike (before, each kept the cheat it saw first)."""
    rules = Rules(3, target=40, jack_of_diamonds=True, queen_breaks_hearts=True)
    hostile = {2: frozenset({Attack.CLAIM, Attack.EQUIVOCATE})}
    s = scenario(rules, hostile=hostile, timeout=30.0, seed=14122)
    s = dataclasses.replace(s, bots=("heuristic", "random", "random"))
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"
    assert sum("sent two different messages under one number" in t for t in r.trace) >= 1


def test_a_cheater_that_equivocates_and_sends_junk_is_named_alike_everywhere() -> None:
    s = scenario(GONGZHU, hostile={2: frozenset({Attack.EQUIVOCATE, Attack.JUNK})})
    results = [run_scenario(dataclasses.replace(s, seed=k)) for k in range(1, 9)]
    assert all(r.violations == [] for r in results), [r.violations for r in results]
    assert all(r.ending == "aborted" for r in results)


def test_a_link_cut_between_two_honest_peers_names_neither() -> None:
    """p2 and p3 lose their link for 20 s, both still linked to p0 and p1, who relay each
    one's messages to the other: each hears the other's new messages, so neither votes the
    other out (before, each did, the rounds crossed and the table split)."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=600, same_colour_discard=True)
    cut = Fault(FaultKind.PARTITION, 3, at=10.0, lasts=20.0, others=(2,))
    s = scenario(rules, faults=(cut,), hands=2, seed=3244)
    r = run_scenario(s)
    assert r.violations == []
    assert not any("signs takeover" in t for t in r.trace)


def test_a_host_that_withholds_its_genesis_and_sends_junk_is_named_alike() -> None:
    """p2 gets the host's two junk messages under one number before the genesis, then the
    genesis: the pair waits for its step, and ranks before the one for a step it finds once
    the genesis is in, so p2 ends on the pair as the others do."""
    rules = Rules(4, target=40, moon=Moon.OFF)
    hostile = {0: frozenset({Attack.JUNK, Attack.WITHHOLD, Attack.STALL})}
    s = scenario(rules, hostile=hostile, seed=537)
    s = dataclasses.replace(s, bots=("random", "random", "random", "heuristic"))
    assert run_scenario(s).violations == []


def test_a_nolead_away_from_a_roll_call_is_junk_whichever_comes_first() -> None:
    """A nolead for a deck step is dropped, before or after its sender's part of the step
    (before, after it the pair was a cheat some peers proved and the audit did not)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=200, passing=False)
    s = scenario(rules, hostile={1: frozenset({Attack.JUNK})}, timeout=4.0, hands=2, seed=2127)
    s = dataclasses.replace(s, bots=("heuristic", "random", "random", "heuristic", "heuristic"))
    assert run_scenario(s).violations == []


def test_evidence_naming_the_genesis_step_follows_the_genesis_in_the_log() -> None:
    rules = Rules(4, target=15, moon=Moon.CHOICE)
    hostile = {
        0: frozenset({Attack.JUNK, Attack.STALL, Attack.ABORT}),
        1: frozenset({Attack.JUNK, Attack.ABORT, Attack.REPLAY}),
    }
    s = scenario(rules, hostile=hostile, timeout=30.0, seed=1499)
    s = dataclasses.replace(s, bots=("random", "random", "heuristic", "random"))
    assert run_scenario(s).violations == []


def test_a_junk_genesis_from_a_player_is_judged_after_the_host_s_genesis() -> None:
    """p1 signs junk of the genesis kind while the host stalls: a peer that gets it just
    after the host's genesis names p1 in a log that still starts with that genesis (it began
    with p1's junk alone, which no audit can read)."""
    rules = Rules(6, target=15, moon=Moon.OFF, claims=True)
    hostile = {0: frozenset({Attack.STALL}), 1: frozenset({Attack.JUNK, Attack.REPLAY})}
    s = scenario(rules, hostile=hostile, timeout=30.0, hands=2, seed=20362)
    bots = ("random", "heuristic", "heuristic", "random", "random", "heuristic")
    assert run_scenario(dataclasses.replace(s, bots=bots)).violations == []


def test_the_host_s_junk_of_the_genesis_kind_under_its_number_audits_in_either_order() -> None:
    """The host signs junk of the genesis kind under the genesis's number: the pair is logged
    in byte order, junk first here, and the audit reads the roster from the one that is a
    genesis (it read the first of the kind, and found the log bad)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=200, passing=False)
    s = scenario(rules, hostile={0: frozenset({Attack.JUNK})}, timeout=4.0, hands=2, seed=17491)
    bots = ("random", "random", "heuristic", "random", "heuristic")
    assert run_scenario(dataclasses.replace(s, bots=bots)).violations == []


def test_a_host_s_vote_before_its_genesis_waits_for_the_roster() -> None:
    """The stalling host signs junk votes, one of them about itself, that come before its
    genesis: the vote waits for the roster as another player's would, and is judged alike
    at every peer and in the audit (judged at once, it was malformed against no roster)."""
    rules = Rules(6, target=15, moon=Moon.CHOICE, jack_of_diamonds=True, claims=True)
    hostile = {0: frozenset({Attack.STALL, Attack.NOLEAD, Attack.JUNK})}
    s = scenario(rules, hostile=hostile, timeout=4.0, hands=3, seed=11446)
    assert run_scenario(s).violations == []


def test_another_game_s_leave_replayed_after_a_leave_replaces_nothing() -> None:
    """The host leaves, then replays a leave from another game (smaller bytes): the peers
    keep the leave of this game (they kept the smaller, whatever its game, and logged
    what no audit of this game reads)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=400, passing=False, hearts_by_rank=True,
                  force_fourth=True, same_colour_discard=True)  # fmt: skip
    hostile = {0: frozenset({Attack.STALL, Attack.QUIT, Attack.REPLAY})}
    s = scenario(rules, hostile=hostile, timeout=4.0, hands=3, seed=21362)
    s = dataclasses.replace(s, bots=("random", "heuristic", "random", "random", "random"))
    assert run_scenario(s).violations == []


def test_a_pair_proved_at_one_peer_is_proved_where_the_table_plays_the_seat() -> None:
    """p2 withholds and signs junk: one peer holds a part of p2's and junk under its number,
    and proves the pair; the others play p2's seat by then and had dropped its frames, so the
    relayed pair proved nothing there, and they took the prover's seat over as stalled."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=600, passing=False)
    hostile = {2: frozenset({Attack.WITHHOLD, Attack.JUNK})}
    s = scenario(rules, hostile=hostile, timeout=30.0, seed=23198)
    assert run_scenario(s).violations == []


def test_a_second_seat_s_part_that_completes_a_step_answers_the_vote_on_it() -> None:
    """p1, cut off from p0, votes p0 gone in a step whose round is about p3 (who left); p0's
    part then completes the step at p2, which answers p1's vote with it, so p1 goes on (it
    waited, and the others took p1's seat over as stalled)."""
    rules = Rules(4, target=40, moon=Moon.OFF, claims=True)
    hostile = {3: frozenset({Attack.QUIT, Attack.NOLEAD, Attack.STALL})}
    faults = (
        Fault(FaultKind.PARTITION, 0, 53.39021844061086, lasts=15.0, others=(1, 2, 3)),
        Fault(FaultKind.PARTITION, 1, 32.034900067181695, others=(0,)),
    )
    s = scenario(rules, hostile=hostile, faults=faults, timeout=30.0, hands=2, seed=28082)
    s = dataclasses.replace(s, bots=("heuristic", "random", "heuristic", "random"))
    assert run_scenario(s).violations == []


def test_a_voter_that_ended_on_its_own_word_is_waited_for_no_more() -> None:
    """A round with a second seat in trouble waits for p4's votes; p4 ends the game on its own
    claim instead (p0, which withholds, held up the step). p3 waits for no vote of a player
    that plays no more, and ends on its own claim in time (it waited for ever)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=400, passing=False)
    hostile = {
        0: frozenset({Attack.WITHHOLD}),
        1: frozenset({Attack.QUIT, Attack.ABORT, Attack.NOLEAD}),
        2: frozenset({Attack.ABORT, Attack.STALL}),
    }
    s = scenario(rules, hostile=hostile, hands=2, seed=12637)
    s = dataclasses.replace(s, bots=("random", "heuristic", "random", "random", "random"))
    assert run_scenario(s).violations == []


def test_a_leave_after_an_equivocation_ends_every_peer_on_the_pair() -> None:
    """p0 signs two different coin-flip commitments under one number, then leaves while p3 is
    cut off: a peer that took the pair first ends on it, and a peer that took the leave first
    turns to the pair when it comes (it stayed on the leave, and the two disagreed)."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=400, passing=False)
    hostile = {0: frozenset({Attack.QUIT, Attack.WITHHOLD, Attack.EQUIVOCATE})}
    cut = Fault(FaultKind.PARTITION, 3, 10.356981771980246, lasts=15.0, others=(0, 1, 2))
    s = scenario(rules, hostile=hostile, faults=(cut,), timeout=30.0, seed=21152)
    s = dataclasses.replace(s, bots=("random", "random", "heuristic", "random"))
    assert run_scenario(s).violations == []


def test_a_peer_the_table_plays_ends_on_the_claim_of_the_peers_that_stopped() -> None:
    """p0 crashes and comes back to a seat the table plays; the others end on their own claims
    (p3 withholds): p0, which has no word on anyone's, ends on theirs when its clock runs out,
    rather than wait for ever on a table that has stopped."""
    rules = Rules(4, target=15, moon=Moon.OFF)
    crash = Fault(FaultKind.CRASH, 0, 5.236493971361915, lasts=12.0)
    hostile = {3: frozenset({Attack.NOLEAD, Attack.WITHHOLD})}
    s = scenario(rules, hostile=hostile, faults=(crash,), timeout=4.0, seed=25647)
    s = dataclasses.replace(s, bots=("random", "heuristic", "heuristic", "random"))
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_three_frames_under_one_number_end_every_peer_on_the_same_pair() -> None:
    """p3 signs junk and two different coin-flip commitments under one number: the three make
    three pairs of one rank, and peers that proved different ones end on the one of smaller
    bytes (they kept each its own, and their logs differed)."""
    rules = Rules(4, target=15, moon=Moon.NEGATIVE)
    hostile = {
        1: frozenset({Attack.STALL}),
        3: frozenset({Attack.JUNK, Attack.EQUIVOCATE, Attack.REPLAY}),
    }
    slow = Fault(FaultKind.SLOW, 2, 30.019585306878007)
    s = scenario(rules, hostile=hostile, faults=(slow,), hands=2, seed=20235)
    s = dataclasses.replace(s, bots=("random", "heuristic", "heuristic", "random"))
    assert run_scenario(s).violations == []


def test_a_seat_in_trouble_holds_no_part_back() -> None:
    """A liar votes p0 gone while p0 is to play; a clock that runs early votes p3 gone: with a
    second seat in trouble p0 held its play back for a void, and the others named it as the
    staller it was not. A seat in trouble now plays, and shows it is there."""
    rules = Rules(6, target=40, moon=Moon.CHOICE)
    hostile = {1: frozenset({Attack.FALSE_VOTE, Attack.ABORT})}
    early = Fault(FaultKind.EARLY_CLOCK, 5, 36.03467369567071, others=(3,))
    s = scenario(rules, hostile=hostile, faults=(early,), timeout=4.0, hands=3, seed=20243)
    s = dataclasses.replace(
        s, bots=("heuristic", "random", "random", "heuristic", "random", "random")
    )
    assert run_scenario(s).violations == []


def test_a_player_that_signs_two_different_leaves_is_logged_with_one_everywhere() -> None:
    """p2 leaves before the seats are drawn, with one leave to some peers and another to the
    rest: each peer relays the one it took and keeps the one of smaller bytes, so all logs end
    alike (before, each kept the one it took first)."""
    rules = Rules(4, target=26, moon=Moon.OFF, jack_of_diamonds=True, queen_breaks_hearts=True)
    hostile = {2: frozenset({Attack.STALL, Attack.EQUIVOCATE, Attack.QUIT})}
    s = scenario(rules, hostile=hostile, timeout=4.0, hands=2, seed=4259)
    s = dataclasses.replace(s, bots=("heuristic", "heuristic", "random", "heuristic"))
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_two_equivocating_colluders_are_named_alike_by_every_honest_peer() -> None:
    """p1 and p3 each send two accepts; p0 proves p3's pair first, p2 proves p1's. Each relays
    its evidence and, after its stop, takes a pair that ranks first: both end on one pair,
    one log (before, each kept the colluder it caught)."""
    rules = Rules(4, target=40, moon=Moon.OFF, jack_of_diamonds=True)
    hostile = {1: frozenset({Attack.EQUIVOCATE}), 3: frozenset({Attack.NOLEAD, Attack.EQUIVOCATE})}
    s = scenario(rules, hostile=hostile, timeout=30.0, seed=6217)
    s = dataclasses.replace(s, bots=("heuristic", "heuristic", "random", "random"))
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_a_pair_whose_first_message_waited_for_its_number_still_ranks_first() -> None:
    """p3 sends two pairs under one number in one step; p0 holds one flip_commit of the lower
    pair waiting for its number when it stops on the higher pair. Kept, it pairs with the
    other flip_commit relayed later, so p0 turns to the lower pair as the others do."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=600, passing=False, expose_all=True,
                  hearts_by_rank=True)  # fmt: skip
    hostile = {3: frozenset({Attack.STALL, Attack.EQUIVOCATE, Attack.JUNK})}
    s = scenario(rules, hostile=hostile, timeout=4.0, hands=3, seed=3085)
    assert run_scenario(s).violations == []


def test_a_leave_signed_while_seating_ends_the_game_at_every_peer() -> None:
    """p3 quits as the seats are drawn: its leave names a seating step. p1, still seating,
    ends the game on it; p0 and p2, a step further, must too (before, they voted p3's seat
    over, then took over p1, present but stopped, and opened its hand)."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=600, passing=False)
    quit_ = Fault(FaultKind.QUIT, 3, at=0.134)
    s = scenario(rules, faults=(quit_,), timeout=4.0, seed=27277)
    s = dataclasses.replace(s, bots=("heuristic", "random", "random", "random"))
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_a_round_decided_present_holds_no_accuser_after_the_others_ended() -> None:
    """A staller falsely accuses p2 while p0's clock runs out on the staller: at p0 the round
    is about the staller, at p2 and p3 about p2, and both are decided present. p2 and p3 end
    on their own claim; p0, whose accusation stood in a decided round, must too (before, it
    waited on it for ever, and the table held)."""
    rules = Rules(4, target=26, moon=Moon.OFF)
    quit_ = Fault(FaultKind.QUIT, 2, at=24.88)
    hostile = {1: frozenset({Attack.STALL, Attack.ABORT})}
    s = scenario(rules, hostile=hostile, faults=(quit_,), timeout=4.0, seed=4287)
    s = dataclasses.replace(s, bots=("random", "heuristic", "random", "random"), proof_rounds=2)
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_a_peer_that_follows_after_a_restart_keeps_the_reclaims_it_chose() -> None:
    """p4 crashes after sending a seats part that carries p3's reclaim, and back, follows the
    others from its log: replaying an earlier seats step made that step's part again, which
    overwrote the reclaims saved for the later one; its seats part was then made again without
    them, a second message under its number, and p4 named itself."""
    rules = Rules(5, target=26, moon=Moon.OFF, jack_of_diamonds=True, claims=True)
    crash = Fault(FaultKind.CRASH, 4, at=57.22, lasts=30.0)
    slow = Fault(FaultKind.SLOW, 0, at=38.04, lasts=None)
    hostile = {3: frozenset({Attack.WITHHOLD})}
    s = scenario(rules, hostile=hostile, faults=(crash, slow), hands=3, seed=30243)
    s = dataclasses.replace(
        s, bots=("random", "heuristic", "random", "heuristic", "random"), proof_rounds=2
    )
    r = run_scenario(s)
    assert r.violations == []
    assert r.milestones["seat taken back"] >= 1


def test_a_crashed_peer_back_after_its_seat_was_lost_catches_up_to_the_end() -> None:
    """Two honest peers crash in one step, so both seats are lost and the hand is voided; p2,
    back first, takes the votes that void it after the next hand's messages had come and
    waited. Those are due once the void has dealt that hand (before, nothing took them again,
    and p2 waited for ever after the others had finished)."""
    rules = Rules(5, target=15, moon=Moon.NEGATIVE, queen_breaks_hearts=True)
    first = Fault(FaultKind.CRASH, 1, at=12.47, lasts=90.0)
    second = Fault(FaultKind.CRASH, 2, at=42.73, lasts=27.0)
    s = scenario(rules, faults=(second, first), timeout=30.0, hands=2, seed=20595)
    s = dataclasses.replace(
        s, bots=("random", "random", "heuristic", "random", "heuristic"), proof_rounds=2
    )
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "finished"
    assert r.milestones["hand voided"] >= 1


def test_a_peer_back_from_a_crash_hears_of_the_round_that_opened_while_it_was_away() -> None:
    """p0 goes silent and the others open a round on it while p1 is down; p1, back, is
    answered its sync with the round's votes. Its own clock, restarted, has not run out on p0
    when the others' run out on p1 for the vote it owes, so both seats are lost and the hand is
    voided: p1 holds every vote that voids it and follows (before, it never heard of the round,
    could not take the void, and waited on p0 for ever)."""
    rules = Rules(4, game=GameKind.GONGZHU, limit=200, passing=False, expose_all=True)
    crash = Fault(FaultKind.CRASH, 1, at=36.03, lasts=6.0, torn=True)
    hostile = {0: frozenset({Attack.SILENT})}
    s = scenario(rules, hostile=hostile, faults=(crash,), timeout=30.0, seed=13642)
    s = dataclasses.replace(s, bots=("random", "random", "random", "heuristic"), proof_rounds=2)
    r = run_scenario(s)
    assert r.violations == [] and r.hands == 1  # the hand asked, played to its end
    assert r.milestones["hand voided"] == 1


def test_a_late_defence_by_a_seat_in_trouble_does_not_undo_a_void() -> None:
    """p3 crashes in the pass and p4 goes silent: the four voters void the hand and finish.
    p3, back long after, takes their votes, and defends p4 (it holds p4's pass): a seat in
    trouble, its word counts for nothing, so p3 voids the hand too and follows (before, its
    own defence showed p4 there, no void came at p3, and it waited for ever)."""
    rules = Rules(6, target=26, claims=True)
    crash = Fault(FaultKind.CRASH, 3, at=0.956, lasts=90.0, torn=True)
    hostile = {4: frozenset({Attack.SILENT})}
    s = scenario(rules, hostile=hostile, faults=(crash,), timeout=30.0, hands=3, seed=15200)
    s = dataclasses.replace(s, bots=("random", "heuristic", *("random",) * 4), proof_rounds=2)
    r = run_scenario(s)
    assert r.violations == [] and r.milestones["hand voided"] >= 1


def test_a_malformed_vote_is_a_cheat_at_the_peer_it_names_too() -> None:
    """p2 sends junk of every kind: a takeover vote with a body no vote has, naming p1, is its
    proven cheat at every peer (before, p1 took a vote about itself, in a step it had
    completed, as an accusation to count, and played on while the others had stopped on it)."""
    rules = Rules(6, target=40, moon=Moon.CHOICE, queen_breaks_hearts=True)
    cut = Fault(FaultKind.PARTITION, 5, at=68.82, lasts=5.0, others=(2, 3))
    hostile = {2: frozenset({Attack.JUNK})}
    s = scenario(rules, hostile=hostile, faults=(cut,), timeout=10.0, hands=2, seed=17838)
    s = dataclasses.replace(s, bots=(*("random",) * 5, "heuristic"), proof_rounds=2)
    r = run_scenario(s)
    assert r.violations == [] and r.ending == "aborted"


def test_one_liar_s_votes_on_three_seats_hold_back_no_part() -> None:
    """p3 is down while p1 cheats and the others end on it; p1 answers p3's sync with its
    votes on every other seat. With one voter left no void can come, so p3 holds back nothing
    and plays on to its own ending (before, it held its part back for a void that could never
    come, and waited for ever)."""
    rules = Rules(
        4, game=GameKind.GONGZHU, limit=400, passing=False, expose_all=True,
        same_colour_discard=True,
    )  # fmt: skip
    crash = Fault(FaultKind.CRASH, 3, at=10.97, lasts=90.0)
    hostile = {1: frozenset({Attack.JUNK, Attack.FALSE_VOTE})}
    s = scenario(rules, hostile=hostile, faults=(crash,), timeout=30.0, seed=736)
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.ending == "aborted"


def test_two_players_cut_off_from_each_other_both_answer_a_third_seat_s_round() -> None:
    """p2 and p3 cannot reach each other and vote each other gone as p4, silent, holds up the
    shuffle. p0 and p1 reach both and defend both with the votes each signed, so every peer's
    round turns to p4, whom all voted gone, and the table plays on (before, they defended p2
    only; p2's and p3's rounds stayed on each other, and the table ended naming p2, there)."""
    rules = Rules(5, target=40)
    cut = Fault(FaultKind.PARTITION, 2, at=0.07, others=(3,))
    hostile = {4: frozenset({Attack.SILENT})}
    s = scenario(rules, hostile=hostile, faults=(cut,), timeout=4.0, hands=2, seed=31920)
    s = dataclasses.replace(s, bots=("random", "random", "heuristic", "random", "heuristic"))
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.milestones["seat taken over"] >= 1


def test_claims_agree_on_the_seat_they_name_whatever_word_each_peer_saw() -> None:
    """p1 stalls and p3 is cut off from it: p2, linked to p1, ends on its claim that p1 stalled,
    p3 on its claim that p1 is gone. Claims are each peer's own (SPEC 6.11): they agree, as
    they name one seat; naming different seats is a disagreement."""
    rules = Rules(4, target=15, moon=Moon.CHOICE)
    cut = Fault(FaultKind.PARTITION, 3, at=8.37, others=(1,))
    hostile = {1: frozenset({Attack.REPLAY, Attack.NOLEAD, Attack.STALL})}
    s = scenario(rules, hostile=hostile, faults=(cut,), timeout=4.0, hands=2, seed=22243)
    with group.using(FastGroup()):
        w = World(dataclasses.replace(s, proof_rounds=2))
        w.run()
        ends = {p.index: p.protocol.abort for p in w.peers if not p.hostile}
        assert {a.culprit for a in ends.values() if a is not None} == {1}
        assert ends[2] is not None and ends[2].termination is Termination.STALLED
        assert ends[3] is not None and ends[3].termination is Termination.GONE
        assert broken(w) == set()
        w.peers[3].protocol._s.abort = dataclasses.replace(ends[3], culprit=0)
        assert Broken.DISAGREE in broken(w)


def test_a_staller_s_part_sent_to_one_peer_counts_once_the_round_is_decided_present() -> None:
    """p1 stalls and sends its part to p2 alone, back from a crash; p2 defends p1 with it and
    the round is decided present. p0, p3 and p4 had voted, so took p1's part only as a vote's
    evidence: they take it now, the step completes, and when p1 stalls again its seat is taken
    over (before, they dropped it for good, p2 ended on its claim, and the others named p2)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=600, passing=False, force_fourth=True)
    crash = Fault(FaultKind.CRASH, 2, at=88.507, lasts=6.0)
    twice = Fault(FaultKind.DUPLICATES, 4, at=100.557)
    hostile = {1: frozenset({Attack.STALL, Attack.REPLAY})}
    s = scenario(rules, hostile=hostile, faults=(crash, twice), timeout=30.0, hands=3, seed=19818)
    s = dataclasses.replace(s, bots=("random", *("heuristic",) * 4), proof_rounds=2)
    r = run_scenario(s)
    assert r.violations == [] and r.milestones["seat taken over"] >= 1


def test_a_player_held_back_by_a_liar_s_votes_plays_once_defended() -> None:
    """A liar votes p0 out and an early clock votes on p1: p2, to play, holds its card back
    for the void that may come, and p0 and p1 vote it out as a staller; the others defend all
    three, the round is decided present, and p2's card, which p0 and p1 had taken only as
    evidence, now counts there (before, they named p2 as the staller it was not)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=600, passing=False)
    early = Fault(FaultKind.EARLY_CLOCK, 3, at=3.058, others=(1,))
    hostile = {4: frozenset({Attack.FALSE_VOTE})}
    s = scenario(rules, hostile=hostile, faults=(early,), timeout=4.0, seed=30270)
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.ending == "running" and r.hands == 1


def test_a_round_decided_present_waits_on_the_staller_not_on_a_second_seat_s_votes() -> None:
    """p3 stalls its pass and falsely accuses slow p2; p0, cut off from p3, defends it with its
    vote, and the round is decided present. p1 had defended p2: it takes p2's pass, which it
    had taken only as evidence, waits on p3 alone, not on p0's vote on p2 that no void needs
    any more, and every peer names p3 (before, p1 named p0)."""
    rules = Rules(4, target=26, moon=Moon.NEGATIVE, queen_breaks_hearts=True, claims=True)
    slow = Fault(FaultKind.SLOW, 2, at=107.02)
    cut = Fault(FaultKind.PARTITION, 0, at=92.65, others=(3,))
    hostile = {3: frozenset({Attack.STALL, Attack.WITHHOLD})}
    s = scenario(rules, hostile=hostile, faults=(slow, cut), timeout=30.0, hands=3, seed=10235)
    s = dataclasses.replace(s, bots=("random", *("heuristic",) * 3), proof_rounds=2)
    with group.using(FastGroup()):
        w = World(s)
        w.start()
        w.run_until(lambda: w.clock.now >= 175.0)
        assert 2 in w.peers[1].protocol._s.step.got  # the slow seat's pass counts there
        w.finish()
        assert broken(w) == set()
        ends = [p.protocol.abort for p in w.peers if not p.hostile]
        assert all(a is not None and a.culprit == 3 for a in ends), ends


def test_a_vote_only_silenced_seats_signed_puts_no_seat_in_trouble() -> None:
    """p2 stops while seating (an early clock) and p4 stalls and withholds: every voter votes
    both out, and p4 shows its vote on p0 to some peers only, after the others have voided
    the hand. A seat every voter gave up on says nothing of another, so the peers that have
    that vote void the hand with the same two seats as the one that has not, and the game
    goes on (before, they waited on a vote on p0 that never came, and named each other)."""
    rules = Rules(5, target=15, moon=Moon.CHOICE)
    early = Fault(FaultKind.EARLY_CLOCK, 2, at=47.13, others=(1,))
    hostile = {4: frozenset({Attack.WITHHOLD, Attack.STALL, Attack.CLAIM})}
    s = scenario(rules, hostile=hostile, faults=(early,), timeout=30.0, hands=2, seed=11072)
    s = dataclasses.replace(s, bots=("random", "random", "random", "heuristic", "random"))
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.milestones["hand voided"] >= 1


def test_a_verdict_in_a_step_with_a_takeover_round_cuts_the_round_away_everywhere() -> None:
    """p2 goes silent and the table takes it over in the `dealt` step, as p3, a colluder,
    signs junk under the number of its part of that step. Some peers complete the round
    before they prove the pair, others after: the cut is where the step began, before the
    round, at each of them (before, the peers that had completed it kept the round, and the
    honest logs differed)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=200, passing=False)
    slow = Fault(FaultKind.SLOW, 4, at=94.67)
    hostile = {
        1: frozenset({Attack.ABORT}),
        2: frozenset({Attack.SILENT, Attack.JUNK, Attack.ABORT}),
        3: frozenset({Attack.JUNK, Attack.WITHHOLD, Attack.REPLAY}),
    }
    s = scenario(rules, hostile=hostile, faults=(slow,), timeout=30.0, seed=20841)
    s = dataclasses.replace(s, bots=("random", "random", "heuristic", "random", "random"))
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.ending == "aborted"


def test_one_liar_s_word_on_a_present_player_holds_no_void_of_two_seats_gone() -> None:
    """p3 withholds and p2 is silent: both are gone in one step. p1, colluding, votes p0 gone
    too; p4 defends p0 with its part, and p0 has voted both others out. p0 is a voter after
    all, so the two seats gone are voided and the game goes on (before, the void waited for
    p0's defenders to accuse it, which they never would, and the table held)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=600, passing=False)
    twice = Fault(FaultKind.DUPLICATES, 0, at=24.29)
    hostile = {
        1: frozenset({Attack.CLAIM, Attack.REPLAY, Attack.FALSE_VOTE}),
        2: frozenset({Attack.SILENT}),
        3: frozenset({Attack.WITHHOLD}),
    }
    s = scenario(rules, hostile=hostile, faults=(twice,), timeout=10.0, seed=10038)
    r = run_scenario(dataclasses.replace(s, proof_rounds=2))
    assert r.violations == [] and r.milestones["hand voided"] >= 1


def test_peers_ending_on_their_own_word_name_the_round_s_seat_not_the_last_clock_s() -> None:
    """Three colluders: p4 goes silent, p2 and p3 vote p0 out, then stop. p0 and p1 vote p4
    gone; their clocks then run out on p2 and on p3, each on another first. Each ends naming
    the lowest seat its standing accusation in the round is against, p4, so they agree
    (before, p0 named p2 and p1 named p3)."""
    rules = Rules(5, game=GameKind.GONGZHU, limit=400, passing=False, same_colour_discard=True)
    hostile = {
        2: frozenset({Attack.FALSE_VOTE}),
        3: frozenset({Attack.FALSE_VOTE}),
        4: frozenset({Attack.FALSE_VOTE, Attack.SILENT, Attack.ABORT}),
    }
    s = scenario(rules, hostile=hostile, timeout=4.0, hands=3, seed=12520)
    s = dataclasses.replace(s, bots=("random", "random", "heuristic", "random", "heuristic"))
    with group.using(FastGroup()):
        w = World(dataclasses.replace(s, proof_rounds=2))
        w.run()
        assert broken(w) == set()
        ends = [w.peers[i].protocol.abort for i in (0, 1)]
        assert all(a is not None and a.culprit == 4 for a in ends), ends


def test_an_answered_clock_follows_no_claim_while_others_play_on() -> None:
    """A staller sends its shuffle to p4 alone, just before p4's clock would give up on it;
    p0, p3 and p5 voted it stalled, and p4 had voted on p0 (cut off from it) in that step.
    p4 must still defend the staller with the part, so the step completes everywhere; p0,
    cut off, ends naming the staller; p3 and p5, whose accusation that part answered, go on
    with p4 and vote p0's seat over (before, p4 never defended, or p3 and p5 followed p0's
    claim while p4 went on: p4 voted them out and opened their hands)."""
    rules = Rules(6, passing=False, moon=Moon.OFF, target=26, claims=True)
    quit_ = Fault(FaultKind.QUIT, 2, at=91.69762281503726)
    cut = Fault(FaultKind.PARTITION, 4, at=106.16969246465679, others=(0, 2))
    hostile = {1: frozenset({Attack.STALL})}
    s = scenario(rules, hostile=hostile, faults=(quit_, cut), timeout=30.0, hands=3, seed=1193)
    s = dataclasses.replace(s, bots=("random", "heuristic") + ("random",) * 4, proof_rounds=2)
    with group.using(FastGroup()):
        w = World(s)
        w.run()
        assert broken(w) == set()
        assert [w.peers[i].protocol.status.value for i in (3, 4, 5)] == ["finished"] * 3
        ended = w.peers[0].protocol.abort
        assert ended is not None and ended.culprit == 1


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_a_budget_of_drawn_seeds_keeps_the_promise(players: int) -> None:
    """CI's share of the long run: drawn tables of each size, 0 to n − 2 hostile seats."""
    failing = []
    for seed in range(1, 6):
        r = run_seed(seed * 7 + players, players=players, real_group=seed == 1)
        if r.violations:
            failing.append((r.seed, [(v.broken.value, v.detail[:120]) for v in r.violations]))
    assert failing == []


def test_hearts_sim_reports_runs_coverage_and_violations(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["sim", "--seeds", "3", "--from", "5", "--players", "4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["runs"] == 3 and report["violations"] == 0
    assert report["combinations"] > 0 and report["runs_per_second"] > 0
    assert report["fingerprint"] == campaign([5, 6, 7], players=4).fingerprint
    assert main(["sim", "--seed", "5", "--players", "4", "--trace"]) == 0
    out = capsys.readouterr().out
    assert "the promise held" in out and "p1 finished" in out


def test_a_campaign_s_fingerprint_is_its_logs_whoever_ran_them() -> None:
    """The fingerprint is how a refactor shows it kept behaviour: the same seeds give the same
    one however they are shared between workers, and a changed log changes it."""
    seeds = [5, 6, 7, 8]
    whole = campaign(seeds, players=4)
    shared = campaign(seeds[1::2], players=4)
    shared.merge(campaign(seeds[0::2], players=4))
    assert whole.fingerprint == shared.fingerprint
    assert len(set(whole.fingerprints.values())) == len(seeds)
    with group.using(FastGroup()):
        w = World(draw(5, players=4))
        w.run()
    assert fingerprint(w) == whole.fingerprints[5]
    w.peers[1].log[3] = w.peers[1].log[3][:-1] + bytes([w.peers[1].log[3][-1] ^ 1])
    assert fingerprint(w) != whole.fingerprints[5]


def test_hearts_sim_refuses_bad_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["sim", "--seeds", "0"])
    assert e.value.code == 2
    assert "at least 1" in capsys.readouterr().err
    assert main(["sim", "--players", "4", "--adversaries", "3"]) == 2
    assert "at most 2 at 4 seats" in capsys.readouterr().err
    assert main(["sim", "--real-every", "-1"]) == 2


def test_the_drawn_scenarios_cover_every_seat_count_attack_and_fault() -> None:
    drawn = [draw(seed) for seed in range(400)]
    assert {s.n for s in drawn} == {3, 4, 5, 6}
    assert {a for s in drawn for attacks in s.hostile.values() for a in attacks} == set(Attack)
    assert {f.kind for s in drawn for f in s.faults} == set(FaultKind)
    assert {len(s.hostile) for s in drawn} >= {0, 1, 2, 3, 4}
