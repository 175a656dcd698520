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
