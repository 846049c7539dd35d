"""Progress bars (tqdm) that a person sees in the terminal and rendered book pages never show.

- ``XALIGN_PROGRESS=0`` switches bars off;
- ``XALIGN_PROGRESS_LOG=<file>`` sends them to that file instead of the cell output. The
  runner sets it while papermill executes a chapter and echoes the file to the terminal
  (:class:`ProgressEcho`), so ``xalign run`` / ``make book`` show what is being encoded, how
  many of how many and the ETA, while the executed notebook stays free of bar debris.
"""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path

from tqdm import tqdm

LOG_VARIABLE = "XALIGN_PROGRESS_LOG"
_LOG_STREAM = None


def enabled() -> bool:
    """Progress is wanted somewhere (the cell output or the progress log)."""
    return os.environ.get("XALIGN_PROGRESS", "1") not in ("0", "false", "no")


def inline() -> bool:
    """Bars that cannot be redirected (other libraries' own) may print into the output."""
    return enabled() and not os.environ.get(LOG_VARIABLE)


def _log_stream():
    global _LOG_STREAM
    path = os.environ.get(LOG_VARIABLE)
    if not path:
        return None
    if _LOG_STREAM is None or _LOG_STREAM.name != path:
        _LOG_STREAM = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 - lives for the process
    return _LOG_STREAM


def bar(iterable=None, **kwargs):
    """``tqdm(iterable, **kwargs)``: to the progress log when one is set, off when progress is off."""
    stream = _log_stream()
    if stream is not None and not kwargs.get("disable", False):
        kwargs.update(file=stream, ascii=True, mininterval=kwargs.get("mininterval", 2.0), dynamic_ncols=False,
                      ncols=100)
    else:
        kwargs["disable"] = kwargs.get("disable", False) or not enabled()
    return tqdm(iterable, **kwargs)


class ProgressEcho:
    """Echo the latest line of a progress log to a terminal stream while a chapter runs.

    Use as a context manager; the log file is created (empty) on entry and removed on exit.
    """

    def __init__(self, path: str | Path, prefix: str = "", out=None, every: float = 2.0):
        self.path, self.prefix, self.out, self.every = Path(path), prefix, out or sys.stderr, every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self.lines: list[str] = []

    def __enter__(self):
        self.path.write_text("")
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)
        self._echo_new()
        self.path.unlink(missing_ok=True)

    def _run(self):
        while not self._stop.wait(self.every):
            self._echo_new()

    _pos = 0
    _last = ""

    def _echo_new(self):
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                fh.seek(self._pos)
                chunk = fh.read()
                self._pos = fh.tell()
        except FileNotFoundError:
            return
        pieces = [p.strip() for p in chunk.replace("\r", "\n").split("\n") if p.strip()]
        if pieces and pieces[-1] != self._last:
            self._last = pieces[-1]
            self.lines.append(self._last)
            print(f"{self.prefix}{self._last}", file=self.out, flush=True)


#: the longest a long step may stay silent (seconds): a heartbeat prints at least this often
HEARTBEAT_SECONDS = 30.0


def say(line: str) -> None:
    print(line, flush=True)  # a pipe or a log file sees the line now, not when the buffer fills


class Heartbeat:
    """Say that a long step is still running, every ``every`` seconds, until it ends.

    For a step that prints nothing of its own for minutes (a card's BLI step, a model's first load): a
    background thread calls ``log(f"{label}: still running, N s")`` every ``every`` seconds. Use as a
    context manager around the step.

    Args:
        label: what is running, as the line starts ("[card] e5-small: bli").
        log: where the lines go (default: stdout, flushed at once; any callable taking one string).
        every: seconds between lines, in (0, :data:`HEARTBEAT_SECONDS`] (default: HEARTBEAT_SECONDS).

    Raises:
        ValueError: ``every`` outside (0, HEARTBEAT_SECONDS].
    """

    def __init__(self, label: str, log=None, every: float | None = None):
        every = HEARTBEAT_SECONDS if every is None else every
        if not isinstance(every, (int, float)) or isinstance(every, bool) or not 0 < every <= HEARTBEAT_SECONDS:
            raise ValueError(f"Heartbeat: every must be in (0, {HEARTBEAT_SECONDS:g}] seconds, not {every!r}")
        self.label, self.log, self.every = label, log or say, float(every)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._started = 0.0

    def __enter__(self):
        import time

        self._started = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=5)

    def _run(self):
        import time

        while not self._stop.wait(self.every):
            self.log(f"{self.label}: still running, {time.monotonic() - self._started:.0f} s")
