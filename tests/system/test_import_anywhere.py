"""Every module imports with the Unix-only standard modules gone, as on Windows.

The third-party packages are imported first, as they are: each handles Windows itself (trio
imports ``fcntl`` on Linux, ``msvcrt`` on Windows). Then ``fcntl``, ``resource``, ``termios``
and the rest are made unimportable, and every module of hearts_p2p is imported afresh.
"""

from __future__ import annotations

import subprocess
import sys

UNIX_ONLY = ("fcntl", "resource", "termios", "tty", "pty", "pwd", "grp", "syslog", "posix")

SCRIPT = f"""
import importlib, importlib.abc, pkgutil, sys
import cryptography.hazmat.primitives.asymmetric.ed25519, filelock, ifaddr, msgpack
import platformdirs.macos, platformdirs.unix, platformdirs.windows, trio

HIDDEN = {UNIX_ONLY!r}

class Hide(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in HIDDEN:
            raise ImportError(f"no module named {{name!r}} (hidden: Unix only)")
        return None

for name in [m for m in sys.modules if m.split(".")[0] in HIDDEN + ("hearts_p2p",)]:
    del sys.modules[name]
sys.meta_path.insert(0, Hide())
import hearts_p2p, hearts_p2p.cli
failed, names = [], []
for package in (hearts_p2p, hearts_p2p.cli):
    walk = pkgutil.walk_packages(package.__path__, package.__name__ + ".", failed.append)
    for info in walk:
        names.append(info.name)
        try:
            importlib.import_module(info.name)
        except ImportError as e:
            failed.append(f"{{info.name}}: {{e}}")
print(sorted(names))
print("\\n".join(failed) or "ok")
"""


def test_every_module_imports_without_the_unix_only_modules() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    names, verdict = done.stdout.split("\n", 1)
    assert verdict.strip() == "ok"
    for module in ("hearts_p2p.node.store", "hearts_p2p.cli.play", "hearts_p2p.netif"):
        assert module in names


def test_hiding_catches_a_module_that_needs_fcntl() -> None:
    """The check can fail: a module importing ``fcntl`` is named."""
    script = SCRIPT.replace("import hearts_p2p,", "import fcntl, hearts_p2p,", 1)
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert "hidden: Unix only" in done.stderr
