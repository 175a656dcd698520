"""Work spread over processes forked from this one, for the lexicon build and its cache.

A forked process inherits this one's memory, so a build's large inputs (the variant rules'
word lists, a lexicon of 400,000 keys) reach it without being pickled; only results come
back. Forking is safe only from a process with one thread that is not itself a pool's
daemon worker, and only Linux's ``fork`` is trusted with the libraries loaded here; where
:func:`forked_pool` gives no pool, the caller does the work in this process.
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable

_INHERITED: Any = None  # what the pool's workers read (see inherited)
_BACKGROUND: list[int] = []  # processes of in_background still to be waited for


def available_cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def can_fork() -> bool:
    """Linux, a process with one thread, and not a daemon (which may not have children)."""
    return (
        sys.platform == "linux"
        and "fork" in multiprocessing.get_all_start_methods()
        and threading.active_count() == 1
        and not multiprocessing.current_process().daemon
    )


def forked_pool(processes: int, shared: Any) -> ProcessPoolExecutor | None:
    """A pool of ``processes`` forked workers that read ``shared`` with :func:`inherited`,
    or None when forking is unsafe here."""
    if not can_fork():
        return None
    return ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"), initializer=_inherit, initargs=(shared,))


def inherited() -> Any:
    """In a worker of :func:`forked_pool`, the ``shared`` it was forked with."""
    return _INHERITED


def _inherit(shared: Any) -> None:
    global _INHERITED
    _INHERITED = shared


def in_background(work: Callable[[], None]) -> bool:
    """Run ``work`` in a forked process and return at once (False, having done nothing,
    where forking is unsafe). The process ends without running this one's exit handlers
    or flushing its buffers; this one waits for it before it exits itself
    (:func:`wait_for_background`), so work begun is never cut short by a quick command."""
    if not can_fork():
        return False
    _reap(os.WNOHANG)
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            work()
            code = 0
        finally:
            os._exit(code)
    _BACKGROUND.append(pid)
    return True


def wait_for_background() -> None:
    """Wait for the processes :func:`in_background` started; an interrupt stops the
    waiting (they received it too)."""
    try:
        _reap(0)
    except KeyboardInterrupt:
        pass


def _reap(options: int) -> None:
    for pid in list(_BACKGROUND):
        try:
            done, _ = os.waitpid(pid, options)
        except ChildProcessError:
            done = pid
        if done:
            _BACKGROUND.remove(pid)


atexit.register(wait_for_background)
