"""Errors a user can act on: one line that names the place, never a traceback."""

import sys


class PhenorulesError(Exception):
    """Base class; the CLI prints ``str(error)`` on one line and exits non-zero."""


class InputError(PhenorulesError):
    """Malformed or inconsistent input: says which file, line, article and field."""


class SettingError(PhenorulesError, ValueError):
    """A setting that names nothing there is (an unknown stage, too many folds); also a
    ValueError, as spaCy's config validation and library callers expect."""


class OntologyError(PhenorulesError):
    """An ontology file that cannot be read as OBO, or an id that it does not know."""


def warn(message: str) -> None:
    """A problem the run goes on past (an article skipped, an odd gold identifier): one
    line on stderr."""
    if sys.stderr is not None:
        print(f"phenorules: warning: {message}", file=sys.stderr, flush=True)


ON_ERROR = ("fail", "skip")  # a bad article stops the run, or is left out with a warning
