"""The rules value: options, defaults, player counts, pass cycles, and its strict dict form."""

from __future__ import annotations

from typing import Any

import pytest

from hearts_p2p.cards import DECK_MASK, format_cards, parse_cards
from hearts_p2p.rules import (
    PRESETS,
    GameKind,
    Moon,
    PassDirection,
    Rules,
    RulesError,
    Ties,
    deck_mask,
    position_owner,
    removed_cards,
)

L, R, A, N = PassDirection.LEFT, PassDirection.RIGHT, PassDirection.ACROSS, PassDirection.NONE


def test_defaults_are_microsoft_hearts() -> None:
    r = Rules()
    assert (r.players, r.passing, r.moon, r.ties, r.target) == (
        4,
        True,
        Moon.CLASSIC,
        Ties.SHARED,
        100,
    )
    assert not (r.jack_of_diamonds or r.spot_hearts or r.queen_breaks_hearts)
    assert r.penalty_total == 26
    assert r.queen_points == 13
    assert r.cards_each == 13
    assert r.deck_mask == DECK_MASK


def test_spot_hearts_values_and_target() -> None:
    r = Rules(spot_hearts=True)
    assert r.target == 500
    assert r.queen_points == 25
    assert [r.heart_points(c) for c in parse_cards("2H 10H JH QH KH AH")] == [2, 10, 11, 12, 13, 14]
    assert r.penalty_total == 104 + 25 == 129
    assert Rules(spot_hearts=True, target=250).target == 250
    assert Rules().heart_points(parse_cards("AH")[0]) == 1


@pytest.mark.parametrize(
    ("players", "removed", "each"),
    [(3, "2♣", 17), (4, "", 13), (5, "2♣ 2♦", 10), (6, "2♣ 2♦ 2♠ 3♣", 8)],
)
def test_player_count_table(players: int, removed: str, each: int) -> None:
    r = Rules(players=players)
    assert format_cards(removed_cards(players)) == removed
    assert r.cards_each == each
    assert r.deck_mask.bit_count() == each * players
    assert deck_mask(players) == r.deck_mask
    for c in removed_cards(players):
        assert not r.deck_mask >> c & 1


@pytest.mark.parametrize(
    ("players", "cycle"),
    [(3, [L, R, N]), (4, [L, R, A, N]), (5, [L, R, N]), (6, [L, R, A, N])],
)
def test_pass_cycles(players: int, cycle: list[PassDirection]) -> None:
    r = Rules(players=players)
    got = [r.pass_direction(n) for n in range(1, 2 * len(cycle) + 1)]
    assert got == cycle * 2


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_passing_off_never_passes(players: int) -> None:
    r = Rules(players=players, passing=False)
    assert {r.pass_direction(n) for n in range(1, 13)} == {N}
    assert r.pass_target(0, 1) is None


