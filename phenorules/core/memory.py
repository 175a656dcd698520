"""What the knowledge base's cache asks of the C library's allocator (glibc's malloc):
freed memory handed back, and large blocks fresh from the system. Elsewhere (another C
library) nothing is done."""

from __future__ import annotations

import ctypes
import ctypes.util

MEGABYTE = 1 << 20
M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter: blocks of this size or more are mapped afresh


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def return_free_memory() -> None:
    """Hand the memory a load freed (the inflated sections, about 150 MB) back to the
    system: glibc keeps freed blocks for the process otherwise, and the pages stay in its
    resident set."""
    try:
        _libc().malloc_trim(0)
    except (OSError, AttributeError):
        pass


def large_blocks_from_the_system() -> None:
    """From now on this process takes every block of a megabyte or more fresh from the
    system, whose pages are zero; glibc would otherwise reuse freed memory for blocks below
    a threshold that grows as large blocks are freed. For a process of its own (the cache's
    store): pyahocorasick writes an automaton's nodes into blocks of 16 MB and leaves the
    bytes between their fields unwritten, which a reused block fills with whatever the
    build left there, so the cache file's bytes would differ from build to build."""
    try:
        _libc().mallopt(M_MMAP_THRESHOLD, MEGABYTE)
    except (OSError, AttributeError):
        pass
