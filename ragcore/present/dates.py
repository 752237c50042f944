"""Dates as people read them: "today 14:05", "yesterday 09:12", "3 Nov", "3 Nov 2025".

The workspace stores ISO-8601 UTC timestamps (sortable, unambiguous); lists and captions show
them in the machine's local time, relative to now, without seconds or time zone offsets.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone


def parse_iso(value: str) -> datetime | None:
    """An aware datetime from an ISO-8601 string (naive ones are taken as UTC); None if bad."""
    try:
        moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def friendly_date(value: str, *, now: datetime | None = None) -> str:
    """``value`` (ISO-8601) as "today 14:05", "yesterday 09:12", "3 Nov" or "3 Nov 2025"."""
    moment = parse_iso(value)
    if moment is None:
        return str(value or "")
    now = (now or datetime.now(timezone.utc)).astimezone()
    local = moment.astimezone(now.tzinfo)
    if local.date() == now.date():
        return f"today {local:%H:%M}"
    if local.date() == (now - timedelta(days=1)).date():
        return f"yesterday {local:%H:%M}"
    if local.year == now.year:
        return f"{local.day} {local:%b}"
    return f"{local.day} {local:%b %Y}"
