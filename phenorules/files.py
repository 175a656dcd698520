"""Reading inputs and writing outputs, with the one-line errors the CLI prints.

Outputs are written atomically (to a temporary file beside the target, renamed at the
end), so a failed run never leaves a half-written file; ``check_writable`` lets a long run
fail at its start rather than after the work is done.
"""

from __future__ import annotations

import os
import sys
import tempfile
from typing import Iterable

from .errors import InputError

STDIN = "-"


def read_bytes(path: str) -> bytes:
    """The whole file, or standard input for ``-``."""
    if path == STDIN:
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a file") from None
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror}") from None


def read_text(path: str) -> str:
    """The whole file as UTF-8 text (standard input for ``-``)."""
    try:
        return read_bytes(path).decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(f"{path}: not UTF-8 text") from None


def check_writable(path: str, what: str) -> None:
    """Fail now, naming ``path``, if ``what`` could not be written there later."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise InputError(f"{path}: cannot write {what}: is a directory")
    if not os.path.isdir(directory):
        raise InputError(f"{path}: cannot write {what}: no such directory {directory}")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise InputError(f"{path}: cannot write {what}: directory {directory} is not writable")


def write_atomically(path: str, chunks: Iterable[str], what: str) -> None:
    """Write to a temporary file beside ``path`` and rename it over ``path`` at the end."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        handle, temporary = tempfile.mkstemp(dir=directory, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    except OSError as error:
        raise InputError(f"{path}: cannot write {what}: {error.strerror}") from None
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
            out.writelines(chunks)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; outputs are meant to be shared
        os.replace(temporary, path)
    except OSError as error:
        raise InputError(f"{path}: cannot write {what}: {error.strerror}") from None
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)
