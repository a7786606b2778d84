"""The audit against protocol/vectors/log/: the valid game, and every tampered copy's verdict."""

from __future__ import annotations

import argparse
import functools
import hashlib
import hmac
import json
import struct
import zlib
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hearts_p2p.audit import audit_log
from hearts_p2p.cli.audit import EXIT_INVALID, EXIT_VALID, run_audit
from hearts_p2p.identity import Identity
from hearts_p2p.log import read_log
from hearts_p2p.wire import decode_frame

from .log_vectors import DIR, GROUPS, expected

EXPECTED: dict[str, Any] = json.loads((DIR / "expected.json").read_text())
VECTOR_NAMES: dict[str, tuple[str, ...]] = {
    "game": (
        "bad_signature.log",
        "broken_commitment.log",
        "changed_card.log",
        "cut_mid_game.log",
        "forged_sender.log",
        "renege.log",
        "renege_caught.log",
        "reordered.log",
        "torn_tail.log",
        "valid.log",
    ),
    "gongzhu": (
        "gongzhu.log",
        "gongzhu_all_hearts.log",
        "gongzhu_claim.log",
        "gongzhu_claim_refused.log",
        "gongzhu_false_exposure.log",
        "gongzhu_missed_exposure.log",
        "hearts_claim.log",
    ),
    "gongzhu_rules": (
        "gongzhu_5_players.log",
        "gongzhu_expose_all_but_sheep.log",
        "gongzhu_force_fourth.log",
        "gongzhu_hearts_by_rank.log",
        "gongzhu_partners.log",
        "gongzhu_same_colour_discard.log",
    ),
    "newcomer": ("sit.log",),
    "rules": (
        "3_players.log",
        "5_players.log",
        "6_players.log",
        "jack_of_diamonds.log",
        "moon_choice.log",
        "moon_negative.log",
        "no_pass.log",
        "queen_breaks_hearts.log",
        "spot_hearts.log",
        "ties_play_on.log",
    ),
    "stops": (
        "alarm.log",
        "claim.log",
        "equivocation.log",
        "false_alarm.log",
        "late_equivocation.log",
        "left.log",
        "nobody_led.log",
        "reclaimed.log",
        "taken_over.log",
        "unfounded_vote.log",
        "voided.log",
    ),
}  # what each group of log_vectors.GROUPS makes


HONEST = {
    "valid.log",
    "3_players.log",
    "5_players.log",
    "6_players.log",
    "no_pass.log",
    "spot_hearts.log",
    "jack_of_diamonds.log",
    "queen_breaks_hearts.log",
    "moon_choice.log",
    "moon_negative.log",
    "ties_play_on.log",
    "left.log",
    "taken_over.log",
    "reclaimed.log",
    "voided.log",
    "unfounded_vote.log",
    "gongzhu.log",
    "gongzhu_all_hearts.log",
    "gongzhu_claim.log",
    "gongzhu_claim_refused.log",
    "hearts_claim.log",
    "gongzhu_force_fourth.log",
    "gongzhu_expose_all_but_sheep.log",
    "gongzhu_hearts_by_rank.log",
    "gongzhu_same_colour_discard.log",
    "gongzhu_partners.log",
    "gongzhu_5_players.log",
    "sit.log",
}
STOPPED = {
    "renege_caught.log",
    "alarm.log",
    "false_alarm.log",
    "equivocation.log",
    "late_equivocation.log",
    "nobody_led.log",
    "claim.log",
    "gongzhu_false_exposure.log",
    "gongzhu_missed_exposure.log",
}


@functools.cache
def report(name: str) -> dict[str, Any]:
    """The audit's report on a vector, made once per test session."""
    data: dict[str, Any] = audit_log(DIR / name).to_json()
    return data


def test_every_vector_file_is_made_by_one_group() -> None:
    made = [name for group in VECTOR_NAMES.values() for name in group]
    assert sorted(made) == sorted(EXPECTED) and len(made) == len(set(made))


