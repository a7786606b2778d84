"""The ``hearts`` program's first module, kept bare: Ctrl-C at any moment, even while the rest
loads (most of the first half second), ends it with one line and 130, not a traceback; a
reader that stops reading (``hearts --help | head -1``) ends it quietly; and ``--version``,
``--help`` and a bare ``hearts`` are answered without loading the rest at all."""

from __future__ import annotations

import os
import sys


def main() -> int:
    try:
        if sys.argv[1:] == ["--version"]:  # asked often, by scripts too: answered at once
            from .version import installed_version

            sys.stdout.write(f"hearts {installed_version()}\n")
            return 0
        from .overview import overview

        if (text := overview(sys.argv[1:])) is not None:  # the commands, without loading them
            sys.stdout.write(text)
            return 0
        from .main import main as run

        return run()
    except KeyboardInterrupt:
        sys.stderr.write("\ninterrupted\n")
        return 130
    except BrokenPipeError:
        # Python would report the pipe again as it flushes stdout on the way out.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
