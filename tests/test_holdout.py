"""Regression guard on the held-out logs (bench/holdout): written apart from kb/examples."""
from __future__ import annotations

from pathlib import Path

from app.kbfiles import load_kb
from app.matching.index import MatchIndex
from app.matching.rank import match_text
from tests.conftest import KB, REPO

import pytest


@pytest.mark.parametrize("name", ["holdout", "holdout2"])
def test_holdout_precision_and_rejection(name):
    HOLDOUT = REPO / "bench" / name
    index = MatchIndex.build(load_kb(KB).entries)
    pos = hits = neg = rejected = 0
    for p in sorted(HOLDOUT.rglob("*.log")):
        parts = p.relative_to(HOLDOUT).parts
        res = match_text(index, Path(p).read_bytes().decode("utf-8", errors="replace"))
        if parts[0] == "negative":
            neg += 1
            rejected += not res["matches"]
        else:
            pos += 1
            hits += bool(res["matches"]) and res["matches"][0]["id"] == f"{parts[0]}/{parts[1]}"
    assert pos >= 84 and neg >= 15
    assert hits / pos >= 0.95, f"precision@1 {hits}/{pos}"
    assert rejected == neg, f"negatives rejected {rejected}/{neg}"
