"""Errors a user can act on: one line that names the place, never a traceback."""


class PhenorulesError(Exception):
    """Base class; the CLI prints ``str(error)`` on one line and exits non-zero."""


class InputError(PhenorulesError):
    """Malformed or inconsistent input: says which file, line, article and field."""


class OntologyError(PhenorulesError):
    """An ontology file that cannot be read as OBO, or an id that it does not know."""