@pytest.mark.slow
@pytest.mark.parametrize("group", sorted(GROUPS))
def test_the_vectors_are_reproduced_byte_for_byte(tmp_path: Path, group: str) -> None:
    """Each group of vectors, made again from its seeds, is the committed files byte for byte,
    and the audit says of each exactly what expected.json says (the groups run apart, so the
    suite's workers share them)."""
    files = GROUPS[group]()
    assert sorted(files) == sorted(VECTOR_NAMES[group])
    for name, (_, data) in files.items():
        assert (DIR / name).read_bytes() == data, name
        (tmp_path / name).write_bytes(data)
    assert expected(files, tmp_path) == {name: EXPECTED[name] for name in files}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_audit_reports_exactly_what_the_vector_states(name: str) -> None:
    want = EXPECTED[name]
    got = {key: report(name)[key] for key in ("valid", "status", "abort", "final_hash", "problems")}
    assert got == {key: want[key] for key in got}


def test_no_key_of_a_hand_is_released_before_the_hand_before_it_is_audited() -> None:
    """The next hand's deck runs during the current hand (SPEC 6.3), but its deal, the first
    step that releases a key of it, only after the current hand's reveal; a hand ended by a
    proven cheat is followed by no deal at all; a voided hand is never audited (SPEC 6.14).
    Checked on every log vector."""
    ahead = {"shuffle", "echo_shuffle", "lock", "echo_lock"}
    ended_on_audit: list[str] = []
    for name in sorted(EXPECTED):
        envs = [decode_frame(e).envelope for e in read_log(DIR / name).entries]
        voided = {v["hand"] for v in EXPECTED[name]["voids"]}
        for i, env in enumerate(envs):
            if env.hand < 2 or env.kind in ahead or env.kind in ("abort", "takeover", "recover"):
                continue
            if env.hand - 1 in voided:
                continue  # a voided hand is neither revealed nor audited (SPEC 6.14)
            revealed = {e.sender for e in envs[:i] if e.hand == env.hand - 1 and e.kind == "reveal"}
            assert revealed, (name, i, env.hand, env.step)
        steps = [e for e in envs if e.kind != "abort"]
        if EXPECTED[name]["status"] == "aborted" and steps[-1].kind == "reveal":
            audited = steps[-1].hand  # the game ended on that hand's audit: nothing was dealt
            assert not any(e.hand > audited and e.kind == "deal" for e in envs), name
            ended_on_audit.append(name)
    assert {"alarm.log", "false_alarm.log", "gongzhu_missed_exposure.log"} <= set(ended_on_audit)


def test_only_the_honest_logs_pass() -> None:
    """Finished honest games and honest peers' logs of a stopped game pass; tampering fails."""
    passing = {name for name, v in EXPECTED.items() if v["valid"]}
    assert passing == HONEST | STOPPED
    assert all(EXPECTED[name]["status"] == "finished" for name in HONEST)
    assert all(EXPECTED[name]["status"] == "aborted" for name in STOPPED)
    assert all(v["problems"] for name, v in EXPECTED.items() if name not in passing)
    assert all(v["exit"] == (0 if v["valid"] else 4) for v in EXPECTED.values())


