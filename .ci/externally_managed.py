"""Make a python like Debian 12's own, in a folder: PEP 668's EXTERNALLY-MANAGED marker in its
standard library, pip installed beside it (so ``pip install`` is refused, not missing), and no
``ensurepip`` (Debian without python3-venv; tests/test_run_py.py builds one with it too).
Usage: python3 externally_managed.py DEST

Built from the python that runs this (a virtual environment's base): its binary copied, every
entry of its standard library linked, so no file outside DEST changes.
"""

from __future__ import annotations

import os
import shutil
import sys
import sysconfig
from pathlib import Path

MARKER = """[externally-managed]
Error=This python is managed by the system (simulated for hearts-p2p's CI): use a venv.
"""


def build(dest: Path, *, ensurepip: bool = False) -> Path:
    """The simulated python's executable, made under ``dest``."""
    base = {"base": sys.base_prefix, "installed_base": sys.base_prefix}
    stdlib = Path(sysconfig.get_path("stdlib", vars=base))
    purelib = Path(sysconfig.get_path("purelib", vars=base))
    lib = dest / "lib" / stdlib.name
    site = lib / "site-packages"
    site.mkdir(parents=True)
    left_out = {"site-packages", "EXTERNALLY-MANAGED"} | (set() if ensurepip else {"ensurepip"})
    for entry in stdlib.iterdir():
        if entry.name not in left_out:
            (lib / entry.name).symlink_to(entry)
    (lib / "EXTERNALLY-MANAGED").write_text(MARKER)
    for entry in purelib.iterdir():
        if entry.name == "pip" or entry.name.startswith("pip-"):
            (site / entry.name).symlink_to(entry)
    (dest / "bin").mkdir()
    python = dest / "bin" / "python3"
    shutil.copy2(os.path.realpath(sys._base_executable), python)
    (dest / "bin" / "python").symlink_to("python3")
    return python


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))
