"""Every example command of README.md and docs/user-guide.md, run as written.

The examples are the lines of the docs' fenced ``sh`` blocks and the ``$ `` lines of their
``console`` blocks. Each runs through the real ``hearts`` program with a deadline, on loopback
only, with data and settings directories of the test's own: a LAN interface (``eth0``,
``tun0``) becomes ``lo``, the VPN address ``10.8.0.2`` becomes ``127.0.0.1``, the fixed port
47300 a free one, discovery gets a port of the test's own, and whoever looks for a table a long
``--wait``. Interactive commands run in a pseudo-terminal until they show what the guide says
they show; commands the guide gives for a second terminal run beside the first.
``test_every_example_is_run`` fails on an example that no test here runs, so a new one in the
docs needs its test.
"""

from __future__ import annotations

import json
import re
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .pty_term import FIND_WAIT, Terminal, free_port, hearts_env

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DOCS = (ROOT / "README.md", ROOT / "docs" / "user-guide.md")
PROMPT_PASS = r"pass 3 cards to [^\n>]*> "

NOT_RUN = {"python3 run.py pytest -n 2": "the test suite, this test among them"}
# README's ``python3 run.py hearts ...`` installs (which needs the network: .ci/pep668-play runs
# it whole on CI) and then runs ``hearts ...``, which is what runs here; tests/test_run_py.py
# checks what run.py decides.
BOOTSTRAP = "python3 run.py "

SCENARIOS = {
    "alone": [
        "python3 run.py hearts play",
        "hearts play --name Ada",
        "hearts play --name Ada --bot-level hard",
    ],
    "full table": ['hearts join "Ada\'s table" --name Bea', "hearts watch"],
    "headless": ["hearts play --headless", "hearts play --headless --target 30 --json"],
    "two terminals": [
        "hearts host --name Ada --table Friday --bots 2",
        "hearts list",
        "hearts join Friday --name Bea",
    ],
    "lan": [
        "hearts host --name Ada --table Friday --interface eth0",
        "hearts list --interface eth0",
        "hearts join Friday --name Bea --interface eth0",
        "hearts bot Friday --interface eth0 --level hard",
        "hearts watch Friday --name Kim --interface eth0",
    ],
    "open seat": [
        "hearts host --name Ada --table Friday --open-seats ask --interface eth0",
        "hearts list --interface eth0",
        "hearts join Friday --seat 2 --name Kim --interface eth0",
        "hearts bot Friday --seat 2 --name Kim --interface eth0",
    ],
    "vpn": [
        "hearts host --name Ada --interface tun0 --port 47300",
        "hearts join --peer 10.8.0.2:47300 --name Bea --interface tun0",
        "hearts bot --peer 10.8.0.2:47300 --name Robo --delay 0.5",
    ],
    "sim": [
        "hearts sim --seeds 20",
        "hearts sim --seeds 40 --jobs 2 --json",
        "hearts sim --seeds 10 --players 5 --adversaries 3",
        "hearts sim --seed 1106 --trace",
        "hearts sim --seed 1106 --shrink",
    ],
    "config": [
        "hearts config set interface eth0",
        "hearts config set name Ada",
        "hearts config set target 50",
        "hearts config",
        "hearts config unset target",
    ],
}


def examples() -> list[str]:
    """Every example command of the docs, in order, each part of an ``&&`` chain apart."""
    out = []
    for doc in DOCS:
        text = doc.read_text()
        for kind, body in re.findall(r"^```(sh|console)\n(.*?)^```", text, re.S | re.M):
            for line in body.splitlines():
                if kind == "console":
                    if not line.startswith("$ "):
                        continue
                    line = line[2:]
                line = re.sub(r"\s+#.*$", "", line).strip()
                out += [part.strip() for part in line.split("&&") if part.strip()]
    return out


def test_every_example_is_run() -> None:
    run = {c for commands in SCENARIOS.values() for c in commands}
    missing = [c for c in examples() if c not in run and c not in NOT_RUN]
    assert not missing, f"examples no test runs: {missing}"
    stale = sorted(run - set(examples()))
    assert not stale, f"examples the docs no longer give: {stale}"