def test_the_cheats_are_pinned_on_the_cheaters() -> None:
    """Not just any problem: the one each vector plants, with the player who planted it."""
    culprit = {name: [p["culprit"] for p in v["problems"]] for name, v in EXPECTED.items()}
    assert culprit["changed_card.log"] == ["seat 0 (bob)"]
    assert culprit["broken_commitment.log"] == ["seat 2 (dan)"]
    assert culprit["forged_sender.log"][0] == "seat 1 (ann)"
    assert culprit["renege.log"] == ["seat 3 (cat)"]
    assert EXPECTED["renege_caught.log"]["abort"]["blamed"] == "seat 3 (cat)"
    assert "a renege" in EXPECTED["renege.log"]["problems"][0]["what"]
    assert "reordered" in EXPECTED["reordered.log"]["problems"][0]["what"]
    assert "torn" in EXPECTED["torn_tail.log"]["problems"][0]["what"]
    blamed = {name: EXPECTED[name]["abort"]["blamed"] for name in STOPPED}
    assert blamed["alarm.log"] == "seat 2 (dan)"  # the passer, not the seat that alarmed
    assert "sealed" in EXPECTED["alarm.log"]["abort"]["reason"]
    assert blamed["false_alarm.log"] == "seat 2 (dan)"  # the seat that alarmed for nothing
    assert "audit finds no fault" in EXPECTED["false_alarm.log"]["abort"]["reason"]
    assert blamed["equivocation.log"] == "seat 3 (cat)"
    assert blamed["late_equivocation.log"] == "seat 3 (cat)"
    # Leaving or going silent blames no one: the table plays the seat, named with how it went;
    # a claim is one peer's word.
    assert EXPECTED["left.log"]["takeovers"] == [
        {"seat": 3, "name": "cat", "hand": 1, "ending": "left"}
    ]
    assert [t["ending"] for t in EXPECTED["taken_over.log"]["takeovers"]] == ["gone"]
    # Taken over, it asked its seat back: the next hand deals it as a person's again.
    assert [t["name"] for t in EXPECTED["reclaimed.log"]["takeovers"]] == ["cat"]
    assert EXPECTED["reclaimed.log"]["returns"] == [
        {"seat": 3, "name": "cat", "hand": 2, "refused_by": [], "back": True}
    ]
    # Two gone together: their secrets are lost, the hand is voided, the next dealt.
    assert EXPECTED["voided.log"]["voids"] == [
        {"hand": 1, "seats": [0, 3], "names": ["bob", "cat"], "redeal": 2}
    ]
    assert EXPECTED["voided.log"]["abort"] is None
    assert EXPECTED["unfounded_vote.log"]["final_hash"] == EXPECTED["valid.log"]["final_hash"]
    claim = EXPECTED["claim.log"]["abort"]
    assert blamed["claim.log"] is None
    assert (claim["claim_by"], claim["claim_about"]) == ("seat 1 (ann)", "seat 0 (bob)")


def test_a_stop_is_proven_by_the_log_itself_but_a_claim_is_one_peer_s_word() -> None:
    confirmed = {name: EXPECTED[name]["abort"]["confirmed"] for name in STOPPED}
    assert confirmed == {name: name != "claim.log" for name in STOPPED}
    # A proven equivocation ends the log with the cheat's two frames, in byte order, and
    # nothing signed by the peer that logged it.
    logged = read_log(DIR / "equivocation.log").entries
    last = [decode_frame(e).envelope for e in logged[-2:]]
    assert last[0].sender == last[1].sender and last[0].seq == last[1].seq
    assert logged[-2] < logged[-1] and all(env.kind == "play" for env in last)
    # Two for one step, cut back to it: the cheat's numbers in between are not in the log.
    logged = read_log(DIR / "late_equivocation.log").entries
    last = [decode_frame(e).envelope for e in logged[-2:]]
    assert last[0].sender == last[1].sender and last[0].prev == last[1].prev
    assert abs(last[0].seq - last[1].seq) > 1 and logged[-2] < logged[-1]


def test_the_rule_vectors_show_what_they_are_for() -> None:
    for players in (3, 5, 6):
        got = report(f"{players}_players.log")
        assert len(got["players"]) == players and got["hands"][0]["passes"]
        lead = got["hands"][0]["tricks"][0]
        assert lead["leader"] == 1  # the dealer's left: no 2♣ in the deck
    assert report("valid.log")["hands"][0]["tricks"][0]["plays"][0]["card"] == "2♣"
    no_pass = report("no_pass.log")["hands"][0]
    assert no_pass["pass"] == "none" and not no_pass["passes"]
    spot = report("spot_hearts.log")["hands"][0]
    assert spot["moon"] is None and sum(spot["points"]) == 129
    jack = report("jack_of_diamonds.log")["hands"][0]
    assert jack["moon"] is None and sum(jack["points"]) == 26 - 10 and -10 in jack["points"]
    choice = report("moon_choice.log")["hands"][0]
    shooter = choice["moon"]
    assert choice["points"] == [0 if s == shooter else 26 for s in range(4)]
    negative = report("moon_negative.log")["hands"]
    shooter = negative[0]["moon"]
    assert negative[0]["points"] == [-26 if s == shooter else 0 for s in range(3)]
    assert len(negative) == 2
    ties = report("ties_play_on.log")
    first = ties["hands"][0]["totals"]
    assert max(first) >= 1 and first.count(min(first)) > 1 and len(ties["hands"]) == 2
    assert len(ties["winners"]) == 1


