"""The formats other tools read and write: plain text, BioC (JSON and XML) and PubTator,
each registered in :mod:`phenorules.formats.registry`, and GA4GH Phenopackets.

Writers read :class:`~phenorules.core.annotated.AnnotatedArticle` results; the pipeline knows
none of these formats. ``phenopackets`` and ``bioc`` come with the ``formats`` extra
(``pip install 'phenorules[formats]'``).
"""

from __future__ import annotations

import importlib

from ..core.errors import PhenorulesError

EXTRA = "formats"


def require(module: str):
    """The module of an optional dependency, or a one-line error saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise PhenorulesError(f"this output needs the {module!r} package: pip install 'phenorules[{EXTRA}]'") from None
