"""Helpers for the blind held-out set (written without reading kb/examples or the entries' signatures)."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOGS: dict[str, dict] = {}


def E(s: str) -> str:
    """Turn the literal text '\\x1b' into a real ESC (so raw strings can carry ANSI codes)."""
    return s.replace("\\x1b", "\x1b")


def label(text: str, p: str) -> str:
    return "\n".join(p + ln for ln in text.strip("\n").splitlines())


def wrap80(text: str, width: int = 80) -> str:
    out = []
    for ln in text.splitlines():
        if not ln:
            out.append(ln)
            continue
        out.extend(ln[i:i + width] for i in range(0, len(ln), width))
    return "\n".join(out)


def dedent(s: str) -> str:
    return textwrap.dedent(s).strip("\n") + "\n"


def add(path: str, text: str, *, expect: str | None, root_rank: int | None = None,
        crlf: bool = False, features: list[str] | None = None, note: str = "", tier: str = "core") -> None:
    """path: '<domain>/<slug>/<name>.log' or 'negative/<name>.log'."""
    if crlf:
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    LOGS[path] = {"text": text, "expect": expect, "root_rank": root_rank,
                  "features": features or [], "note": note, "tier": tier}


def write_all() -> None:
    manifest = {}
    for path, d in sorted(LOGS.items()):
        p = HERE / path
        p.parent.mkdir(parents=True, exist_ok=True)
        with open(p, "w", encoding="utf-8", newline="") as f:
            f.write(d["text"])
        manifest[path] = {k: v for k, v in d.items() if k != "text"}
    (HERE / "manifest.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(LOGS)} logs")
