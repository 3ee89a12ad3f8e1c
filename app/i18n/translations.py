"""Gettext catalogs of the web pages and locale-aware formatting.

The catalogs live in ``app/i18n/locales/<lang>/LC_MESSAGES/messages.po``; ``make i18n-compile``
(``pybabel compile -d app/i18n/locales``, run by ``make setup``) turns them into ``.mo`` files,
which are not committed.  When a ``.mo`` file is missing or older than its ``.po`` file (a fresh
clone, or a catalog edited without recompiling), the ``.po`` file is compiled in memory instead,
so the pages are never shown untranslated by accident.
"""
from __future__ import annotations

import datetime as _dt
import io
import logging
import threading
from pathlib import Path
from typing import Callable

from babel.dates import format_date as _format_date
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.numbers import format_decimal as _format_decimal
from babel.numbers import format_percent as _format_percent
from babel.support import NullTranslations, Translations

from faultline.i18n.negotiate import DEFAULT, SUPPORTED

log = logging.getLogger("faultline")

LOCALES_DIR = Path(__file__).resolve().parent / "locales"
DOMAIN = "messages"
# The BCP 47 tag of each served language, for <html lang>, hreflang and Content-Language.
HTML_LANG = {"en": "en", "zh": "zh-Hans"}
# The Babel locale used to format dates and numbers.
BABEL_LOCALE = {"en": "en_US", "zh": "zh_Hans_CN"}
# Each language's name in that language (the language switch shows these).
NATIVE_NAME = {"en": "English", "zh": "中文"}

_cache: dict[str, NullTranslations] = {}
_lock = threading.Lock()


def _norm(lang: str) -> str:
    return lang if lang in SUPPORTED else DEFAULT


def _load(lang: str) -> NullTranslations:
    folder = LOCALES_DIR / lang / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if mo.is_file() and (not po.is_file() or mo.stat().st_mtime >= po.stat().st_mtime):
        with mo.open("rb") as fp:
            return Translations(fp, domain=DOMAIN)
    if po.is_file():
        log.info("%s is missing or stale: compiling %s in memory (run `make i18n-compile`)", mo, po)
        with po.open("rb") as fp:
            catalog = read_po(fp, locale=lang, domain=DOMAIN)
        buf = io.BytesIO()
        write_mo(buf, catalog, use_fuzzy=False)
        buf.seek(0)
        return Translations(buf, domain=DOMAIN)
    if lang != DEFAULT:
        log.warning("no catalog for %r under %s; showing the English texts", lang, LOCALES_DIR)
    return NullTranslations()


def translations(lang: str) -> NullTranslations:
    """The (cached) catalog of ``lang``; English texts for anything untranslated."""
    lang = _norm(lang)
    t = _cache.get(lang)
    if t is None:
        with _lock:
            t = _cache.get(lang)
            if t is None:
                t = _cache[lang] = _load(lang)
    return t


def clear_cache() -> None:
    """Forget loaded catalogs (after recompiling them in a running process)."""
    with _lock:
        _cache.clear()


def gettext_for(lang: str) -> Callable[..., str]:
    """A ``_`` for Python code: ``_("Text %(n)s", n=1)`` translates, then %-formats keyword arguments."""
    t = translations(lang)

    def _(message: str, **kw) -> str:
        text = t.gettext(message)
        return text % kw if kw else text

    return _


def format_date(value: _dt.date | str | None, lang: str, fmt: str = "long") -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        value = _dt.date.fromisoformat(value)
    return _format_date(value, format=fmt, locale=BABEL_LOCALE[_norm(lang)])


def format_percent(value: float | None, lang: str) -> str:
    if value is None:
        return ""
    return _format_percent(value, locale=BABEL_LOCALE[_norm(lang)])


def format_number(value: float | int | None, lang: str) -> str:
    if value is None:
        return ""
    return _format_decimal(value, locale=BABEL_LOCALE[_norm(lang)])
