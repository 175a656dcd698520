"""spaCy's command-line modules, imported when first used, in the ``phenorules`` command.

``spacy/__init__.py`` imports ``spacy.cli.info`` for ``spacy.info``, and with it every spaCy
command and what they import (typer, weasel, httpx, requests, jinja2, rich): 0.2 s of each
start of a command that runs none of them. spaCy loaded them lazily once and reverted it, as
``spacy.cli`` was then not found (explosion/spaCy#12962); #13721 and #13933 would do it
again. Until spaCy does, the command puts a stand-in in ``spacy.cli.info``'s place before
spaCy is imported: its ``info`` imports the real module when it is called, as does asking it
for any other name. A finder takes the stand-in away as soon as anything imports
``spacy.cli``, which then loads as it always does, its ``info`` command included. A library
user's process is left as it is.
"""

from __future__ import annotations

import importlib
import sys
import types

_INFO = "spacy.cli.info"


class _InfoStandIn(types.ModuleType):
    """``spacy.cli.info`` until the real module is imported."""

    def __getattr__(self, name: str):
        if name.startswith("__"):  # what the import system asks of any module (__path__)
            raise AttributeError(name)
        return getattr(_real_info(), name)


def _real_info() -> types.ModuleType:
    if isinstance(sys.modules.get(_INFO), _InfoStandIn):
        del sys.modules[_INFO]
    return importlib.import_module(_INFO)


def _info(*args, **kwargs):
    """``spacy.info``: spaCy's, imported when called."""
    return _real_info().info(*args, **kwargs)


class _RealCommandsFirst:
    """Takes the stand-in away when ``spacy.cli`` is imported, so that its ``from .info
    import info`` imports the real module; finds nothing itself (a finder of
    ``sys.meta_path``, which needs only this method; importlib.abc would take longer to
    import than the rest of this module)."""

    def find_spec(self, fullname, path, target=None):
        if fullname == "spacy.cli" and isinstance(sys.modules.get(_INFO), _InfoStandIn):
            del sys.modules[_INFO]
        return None


def defer_spacy_commands() -> None:
    """Put the stand-in in place, unless spaCy is imported already."""
    if "spacy" in sys.modules or _INFO in sys.modules:
        return
    stand_in = _InfoStandIn(_INFO, "spacy.cli.info, imported when first used (phenorules.core.spacy_cli)")
    stand_in.info = _info
    sys.modules[_INFO] = stand_in
    sys.meta_path.insert(0, _RealCommandsFirst())
