"""``python -m strata ARGS``: the ``strata`` command-line tool shipped in the
package (docs/cli.md), with the same arguments and exit codes."""

import os
import sys


def executable() -> str:
    """The path of the ``strata`` executable inside the package."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "strata")


def main() -> None:
    exe = executable()
    if not os.access(exe, os.X_OK):
        sys.stderr.write(f"strata: the package has no executable at {exe}\n")
        sys.exit(1)
    os.execv(exe, [exe] + sys.argv[1:])


if __name__ == "__main__":
    main()