def test_pass_targets() -> None:
    r4 = Rules()
    assert [r4.pass_target(s, 1) for s in range(4)] == [1, 2, 3, 0]  # left: next seat in play
    assert [r4.pass_target(s, 2) for s in range(4)] == [3, 0, 1, 2]  # right: previous seat
    assert [r4.pass_target(s, 3) for s in range(4)] == [2, 3, 0, 1]  # across
    assert [r4.pass_target(s, 4) for s in range(4)] == [None] * 4
    r6 = Rules(players=6)
    assert [r6.pass_target(s, 3) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    r3 = Rules(players=3)
    assert [r3.pass_target(s, 2) for s in range(3)] == [2, 0, 1]


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_dealer_rotates_and_deals_from_the_left(players: int) -> None:
    r = Rules(players=players)
    assert [r.dealer(n) for n in range(1, players + 2)] == [*range(players), 0]
    assert position_owner(0, players, dealer=0) == 1
    assert position_owner(players - 1, players, dealer=0) == 0


def test_presets() -> None:
    assert PRESETS["standard"] == Rules()
    assert PRESETS["omnibus"].jack_of_diamonds
    assert PRESETS["spot"].spot_hearts and PRESETS["spot"].target == 500


@pytest.mark.parametrize(
    "rules", [*PRESETS.values(), Rules(players=6, moon=Moon.CHOICE, ties=Ties.PLAY_ON)]
)
def test_dict_round_trip(rules: Rules) -> None:
    d = rules.to_dict()
    assert all(isinstance(v, bool | int | str) for v in d.values())
    assert Rules.from_dict(d) == rules


def test_enum_values_given_as_strings() -> None:
    r = Rules(moon="negative", ties="play_on")  # type: ignore[arg-type]
    assert r.moon is Moon.NEGATIVE and r.ties is Ties.PLAY_ON


def test_summary() -> None:
    assert Rules().summary() == "4 players, to 100, moon classic"
    s = Rules(passing=False, jack_of_diamonds=True, queen_breaks_hearts=True, ties=Ties.PLAY_ON)
    assert s.summary() == (
        "4 players, to 100, no passing, moon classic, J♦ −10, Q♠ breaks hearts, ties play on"
    )


BAD_VALUES: list[tuple[dict[str, Any], str]] = [
    ({"players": 2}, "players"),
    ({"players": 7}, "players"),
    ({"players": "4"}, "players"),
    ({"players": 4.0}, "players"),
    ({"players": True}, "players"),
    ({"passing": 1}, "passing"),
    ({"passing": "yes"}, "passing"),
    ({"jack_of_diamonds": None}, "jack_of_diamonds"),
    ({"spot_hearts": 0}, "spot_hearts"),
    ({"queen_breaks_hearts": "true"}, "queen_breaks_hearts"),
    ({"moon": "sometimes"}, "moon"),
    ({"moon": None}, "moon"),
    ({"moon": []}, "moon"),
    ({"moon": True}, "moon"),
    ({"ties": "split"}, "ties"),
    ({"ties": 1}, "ties"),
    ({"target": -1}, "target"),
    ({"target": 10_001}, "target"),
    ({"target": 100.0}, "target"),
    ({"target": "100"}, "target"),
    ({"target": False}, "target"),
]


@pytest.mark.parametrize(("bad", "field"), BAD_VALUES, ids=repr)
def test_bad_values_are_refused_by_name(bad: dict[str, Any], field: str) -> None:
    with pytest.raises(RulesError, match=field):
        Rules(**bad)
    with pytest.raises(RulesError, match=field):
        Rules.from_dict({**Rules().to_dict(), **bad})


def test_from_dict_refuses_unknown_and_missing_keys() -> None:
    good = Rules().to_dict()
    with pytest.raises(RulesError, match=r"unknown rules option.*jokers"):
        Rules.from_dict({**good, "jokers": True})
    with pytest.raises(RulesError, match="unknown"):
        Rules.from_dict({**good, 1: True})
    with pytest.raises(RulesError, match=r"missing rules option.*moon"):
        Rules.from_dict({k: v for k, v in good.items() if k != "moon"})


@pytest.mark.parametrize("data", [None, [], "players=4", 4, [("players", 4)]], ids=repr)
def test_from_dict_refuses_non_maps(data: object) -> None:
    with pytest.raises(RulesError, match="must be a map"):
        Rules.from_dict(data)


@pytest.mark.parametrize("players", [2, 7, None, "4", [], 4.0, True])
def test_helpers_refuse_bad_player_counts(players: object) -> None:
    with pytest.raises(RulesError):
        removed_cards(players)  # type: ignore[arg-type]
    with pytest.raises(RulesError):
        deck_mask(players)  # type: ignore[arg-type]


@pytest.mark.parametrize("number", [0, -1, "1", None, 1.0, True])
def test_hand_numbers_start_at_one(number: object) -> None:
    r = Rules()
    with pytest.raises(RulesError, match="hand number"):
        r.pass_direction(number)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="hand number"):
        r.dealer(number)  # type: ignore[arg-type]
    with pytest.raises(RulesError, match="hand number"):
        r.pass_target(0, number)  # type: ignore[arg-type]


@pytest.mark.parametrize("seat", [-1, 4, "0", None, True])
def test_pass_target_refuses_bad_seats(seat: object) -> None:
    with pytest.raises(RulesError, match="seat"):
        Rules().pass_target(seat, 1)  # type: ignore[arg-type]


@pytest.mark.parametrize("card", [52, -1, "AH", None, True])
def test_heart_points_refuses_non_cards(card: object) -> None:
    with pytest.raises(ValueError, match="card"):
        Rules(spot_hearts=True).heart_points(card)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("position", "players", "dealer"),
    [(0, 0, 0), (0, 4, 4), (0, 4, -1), (52, 4, 0), (-1, 4, 0), ("0", 4, 0), (0, 4, None)],
)
def test_position_owner_refuses_bad_arguments(position: Any, players: Any, dealer: Any) -> None:
    with pytest.raises(RulesError):
        position_owner(position, players, dealer)


# -- Gong Zhu ---------------------------------------------------------------------------------

GONGZHU_FLAGS = (
    "expose_all",
    "expose_all_but_sheep",
    "hearts_by_rank",
    "force_fourth",
    "same_colour_discard",
    "partners",
)