def test_the_gongzhu_vectors_show_their_exposures_and_cheats() -> None:
    game = report("gongzhu.log")
    assert game["rules"].startswith("Gong Zhu")
    (hand,) = game["hands"]
    assert sorted(c for cards in hand["exposed"] for c in cards) == sorted(
        ["Q♠", "J♦", "10♣", "A♥"]
    )
    assert not hand["passes"] and sum(game["results"]) == 0
    log = read_log(DIR / "gongzhu.log").entries
    kinds = [decode_frame(e).envelope.kind for e in log]
    assert kinds.count("expose") == 4 and "pass_commit" not in kinds
    (all_hearts,) = report("gongzhu_all_hearts.log")["hands"]
    taken = [
        sum(
            1
            for t in all_hearts["tricks"]
            for p in t["plays"]
            if t["winner"] == s and p["card"].endswith("♥")
        )
        for s in range(4)
    ]
    assert 13 in taken and max(all_hearts["points"]) > 0
    false = EXPECTED["gongzhu_false_exposure.log"]["abort"]
    assert false["blamed"].endswith("(cat)") and "showed Q♠, which position" in false["reason"]
    missed = EXPECTED["gongzhu_missed_exposure.log"]["abort"]
    assert missed["blamed"].endswith("(cat)")
    assert missed["reason"].startswith("hand 1, the exposure: you must expose ")


def _rules(name: str) -> dict[str, Any]:
    """The rules map of a vector's genesis."""
    rules: dict[str, Any] = decode_frame(read_log(DIR / name).entries[0]).envelope.body["rules"]
    return rules


def spec_gongzhu_points(taken: list[str], exposed: set[str], by_rank: bool) -> int:
    """SPEC 2.9's score of the cards a seat took, from card names alone."""
    scoring = [c for c in taken if c.endswith("♥") or c in ("Q♠", "J♦", "10♣")]
    if not scoring:
        return 0
    hearts = [c[:-1] for c in taken if c.endswith("♥")]
    values = {"J": -20, "Q": -30, "K": -40, "A": -50}
    if by_rank:
        values |= {str(r): -r for r in range(2, 11)} | {"4": -10}
    else:
        values |= {str(r): (0 if r < 5 else -10) for r in range(2, 11)}
    h = 200 if len(hearts) == 13 else sum(values[r] for r in hearts)
    score = h * (2 if "A♥" in exposed else 1)
    if "Q♠" in taken:
        score += (100 if len(scoring) == 16 else -100) * (2 if "Q♠" in exposed else 1)
    if "J♦" in taken:
        score += 100 * (2 if "J♦" in exposed else 1)
    if "10♣" in taken:
        f = 4 if "10♣" in exposed else 2
        score = 25 * f if scoring == ["10♣"] else score * f
    return score


def spec_trick_winner(cards: list[str], same_colour: bool) -> int:
    """SPEC 2.9's winner of a trick, as an index into its cards in play order."""
    order = "23456789TJQKA"
    suit = [c[-1] for c in cards]
    if same_colour:
        colour = {"♣": 0, "♠": 0, "♦": 1, "♥": 1}
        off = [i for i, s in enumerate(suit) if colour[s] != colour[suit[0]]]
        if off:
            return off[0]
    led = [i for i, s in enumerate(suit) if s == suit[0]]
    return max(led, key=lambda i: order.index(cards[i][:-1].replace("10", "T")))


