"""Which language a request gets: ?lang=, then the lang cookie, then Accept-Language
(negotiated with Babel), then English."""
from __future__ import annotations

from babel import Locale, UnknownLocaleError, negotiate_locale

SUPPORTED = ("en", "zh")
DEFAULT = "en"


class UnsupportedLanguage(ValueError):
    def __init__(self, value: str):
        self.value = value
        super().__init__(f"unsupported language {value!r}; supported: {', '.join(SUPPORTED)}")


def _base(tag: str) -> str | None:
    """'zh-Hans-CN' / 'zh_CN' / 'ZH' -> 'zh'; anything Babel cannot parse -> None."""
    tag = tag.strip().replace("_", "-")
    if not tag or tag == "*":
        return None
    try:
        loc = Locale.parse(tag, sep="-")
    except (ValueError, UnknownLocaleError, TypeError):
        return None
    return loc.language


def quality_list(header: str | None, limit: int = 32) -> list[tuple[str, float]]:
    """An HTTP header like 'a;q=0.5, b' as [(value, q)] in the order given (bad q-values count as 0)."""
    out: list[tuple[str, float]] = []
    for part in (header or "").split(",")[:limit]:
        bits = part.strip().split(";")
        value = bits[0].strip()
        q = 1.0
        for b in bits[1:]:
            b = b.strip()
            if b.startswith("q="):
                try:
                    q = float(b[2:])
                except ValueError:
                    q = 0.0
        if value:
            out.append((value, q))
    return out


def parse_accept_language(header: str | None) -> list[str]:
    """Language tags in order of preference (q-values honoured, q=0 dropped)."""
    items = [(-q, i, tag) for i, (tag, q) in enumerate(quality_list(header)) if q > 0]
    return [t for _, _, t in sorted(items)]


def explicit(lang: str | None) -> str | None:
    """Validate an explicit ?lang= value; raise UnsupportedLanguage when it is not served (an empty value too)."""
    if lang is None:
        return None
    base = _base(lang)
    if base in SUPPORTED:
        return base
    raise UnsupportedLanguage(lang)


def negotiate(query_lang: str | None, accept_language: str | None, cookie: str | None = None) -> str:
    chosen = explicit(query_lang)
    if chosen:
        return chosen
    if cookie and _base(cookie) in SUPPORTED:
        return _base(cookie)  # type: ignore[return-value]
    prefs = [b for b in (_base(t) for t in parse_accept_language(accept_language)) if b]
    return negotiate_locale(prefs, list(SUPPORTED)) or DEFAULT


def lang_headers(lang: str) -> dict[str, str]:
    """Headers of every response whose content depends on the negotiated language."""
    return {"Content-Language": lang, "Vary": "Accept, Accept-Language, Cookie"}