class Loopback:
    """The examples' commands as this test runs them: on loopback, in its own directories."""

    def __init__(self, tmp: Path) -> None:
        self.discovery = str(free_port(socket.SOCK_DGRAM))
        self.port = str(free_port())
        self.env = hearts_env(XDG_DATA_HOME=str(tmp / "data"), XDG_CONFIG_HOME=str(tmp / "config"))
        self.opened: list[Terminal] = []

    def args(self, command: str) -> list[str]:
        assert command in examples(), f"not an example of the docs: {command}"
        text = re.sub(r"--interface (eth0|tun0)", "--interface lo", command.removeprefix(BOOTSTRAP))
        text = text.replace("10.8.0.2", "127.0.0.1").replace("47300", self.port)
        words = shlex.split(text)
        assert words[0] == "hearts"
        words = words[1:]
        if words[0] == "list":
            words += ["--port", self.discovery]
        elif words[0] in ("play", "host", "join", "bot", "watch"):
            words += ["--discovery-port", self.discovery]
        if words[0] in ("join", "bot", "watch") and "--peer" not in words:
            words += ["--wait", FIND_WAIT]
        return words

    def run(
        self, command: str, timeout: float = 60, more: tuple[str, ...] = ()
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "hearts_p2p.cli.main", *self.args(command), *more],
            capture_output=True, text=True, timeout=timeout, env=self.env,
        )  # fmt: skip

    def terminal(self, command: str) -> Terminal:
        t = Terminal(self.args(command), self.env)
        self.opened.append(t)
        return t

    def leave(self, *terms: Terminal) -> None:
        """Ctrl-C in each terminal: the player leaves, and the program ends."""
        for t in terms:
            t.interrupt()
        for t in terms:
            assert t.wait(30) in (3, 130), t.tail()


@pytest.fixture
def lo(tmp_path: Path) -> Iterator[Loopback]:
    loop = Loopback(tmp_path)
    yield loop
    for t in loop.opened:
        t.close()


def test_alone_against_bots_and_a_full_table(lo: Loopback) -> None:
    for command in SCENARIOS["alone"]:
        ada = lo.terminal(command)
        ada.expect(PROMPT_PASS, timeout=60)
        if command == "hearts play --name Ada":
            full, watch = SCENARIOS["full table"]
            refused = lo.run(full)
            assert refused.returncode == 1
            said = 'hearts join: table "Ada\'s table" is playing (4/4): it has no seat for you'
            assert said in refused.stderr
            watcher = lo.terminal(watch)
            watcher.expect(r"Watching \"Ada's table\" hosted by Ada", timeout=30)
            watcher.expect(r"seat 0: ", timeout=30)
            ada.expect(r"is watching; 1 watching", timeout=30)
            lo.leave(ada)  # Ada leaves: the watcher sees the game end, and checks it
            watcher.expect(r"Aborted: Ada left the table\n", timeout=30)
            watcher.expect(r"VALID: an aborted game\n", timeout=30)
            assert watcher.wait(30) == 3
            continue
        lo.leave(ada)


def test_headless_games(lo: Loopback) -> None:
    plain, as_json = SCENARIOS["headless"]
    # The example plays to 100 with hard bots. To 20 with the heuristic it is the same command,
    # run whole to its final scores, in a fraction of the CPU; the JSON example plays to the 30
    # it gives, with the heuristic too.
    easy = ("--bot-strategy", "heuristic")
    done = lo.run(plain, timeout=240, more=("--target", "20", *easy))
    assert done.returncode == 0, done.stderr
    assert re.search(r"^final scores: .*; winners? ", done.stdout, re.M), done.stdout
    done = lo.run(as_json, timeout=240, more=easy)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["status"] == "finished"


def test_two_terminals_on_one_machine(lo: Loopback) -> None:
    host_cmd, list_cmd, join_cmd = SCENARIOS["two terminals"]
    host = lo.terminal(host_cmd)
    host.expect(r"Bot \d \[hard\] joined.*\n.*Bot \d \[hard\] joined", timeout=60)
    listed = lo.run(list_cmd)
    assert listed.returncode == 0 and re.search(r"^Friday +Ada ", listed.stdout, re.M)
    guest = lo.terminal(join_cmd)
    host.expect(r"Bea joined", timeout=30)
    for t in (host, guest):
        t.expect(PROMPT_PASS, timeout=60)
    lo.leave(host, guest)