def spec_gongzhu_legal(
    held: set[str], trick: list[str], led: set[str], exposed: set[str]
) -> set[str]:
    """SPEC 2.9's legal plays from ``held`` with ``trick`` the cards played to the trick so far
    and ``led`` the suits led in earlier tricks (the first lead of a four-player hand apart)."""
    if trick:
        suit = trick[0][-1]
        follow = {c for c in held if c[-1] == suit}
        if not follow:
            return held
        return (follow - exposed if suit not in led else follow) or follow
    return {
        c
        for c in held
        if not (c in exposed and c[-1] not in led and any(o[-1] == c[-1] for o in held - {c}))
    }


GONGZHU_PLAYED_OUT = sorted(
    {"gongzhu.log", "gongzhu_all_hearts.log", "gongzhu_claim_refused.log"}
    | set(VECTOR_NAMES["gongzhu_rules"])
)


@pytest.mark.parametrize("name", GONGZHU_PLAYED_OUT)
def test_the_gongzhu_vectors_play_and_score_as_the_spec_says(name: str) -> None:
    """Every play's legality, every trick's winner, every score, total, result and the winners
    of each finished Gong Zhu vector without a claim, worked out again from SPEC 2.9 and the
    cards alone (a seat's hand is the cards it plays: no pass, no claim)."""
    rules, got = _rules(name), report(name)
    n = rules["players"]
    totals = [0] * n
    for hand in got["hands"]:
        exposed = {c for cards in hand["exposed"] for c in cards}
        held = [{p["card"] for t in hand["tricks"] for p in t["plays"] if p["seat"] == s}
                for s in range(n)]  # fmt: skip
        led: set[str] = set()
        first = hand["tricks"][0]
        if n == 4:
            assert first["plays"][0]["card"] == "2♣"
        else:
            assert first["leader"] == (hand["dealer"] + 1) % n
        taken: list[list[str]] = [[] for _ in range(n)]
        for trick in hand["tricks"]:
            cards = [p["card"] for p in trick["plays"]]
            for i, play in enumerate(trick["plays"]):
                if trick is not first or i > 0 or n != 4:
                    legal = spec_gongzhu_legal(held[play["seat"]], cards[:i], led, exposed)
                    assert play["card"] in legal, (trick, i)
                held[play["seat"]].remove(play["card"])
            led.add(cards[0][-1])
            winner = spec_trick_winner(cards, rules["same_colour_discard"])
            assert trick["winner"] == trick["plays"][winner]["seat"]
            taken[trick["winner"]] += cards
        assert len(hand["tricks"]) == 52 // n and "claimed" not in hand
        points = [spec_gongzhu_points(t, exposed, rules["hearts_by_rank"]) for t in taken]
        assert hand["points"] == points
        totals = [a + b for a, b in zip(totals, points, strict=True)]
        assert hand["totals"] == totals
    results = [n * t - sum(totals) for t in totals]
    assert got["totals"] == totals and got["results"] == results
    if rules["partners"]:
        winners = [s for s in range(n) if results[s] + results[(s + 2) % n] > 0]
    else:
        winners = [s for s in range(n) if results[s] > 0]
    assert got["winners"] == winners and min(totals) <= -rules["limit"]


