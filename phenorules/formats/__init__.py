"""Outputs other tools read: GA4GH Phenopackets, BioC (JSON and XML) and PubTator.

Adapters from prediction records (``tasks.patientphex.predict.full_record``) and the
articles they came from; the pipeline knows none of these formats. ``phenopackets`` and
``bioc`` come with the ``formats`` extra (``pip install 'phenorules[formats]'``).
"""

from __future__ import annotations

import importlib

from ..errors import PhenorulesError

EXTRA = "formats"


def require(module: str):
    """The module of an optional dependency, or a one-line error saying how to install it."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise PhenorulesError(f"this output needs the {module!r} package: pip install 'phenorules[{EXTRA}]'") from None
