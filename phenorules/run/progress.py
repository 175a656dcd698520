"""A progress bar for long runs: on a terminal only, so pipes and logs stay clean."""

from __future__ import annotations

import sys
import time
from typing import Iterable, Iterator, TypeVar

import click

Item = TypeVar("Item")


def progress(items: Iterable[Item], total: int, quiet: bool = False, unit: str = "articles") -> Iterator[Item]:
    """``items`` unchanged; on a terminal (stderr) also a bar with the count done and the rate."""
    if quiet or not sys.stderr.isatty():
        yield from items
        return
    started = time.monotonic()

    def rate(done: int | None) -> str:
        elapsed = time.monotonic() - started
        return f"{done / elapsed:.1f} {unit}/s" if done and elapsed > 0 else ""

    with click.progressbar(length=total, label=unit, file=sys.stderr, show_pos=True, show_eta=False, item_show_func=rate) as bar:
        for done, item in enumerate(items, start=1):
            bar.update(1, current_item=done)
            yield item


class StreamProgress:
    """Articles done, articles/s and an ETA for a streamed corpus, on a terminal only.

    The total number of articles is not known before the end, so the ETA comes from the
    share of the input's bytes done (``total_bytes``; None for standard input: no ETA).
    """

    INTERVAL_S = 0.5

    def __init__(self, total_bytes: int | None, quiet: bool = False, unit: str = "articles"):
        self.total = total_bytes
        self.shown = not quiet and sys.stderr.isatty()
        self.unit = unit
        self.started = self.last = time.monotonic()
        self.done = 0
        self.position = 0

    def update(self, articles: int, position: int) -> None:
        self.done += articles
        self.position = position
        now = time.monotonic()
        if self.shown and now - self.last >= self.INTERVAL_S:
            self.last = now
            self._show(now)

    def line(self, now: float) -> str:
        elapsed = now - self.started
        text = f"{self.done} {self.unit}"
        if elapsed > 0 and self.done:
            text += f"  {self.done / elapsed:.1f} {self.unit}/s"
        if self.total and self.position:
            share = min(self.position / self.total, 1.0)
            text += f"  {share:.0%}"
            if share < 1:
                text += f"  ETA {_clock(elapsed * (1 - share) / share)}"
        return text

    def _show(self, now: float) -> None:
        sys.stderr.write("\r" + self.line(now).ljust(60))
        sys.stderr.flush()

    def close(self) -> None:
        if self.shown:
            self._show(time.monotonic())
            sys.stderr.write("\n")
            sys.stderr.flush()


def _clock(seconds: float) -> str:
    minutes, second = divmod(int(seconds), 60)
    hour, minute = divmod(minutes, 60)
    return f"{hour}:{minute:02d}:{second:02d}"