def test_the_gongzhu_option_vectors_show_their_options() -> None:
    """Each option's vector shows it at work: the step, the exposure, the score or the winner
    that only that option gives."""
    # 逼明: three exposed in the expose step, the fourth by its holder in expose_fourth.
    envs = [decode_frame(e).envelope for e in read_log(DIR / "gongzhu_force_fourth.log").entries]
    shown = {e.sender: len(e.body["cards"]) for e in envs if e.kind == "expose"}
    (fourth,) = [e for e in envs if e.kind == "expose_fourth"]
    assert sum(shown.values()) == 3 and len(fourth.body["cards"]) == 1
    (hand,) = report("gongzhu_force_fourth.log")["hands"]
    seat = next(s["seat"] for s in report("gongzhu_force_fourth.log")["players"]
                if s["player"] == fourth.sender)  # fmt: skip
    assert "A♥" in hand["exposed"][seat]
    assert sorted(c for cards in hand["exposed"] for c in cards) == ["10♣", "A♥", "J♦", "Q♠"]
    # 除羊全亮: Q♠ 10♣ A♥ exposed by seats that expose no more than they must; J♦ never.
    (hand,) = report("gongzhu_expose_all_but_sheep.log")["hands"]
    assert sorted(c for cards in hand["exposed"] for c in cards) == ["10♣", "A♥", "Q♠"]
    # 按点计分: the same tricks would score otherwise without it.
    (hand,) = report("gongzhu_hearts_by_rank.log")["hands"]
    taken = [[p["card"] for t in hand["tricks"] if t["winner"] == s for p in t["plays"]]
             for s in range(4)]  # fmt: skip
    plain = [spec_gongzhu_points(t, set(), by_rank=False) for t in taken]
    assert hand["points"] != plain
    # 同色垫牌: a trick taken by a card off the led colour, over a higher card of the led suit.
    (hand,) = report("gongzhu_same_colour_discard.log")["hands"]
    won = [t for t in hand["tricks"]
           if spec_trick_winner([p["card"] for p in t["plays"]], same_colour=False)
           != spec_trick_winner([p["card"] for p in t["plays"]], same_colour=True)]  # fmt: skip
    assert won
    # 打对家: a seat with a positive result loses with its partner.
    partners = report("gongzhu_partners.log")
    assert partners["winners"] != [s for s, r in enumerate(partners["results"]) if r > 0]
    # 5 players: no 2♣ 2♦; the dealer's left leads the first trick of each hand.
    five = report("gongzhu_5_players.log")
    assert len(five["players"]) == 5 and len(five["hands"]) >= 2
    for hand in five["hands"]:
        cards = {p["card"] for t in hand["tricks"] for p in t["plays"]}
        assert len(cards) == 50 and not cards & {"2♣", "2♦"}
        assert hand["tricks"][0]["leader"] == (hand["dealer"] + 1) % 5


def test_a_newcomer_sits_in_a_seat_the_table_plays() -> None:
    """sit.log: the newcomer's sit, signed by its own key, is carried in every seats part;
    its rejoin, signed by the same key, in every welcome; from then on that player's messages
    verify under the newcomer's key only, and the audit lists the sit."""
    gus = Identity.from_seed(bytes([0xA6]) * 32).public_key
    msgs = [decode_frame(e) for e in read_log(DIR / "sit.log").entries]
    cat = msgs[0].envelope.body["players"][2]["key"]
    seats = [m.envelope for m in msgs if m.envelope.kind == "seats"]
    sits = {raw for env in seats for raw in env.body["reclaims"]}
    (sit,) = [decode_frame(raw) for raw in sits]
    assert (sit.envelope.kind, sit.envelope.sender) == ("sit", 2) and sit.verify(gus)
    assert sit.envelope.body["key"] == gus and sit.envelope.body["name"] == "gus"
    welcome = [m.envelope for m in msgs if m.envelope.kind == "welcome"]
    rejoins = {env.body["rejoin"] for env in welcome}
    (rejoin,) = [decode_frame(raw) for raw in rejoins]
    assert rejoin.envelope.kind == "rejoin" and rejoin.verify(gus) and not rejoin.verify(cat)
    last = max(i for i, m in enumerate(msgs) if m.envelope.kind == "welcome")
    before = [m for m in msgs[:last] if m.envelope.sender == 2]
    after = [m for m in msgs[last:] if m.envelope.sender == 2]
    assert before and all(m.verify(cat) for m in before)
    assert {m.envelope.kind for m in after} >= {"shuffle", "play", "reveal", "end"}
    assert all(m.verify(gus) and not m.verify(cat) for m in after)
    got = report("sit.log")
    assert [(t["name"], t["hand"], t["ending"]) for t in got["takeovers"]] == [("cat", 1, "gone")]
    assert [(s["name"], s["was"], s["hand"], s["taken"]) for s in got["sits"]] == [
        ("gus", "cat", sit.envelope.hand, True)
    ]


