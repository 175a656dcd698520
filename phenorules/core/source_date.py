"""``SOURCE_DATE_EPOCH`` (reproducible-builds.org): the one time an output may state, read
and checked without importing anything heavy, so that a command refuses a bad value before
any work (``serve`` before it listens)."""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone

from .errors import InputError

SOURCE_DATE_EPOCH = "SOURCE_DATE_EPOCH"
_LAST_SECOND = 253_402_300_799  # 9999-12-31T23:59:59Z: the last second a four-digit year writes


def source_date() -> datetime | None:
    """``SOURCE_DATE_EPOCH`` as a UTC time, None when unset or empty; refused, naming it,
    unless a whole number of seconds from 0 to the end of 9999."""
    epoch = os.environ.get(SOURCE_DATE_EPOCH)
    if not epoch:
        return None
    if not re.fullmatch(r"[0-9]{1,12}", epoch) or int(epoch) > _LAST_SECOND:
        shown = epoch if len(epoch) <= 40 else epoch[:40] + "..."
        raise InputError(f"{SOURCE_DATE_EPOCH}: {shown!r} is not a whole number of seconds from 0 to {_LAST_SECOND} (9999-12-31T23:59:59Z)")
    return datetime.fromtimestamp(int(epoch), timezone.utc)