def test_the_game_defaults_to_hearts_and_a_hearts_dict_is_unchanged() -> None:
    r = Rules()
    assert r.game is GameKind.HEARTS and not r.is_gongzhu
    assert r.limit == 0 and not any(getattr(r, f) for f in GONGZHU_FLAGS)
    assert list(r.to_dict()) == [
        "players", "passing", "moon", "jack_of_diamonds", "spot_hearts",
        "queen_breaks_hearts", "target", "ties",
    ]  # fmt: skip
    with pytest.raises(RulesError, match="'hearts' is the default"):
        Rules.from_dict({**r.to_dict(), "game": "hearts"})


def test_gong_zhu_defaults() -> None:
    r = Rules(game=GameKind.GONGZHU)
    assert r.is_gongzhu and r.limit == 1000 and not r.passing
    assert r.pass_direction(1) is N and r.pass_target(0, 1) is None
    assert r.cards_each == 13 and Rules(game=GameKind.GONGZHU, players=5).cards_each == 10
    assert r.to_dict() == {"game": "gongzhu", "players": 4, "limit": 1000} | dict.fromkeys(
        GONGZHU_FLAGS, False
    )
    assert Rules(game="gongzhu") == r  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "rules",
    [
        Rules(game=GameKind.GONGZHU),
        Rules(game=GameKind.GONGZHU, players=5, limit=500, hearts_by_rank=True),
        Rules(game=GameKind.GONGZHU, expose_all=True, same_colour_discard=True, partners=True),
        Rules(game=GameKind.GONGZHU, expose_all_but_sheep=True),
        Rules(game=GameKind.GONGZHU, force_fourth=True),
    ],
)
def test_gong_zhu_dict_round_trip(rules: Rules) -> None:
    d = rules.to_dict()
    assert all(isinstance(v, bool | int | str) for v in d.values())
    assert Rules.from_dict(d) == rules


def test_gong_zhu_summary() -> None:
    assert Rules(game=GameKind.GONGZHU).summary() == "Gong Zhu, 4 players, to −1000"
    s = Rules(game=GameKind.GONGZHU, limit=500, expose_all=True, partners=True).summary()
    assert s == "Gong Zhu, 4 players, to −500, all exposed, partners"


GONGZHU_BAD: list[tuple[dict[str, Any], str]] = [
    ({"players": 3}, "players must be 4 or 5 for Gong Zhu"),
    ({"players": 6}, "players must be 4 or 5 for Gong Zhu"),
    ({"moon": Moon.OFF}, "moon is a Hearts option"),
    ({"jack_of_diamonds": True}, "jack_of_diamonds is a Hearts option"),
    ({"spot_hearts": True}, "spot_hearts is a Hearts option"),
    ({"queen_breaks_hearts": True}, "queen_breaks_hearts is a Hearts option"),
    ({"target": 100}, "target is a Hearts option"),
    ({"ties": Ties.PLAY_ON}, "ties is a Hearts option"),
    ({"limit": -1}, "limit must be from 1 to 10000"),
    ({"limit": 10_001}, "limit must be from 1 to 10000"),
    ({"limit": "1000"}, "limit must be int"),
    ({"limit": True}, "limit must be int"),
    ({"partners": 1}, "partners must be bool"),
    ({"expose_all": "yes"}, "expose_all must be bool"),
    ({"expose_all": True, "expose_all_but_sheep": True}, "cannot both hold"),
    ({"force_fourth": True, "expose_all": True}, "force_fourth cannot go with"),
    ({"force_fourth": True, "expose_all_but_sheep": True}, "force_fourth cannot go with"),
    ({"players": 5, "partners": True}, "partners needs 4 players"),
]


@pytest.mark.parametrize(("bad", "message"), GONGZHU_BAD, ids=repr)
def test_bad_gong_zhu_values_are_refused(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        Rules(game=GameKind.GONGZHU, **bad)


@pytest.mark.parametrize("name", ["limit", *GONGZHU_FLAGS])
def test_gong_zhu_options_are_refused_for_hearts(name: str) -> None:
    value = 500 if name == "limit" else True
    with pytest.raises(RulesError, match=f"{name} is a Gong Zhu option"):
        Rules(**{name: value})


def test_from_dict_keeps_each_games_keys_apart() -> None:
    gz = Rules(game=GameKind.GONGZHU).to_dict()
    with pytest.raises(RulesError, match=r"unknown rules option.*for gongzhu: moon"):
        Rules.from_dict({**gz, "moon": "classic"})
    with pytest.raises(RulesError, match=r"unknown rules option.*for hearts: partners"):
        Rules.from_dict({**Rules().to_dict(), "partners": False})
    with pytest.raises(RulesError, match=r"missing rules option.*limit"):
        Rules.from_dict({k: v for k, v in gz.items() if k != "limit"})
    with pytest.raises(RulesError, match="game must be one of hearts, gongzhu"):
        Rules.from_dict({**gz, "game": "chess"})
