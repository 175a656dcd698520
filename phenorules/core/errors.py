"""Errors a user can act on: one line that names the place, never a traceback."""

import sys

# Control characters and line or paragraph separators: in a message (an article id, a
# file name as read) they would break its one line, or drive the terminal.
_UNPRINTED = {code: ascii(chr(code))[1:-1] for code in [*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]}


class PhenorulesError(Exception):
    """Base class; the CLI prints ``str(error)`` on one line and exits non-zero."""


class InputError(PhenorulesError):
    """Malformed or inconsistent input: says which file, line, article and field."""


class SettingError(PhenorulesError, ValueError):
    """A setting that names nothing there is (an unknown stage, too many folds); also a
    ValueError, as spaCy's config validation and library callers expect."""


class OntologyError(PhenorulesError):
    """An ontology file that cannot be read as OBO, or an id that it does not know."""


def one_line(message: str) -> str:
    """``message`` with its control characters and line separators escaped as Python
    writes them (``\\n``, ``\\x00``, ``\\u2028``): what it quotes cannot break it into lines."""
    return message.translate(_UNPRINTED)


def describe(error: BaseException) -> str:
    """An exception raised by code not ours (a plugin) as one line: its type and message."""
    return one_line(f"{type(error).__name__}: {error}" if str(error) else type(error).__name__)


def warn(message: str) -> None:
    """A problem the run goes on past (an article skipped, an odd gold identifier): one
    line on stderr."""
    if sys.stderr is not None:
        print(f"phenorules: warning: {one_line(message)}", file=sys.stderr, flush=True)


ON_ERROR = ("fail", "skip")  # a bad article stops the run, or is left out with a warning
