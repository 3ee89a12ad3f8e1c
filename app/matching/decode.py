"""Pasted bytes to text: UTF-8 (with or without a BOM), UTF-16 with or without a BOM (PowerShell's
``>`` writes UTF-16LE), and text that was UTF-16 but already decoded byte by byte (NULs between
the characters)."""
from __future__ import annotations

import codecs
from dataclasses import dataclass


@dataclass(frozen=True)
class Decoded:
    text: str
    encoding: str  # utf-8 | utf-8-sig | utf-16-le | utf-16-be | utf-16 (BOM)


def _nul_share(data: bytes | str, parity: int, sample: int = 4096) -> float:
    part = data[parity:sample:2]
    if not part:
        return 0.0
    return part.count("\x00" if isinstance(part, str) else 0) / len(part)


def decode_paste(data: bytes) -> Decoded:
    """Decode a paste's bytes; invalid bytes become U+FFFD, never an error."""
    if data.startswith(codecs.BOM_UTF8):
        return Decoded(data[len(codecs.BOM_UTF8):].decode("utf-8", errors="replace"), "utf-8-sig")
    # a UTF-16 BOM, and a body that looks like it (logs are mostly ASCII: every other byte NUL); bytes that merely
    # start with FF FE and go on as 8-bit text are not UTF-16
    if data.startswith(codecs.BOM_UTF16_LE) and _nul_share(data[2:], 1) > 0.3:
        return Decoded(data[2: 2 + (len(data) - 2) // 2 * 2].decode("utf-16-le", errors="replace"), "utf-16")
    if data.startswith(codecs.BOM_UTF16_BE) and _nul_share(data[2:], 0) > 0.3:
        return Decoded(data[2: 2 + (len(data) - 2) // 2 * 2].decode("utf-16-be", errors="replace"), "utf-16")
    if len(data) >= 4:
        # ASCII text in UTF-16 without a BOM: every other byte is NUL
        if _nul_share(data, 1) > 0.6 and _nul_share(data, 0) < 0.1:
            return Decoded(data[: len(data) // 2 * 2].decode("utf-16-le", errors="replace"), "utf-16-le")
        if _nul_share(data, 0) > 0.6 and _nul_share(data, 1) < 0.1:
            return Decoded(data[: len(data) // 2 * 2].decode("utf-16-be", errors="replace"), "utf-16-be")
    return Decoded(data.decode("utf-8", errors="replace"), "utf-8")


def repair_text(text: str) -> tuple[str, str | None]:
    """Text that was UTF-16 but reached us decoded as if it were 8-bit ("T\\x00r\\x00a\\x00..."):
    the NULs are dropped (and a decoded BOM with them). Returns (text, what was repaired or None)."""
    if "\x00" not in text[:4096]:
        return text, None
    start = 0
    for bom in ("\ufffd\ufffd", "\xff\xfe", "\xfe\xff", "\ufeff"):
        if text.startswith(bom):
            start = len(bom)
            break
    body = text[start:]
    for parity, name in ((1, "utf-16-le"), (0, "utf-16-be")):
        if _nul_share(body, parity) > 0.6 and _nul_share(body, 1 - parity) < 0.1:
            return body.replace("\x00", ""), name
    return text, None