def test_the_claim_vectors_end_hands_early_or_play_on() -> None:
    for name in ("gongzhu_claim.log", "hearts_claim.log"):
        hands = report(name)["hands"]
        assert any(len(h["tricks"]) < 13 for h in hands), name
    envs = [decode_frame(e).envelope for e in read_log(DIR / "gongzhu_claim_refused.log").entries]
    i = next(k for k, env in enumerate(envs) if "claim" in env.body)
    assert (envs[i + 1].step, envs[i + 1].sender) == (envs[i].step, envs[i].sender)
    assert "card" in envs[i + 1].body
    assert len(report("gongzhu_claim_refused.log")["hands"][0]["tricks"]) == 13


def test_a_heart_is_led_after_the_queen_before_hearts_are_broken() -> None:
    tricks = report("queen_breaks_hearts.log")["hands"][0]["tricks"]
    played: list[str] = []
    led = []
    for t in tricks:
        cards = [p["card"] for p in t["plays"]]
        if cards[0].endswith("♥") and not any(c.endswith("♥") for c in played):
            led.append("Q♠" in played)
        played += cards
    assert led == [True]


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("valid.log", EXIT_VALID),
        ("renege_caught.log", EXIT_VALID),
        ("alarm.log", EXIT_VALID),
        ("6_players.log", EXIT_VALID),
        ("bad_signature.log", EXIT_INVALID),
        ("renege.log", EXIT_INVALID),
    ],
)
def test_hearts_audit_exit_codes(name: str, code: int, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_audit(argparse.Namespace(log=DIR / name, json=True)) == code
    printed = json.loads(capsys.readouterr().out)
    assert printed["valid"] is (code == EXIT_VALID)
    assert run_audit(argparse.Namespace(log=DIR / name, json=False)) == code
    verdict = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert verdict.startswith("VALID" if code == EXIT_VALID else "INVALID")


def spec_escrow(
    secret: bytes, game_id: bytes, sender: int, players: list[dict[str, Any]]
) -> list[list[bytes]]:
    """SPEC.md 6.12's escrow of a player's game secret, from bare primitives."""
    holders = [h for h in range(len(players)) if h != sender]
    shares = [hmac.new(secret, f"escrow share {h}".encode(), "sha256").digest() for h in holders]
    last = int.from_bytes(secret, "big")
    for share in shares[:-1]:
        last ^= int.from_bytes(share, "big")
    shares[-1] = last.to_bytes(32, "big")
    out = []
    for h, share in zip(holders, shares, strict=True):
        context = bytes([len(game_id)]) + game_id + bytes([sender, h])
        commitment = hashlib.sha256(b"hearts-p2p/escrow/v1/share" + context + share).digest()
        e = X25519PrivateKey.from_private_bytes(
            hmac.new(secret, f"escrow key {h}".encode(), "sha256").digest()
        )
        public = e.public_key().public_bytes_raw()
        receiver = players[h]["dh"]
        shared = e.exchange(X25519PublicKey.from_public_bytes(receiver))
        header = b"hearts-p2p/escrow/v1/box" + context
        key = HKDF(hashes.SHA256(), 32, None, header + public + receiver).derive(shared)
        sealed = ChaCha20Poly1305(key).encrypt(bytes(12), share, header)
        out.append([commitment, public, sealed])
    return out


@pytest.mark.parametrize(("name", "salt"), [("valid.log", None), ("6_players.log", b"0")])
def test_the_spec_recomputes_a_log(name: str, salt: bytes | None) -> None:
    """SPEC.md 3.4, 3.5, 5, 6 and 7 alone, with bare primitives, account for every byte of an
    honest log: records, signatures, sequence numbers, chain and ``prev``, the genesis digest,
    the derived pass keys and coin-flip secrets, the seats, the totals and the final hash."""
    data = (DIR / name).read_bytes()
    assert data[:11] == b"HEARTSLOG\x01\n"
    entries, pos = [], 11
    while pos < len(data):
        length, crc = struct.unpack_from(">II", data, pos)
        entry = data[pos + 8 : pos + 8 + length]
        assert zlib.crc32(entry) == crc
        entries.append(entry)
        pos += 8 + length
    frames = [msgpack.unpackb(e) for e in entries]
    envs = [msgpack.unpackb(env) for env, _ in frames]
    genesis = envs[0][8]
    players = genesis["players"]
    n = genesis["rules"]["players"]
    head, step_head, step, seqs = bytes(32), bytes(32), None, [0] * n
    for (env_bytes, sig), env in zip(frames, envs, strict=True):
        version, game_id, hand, name_, sender, seq, prev, kind, _body = env
        if (hand, name_) != step:
            step, step_head = (hand, name_), head
        key = Ed25519PublicKey.from_public_bytes(players[sender]["key"])
        key.verify(sig, b"hearts-p2p/v1 message\0" + env_bytes)
        assert (version, game_id, prev, kind) == (1, envs[0][1], step_head, name_.split(".")[0])
        assert seq == seqs[sender]
        seqs[sender] += 1
        head = hashlib.sha256(head + hashlib.sha256(env_bytes).digest()).digest()
    assert head.hex() == EXPECTED[name]["final_hash"]
    digest = hashlib.sha256(b"hearts-p2p genesis\0" + frames[0][0]).digest()
    accepts = {env[4]: env[8] for env in envs if env[7] == "accept"}
    assert all(body["genesis"] == digest for body in accepts.values())
    context = envs[0][1] + b"seats"
    framed = len(context).to_bytes(2, "big") + context
    flips = []
    for q in range(n):
        secret = (
            bytes([0xB0 + q]) * 32
            if salt is None
            else hashlib.sha256(b"hearts-p2p vector secret " + salt + bytes([q])).digest()
        )
        dh = X25519PrivateKey.from_private_bytes(hmac.new(secret, b"dh", "sha256").digest())
        assert dh.public_key().public_bytes_raw() == players[q]["dh"]
        flip = hmac.new(secret, b"flip", "sha256").digest()
        commit = hashlib.sha256(
            b"hearts-p2p/coinflip/v1/commit" + framed + q.to_bytes(2, "big") + flip
        ).digest()
        sent = [env[8] for env in envs if env[4] == q and env[7].startswith("flip")]
        assert sent == [{"commit": commit, "escrow": None}, {"secret": flip}]
        flips.append(flip)
        assert accepts[q]["escrow"] == spec_escrow(secret, envs[0][1], q, players)
    seed = hashlib.sha256(b"hearts-p2p/coinflip/v1/seed" + framed + b"".join(flips)).digest()
    stream = [hashlib.sha256(seed + k.to_bytes(8, "big")).digest() for k in range(2)]
    draws = iter(b"".join(stream))
    player_at = list(range(n))
    for i in range(n - 1, 0, -1):
        bits = i.bit_length()
        while (j := next(draws) & ((1 << bits) - 1)) > i:
            pass
        player_at[i], player_at[j] = player_at[j], player_at[i]
    shufflers = [env[4] for env in envs if env[7] == "shuffle" and env[2] == 1]
    assert shufflers == player_at
    # From hand 2 on, each step of a deck before its deal follows a play of the hand before
    # (SPEC 6.4), or, once that hand's plays are over, the step of the deck before it.
    named = [(env[2], env[3]) for env in envs]
    order = [s for i, s in enumerate(named) if i == 0 or s != named[i - 1]]
    ahead = {"shuffle", "echo_shuffle", "lock", "echo_lock"}
    for (hand, name_), before in zip(order[1:], order, strict=False):
        if hand >= 2 and name_.split(".")[0] in ahead:
            kind_before = before[1].split(".")[0]
            assert (before[0], kind_before) in ((hand - 1, "play"), (hand - 1, "reveal")) or (
                before[0] == hand and kind_before in ahead
            ), (hand, name_, before)
    totals = report(name)["totals"]
    assert all(env[8] == {"totals": totals} for env in envs if env[7] == "end")
    assert [p["player"] for p in report(name)["players"]] == player_at
