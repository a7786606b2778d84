"""Bot levels: what each maps to, and that the bots a host starts carry their level in the
roster and the log, through the real ``hearts`` program."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

from hearts_p2p.bots import (
    Bot,
    GameSwitch,
    HardBot,
    HeuristicBot,
    MonteCarloBot,
    MonteCarloV1Bot,
)
from hearts_p2p.cli.levels import bot_for, level_name
from hearts_p2p.cli.main import build_parser

from .pty_term import free_port
from .test_command_errors import hearts


def hearts_side(bot: Bot) -> Bot:
    """The Hearts bot of a strategy that plays both games."""
    return bot.hearts if isinstance(bot, GameSwitch) else bot


def test_each_level_is_a_strategy_and_a_budget() -> None:
    assert isinstance(hearts_side(bot_for("easy", 1)), HeuristicBot)
    medium = hearts_side(bot_for("medium", 1))
    assert isinstance(medium, MonteCarloV1Bot) and medium.budget_ms == 40
    hard = hearts_side(bot_for("hard", 1))
    assert isinstance(hard, HardBot) and hard.budget_ms == HardBot().budget_ms
    assert isinstance(hearts_side(bot_for("montecarlo", 1)), MonteCarloBot)  # strategies too


def test_a_bot_playing_a_level_says_so_in_its_name() -> None:
    assert level_name("Bot 1", "hard") == "Bot 1 [hard]"
    assert level_name("Bot 1", "montecarlo") == "Bot 1"
    assert len(level_name("x" * 32, "medium")) == 32


def test_the_bots_of_a_table_carry_their_level_to_every_log(tmp_path: Path) -> None:
    disc = str(free_port(socket.SOCK_DGRAM))
    run = hearts(
        "play", "--headless", "--bot-level", "easy", "--target", "1", "--name", "Ada",
        "--data-dir", str(tmp_path), "--discovery-port", disc,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    log = re.search(r"game log: (\S+\.log)", run.stdout)
    assert log is not None, run.stdout
    report = json.loads(hearts("audit", "--json", log.group(1)).stdout)
    names = sorted(p["name"] for p in report["players"])
    assert names == ["Ada", "Bot 1 [easy]", "Bot 2 [easy]", "Bot 3 [easy]"]


def test_with_neither_flag_the_bots_play_the_hard_bot() -> None:
    """The default is the strongest bot, for ``--bots``, ``hearts play`` and ``hearts bot``."""
    parser = build_parser()
    for command in ("play", "host", "bot"):
        assert parser.parse_args([command]).strategy == "hard"
    assert parser.parse_args(["play", "--bot-level", "hard"]).strategy == "hard"
    assert parser.parse_args(["bot", "--level", "medium"]).strategy == "medium"
    assert parser.parse_args(["bot", "--strategy", "easy"]).strategy == "easy"