def test_a_lan_table_forming(lo: Loopback) -> None:
    host_cmd, list_cmd, join_cmd, bot_cmd, watch_cmd = SCENARIOS["lan"]
    host = lo.terminal(host_cmd)
    host.expect(r'Table "Friday" open on 127\.0\.0\.1:\d+; waiting for 3 player\(s\)', 30)
    listed = lo.run(list_cmd)
    assert listed.returncode == 0 and re.search(r"^Friday +Ada ", listed.stdout, re.M)
    guest = lo.terminal(join_cmd)
    guest.expect(r'Seated at "Friday"', timeout=30)
    bot = lo.terminal(bot_cmd)
    bot.expect(r'Seated at "Friday"', timeout=30)
    host.expect(r"Bot \[hard\] joined", timeout=30)
    watcher = lo.terminal(watch_cmd)
    watcher.expect(r'Table "Friday" hosted by Ada .* is forming \(3/4 seated\)', timeout=30)
    lo.leave(watcher, guest, host)
    assert bot.wait(30) in (0, 1, 3)


def test_open_seats_shown_and_a_seat_asked_for_while_none_is_open(lo: Loopback) -> None:
    """The host's rule is in the table's rules; while the table forms, no seat is open to a
    newcomer, so ``join --seat`` and ``bot --seat`` say so within their wait and exit 1 (the
    whole path, a seat taken over and taken, is test_newcomer_processes.py's)."""
    host_cmd, list_cmd, join_cmd, bot_cmd = SCENARIOS["open seat"]
    host = lo.terminal(host_cmd)
    host.expect(r'Table "Friday" open on', timeout=30)
    listed = lo.run(list_cmd)
    assert listed.returncode == 0 and "open seats: ask" in listed.stdout, listed.stdout
    guest = Terminal([*lo.args(join_cmd), "--wait", "2"], lo.env)
    lo.opened.append(guest)
    guest.expect(r'found no playing table "Friday" with seat 2 open within 2 s', timeout=30)
    assert guest.wait(30) == 1, guest.tail()
    done = lo.run(bot_cmd, more=("--wait", "2"))
    assert done.returncode == 1, done.stderr
    assert 'found no playing table "Friday" with seat 2 open' in done.stderr, done.stderr
    lo.leave(host)


def test_over_a_vpn_with_a_fixed_port(lo: Loopback) -> None:
    host_cmd, join_cmd, bot_cmd = SCENARIOS["vpn"]
    host = lo.terminal(host_cmd)
    host.expect(rf"open on 127\.0\.0\.1:{lo.port}; waiting for 3 player\(s\)", timeout=30)
    guest = lo.terminal(join_cmd)
    guest.expect(r"Seated at", timeout=30)
    robo = lo.terminal(bot_cmd)
    robo.expect(r"Seated at", timeout=30)
    host.expect(r"Robo \[hard\] joined", timeout=30)
    lo.leave(guest, host)
    assert robo.wait(30) in (0, 1, 3)


def test_no_table_heard(lo: Loopback) -> None:
    listed = lo.run("hearts list")
    assert listed.returncode == 1
    assert listed.stdout.splitlines()[0] == "no tables heard on lo"


def test_settings(lo: Loopback, tmp_path: Path) -> None:
    for command in SCENARIOS["config"]:
        done = lo.run(command)
        assert done.returncode == 0, (command, done.stderr)
    saved = (tmp_path / "config" / "hearts-p2p" / "config.toml").read_text()
    assert 'interface = "eth0"' in saved and 'name = "Ada"' in saved
    assert "target" not in saved


def test_the_simulator(lo: Loopback) -> None:
    """Each example runs whole and finds the promise kept; the JSON one is one object. The
    runs the examples ask for are cut to a few seeds each (``--seeds`` given again), the
    commands as written."""
    few, as_json, colluders, trace, shrink = SCENARIOS["sim"]
    done = lo.run(few, timeout=240, more=("--seeds", "3"))
    assert done.returncode == 0, done.stderr
    assert re.search(r"^3 runs .*runs/s$", done.stdout, re.M), done.stdout
    assert "violations: 0" in done.stdout
    done = lo.run(as_json, timeout=240, more=("--seeds", "2"))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["violations"] == 0
    done = lo.run(colluders, timeout=240, more=("--seeds", "2"))
    assert done.returncode == 0 and "hostile seats: 3: 2" in done.stdout, done.stdout
    for command in (trace, shrink):
        done = lo.run(command, timeout=240)
        assert done.returncode == 0, done.stderr
        assert done.stdout.rstrip().endswith("the promise held"), done.stdout
