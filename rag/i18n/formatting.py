"""Numbers, durations and dates written the way the active language writes them (CLDR data, via babel):
`1,234.5` / `1,234.5`, `119 ms` / `119毫秒`, `Dec 3, 2026, 1:05 PM` / `2026年12月3日 13:05`."""
from __future__ import annotations

import datetime as _dt

from rag.i18n import current_language
from rag.i18n.catalog import BABEL_LOCALE


def _locale() -> str:
    return BABEL_LOCALE.get(current_language(), "en")


def number(value: float | int, digits: int = 0) -> str:
    """`value` with the language's grouping and decimal signs, `digits` decimals at most."""
    from babel.numbers import format_decimal

    pattern = "#,##0" + ("." + "#" * digits if digits > 0 else "")
    return format_decimal(value, format=pattern, locale=_locale())


def percent(ratio: float, digits: int = 0) -> str:
    from babel.numbers import format_percent

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    return format_percent(ratio, format=pattern, locale=_locale())


def duration_ms(ms: float | int) -> str:
    """A duration given in milliseconds: milliseconds under a second, seconds with one decimal under a
    minute, then minutes and seconds."""
    from babel.units import format_unit

    locale = _locale()
    ms = float(ms or 0)
    if ms < 1000:
        return format_unit(round(ms), "duration-millisecond", length="short", locale=locale)
    if ms < 60_000:
        return format_unit(round(ms / 1000, 1), "duration-second", length="short", locale=locale,
                           format="#,##0.#")
    minutes, seconds = divmod(round(ms / 1000), 60)
    return " ".join([format_unit(minutes, "duration-minute", length="short", locale=locale),
                     format_unit(seconds, "duration-second", length="short", locale=locale)])


def date_time(value: _dt.datetime | float | int | str | None, *, with_seconds: bool = False) -> str:
    """A moment (datetime, epoch seconds or ISO text) in the language's medium date and time format,
    in the server's local time zone; "" when there is none."""
    from babel.dates import format_datetime

    if value in (None, ""):
        return ""
    if isinstance(value, (int, float)):
        moment = _dt.datetime.fromtimestamp(value)
    elif isinstance(value, str):
        try:
            moment = _dt.datetime.fromisoformat(value)
        except ValueError:
            return value
    else:
        moment = value
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return format_datetime(moment, format="medium" if with_seconds else _short_pattern(), locale=_locale())


def _short_pattern() -> str:
    return "yyyy-MM-dd HH:mm" if current_language() == "en" else "yyyy年M月d日 HH:mm"


def clock(value: float | int) -> str:
    """A time of day (epoch seconds) as `HH:MM:SS`, the same in both languages."""
    return _dt.datetime.fromtimestamp(value).strftime("%H:%M:%S")


__all__ = ["clock", "date_time", "duration_ms", "number", "percent"]
