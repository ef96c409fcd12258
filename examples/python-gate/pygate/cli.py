"""What every step shares: argument errors, clean deaths on SIGTERM/SIGINT, one-line failures."""

import argparse
import os
import signal
import sys
from collections.abc import Callable

# Run on SIGTERM/SIGINT before the process dies (stop a loader process, drop a half-written file).
_cleanups: list[Callable[[], None]] = []


class StackError(Exception):
    """Bad arguments or inputs: exit 2 with one line on stderr."""


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise StackError(f"{self.prog}: {message}")


def on_signal(cleanup: Callable[[], None]) -> None:
    """Run `cleanup` if the step is stopped by a signal."""
    _cleanups.append(cleanup)


def _die(signum: int, _frame: object) -> None:
    # Clean up, then die of the same signal, so the loop records the exit as minus its number
    # (as Python's Popen reports it) rather than as an ordinary failure.
    for cleanup in reversed(_cleanups):
        try:
            cleanup()
        except Exception:  # noqa: BLE001 - dying anyway; the next cleanup still runs
            pass
    print(f"stopped by {signal.Signals(signum).name}", file=sys.stderr, flush=True)
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def main(step: Callable[[list[str]], int]) -> None:
    """Run one step: its exit code, 2 for a StackError, the signal's death on SIGTERM/SIGINT."""
    signal.signal(signal.SIGTERM, _die)
    signal.signal(signal.SIGINT, _die)
    try:
        code = step(sys.argv[1:])
    except StackError as error:
        print(str(error), file=sys.stderr, flush=True)
        code = 2
    sys.stdout.flush()
    sys.exit(code)
