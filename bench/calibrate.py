"""Fit the confidence calibration on held-out sets: `.venv/bin/python -m bench.calibrate [--sets holdout,holdout2]`.

Every confident match of every log is one example: its features (app/matching/rank.py
`calibration_features`: signature strength, explains the root, root is a cause, ranked first, role,
environment mismatch, indirect evidence) and whether it is the expected entry (a match on a negative
log never is).  A logistic regression with a small L2 penalty, fitted by Newton's method, gives the
weights; paste them into a new `RankConfig` (app/matching/config.py) with a new id.  The fit is
reported on the sets it was fitted on; report it on a set it never saw with `python -m bench.heldout`.
"""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import replace
from pathlib import Path

from faultline.kbfiles import load_kb
from faultline.matching.config import DEFAULT
from faultline.matching.index import MatchIndex
from faultline.matching.rank import calibration_features, match
from bench.heldout import REPO, load_logs, read_manifest

L2 = 1.0


def examples(sets: list[str], kb: Path) -> list[tuple[list[float], int]]:
    index = MatchIndex.build(load_kb(str(kb), lenient=True).entries)
    raw = replace(DEFAULT, calibration=())  # confidence = strength while collecting
    out = []
    for name in sets:
        base = REPO / "bench" / name
        for _rel, expected, text in load_logs(base, read_manifest(base)):
            res = match(index, text, cfg=raw)
            root_is_cause = bool(res.root_cause and res.root_cause.is_cause)
            for pos, m in enumerate(res.matches):
                out.append((calibration_features(m, pos, root_is_cause), int(m.entry_id == expected)))
    return out


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        if abs(m[c][c]) < 1e-12:
            continue
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] if abs(m[i][i]) > 1e-12 else 0.0 for i in range(n)]


def fit(data: list[tuple[list[float], int]], l2: float = L2, steps: int = 50) -> list[float]:
    k = len(data[0][0])
    w = [0.0] * k
    for _ in range(steps):
        grad = [l2 * w[j] if j else 0.0 for j in range(k)]
        hess = [[(l2 if i == j and i else 0.0) for j in range(k)] for i in range(k)]
        for x, y in data:
            z = max(-30.0, min(30.0, sum(a * b for a, b in zip(w, x))))
            p = 1 / (1 + math.exp(-z))
            for i in range(k):
                grad[i] += (p - y) * x[i]
                for j in range(k):
                    hess[i][j] += p * (1 - p) * x[i] * x[j]
        step = _solve(hess, grad)
        w = [a - b for a, b in zip(w, step)]
        if max(abs(s) for s in step) < 1e-8:
            break
    return w


def table(data: list[tuple[list[float], int]], w: list[float]) -> list[tuple[str, int, float, float]]:
    bins = (0.0, 0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1.0001)
    rows = []
    probs = [(1 / (1 + math.exp(-max(-30.0, min(30.0, sum(a * b for a, b in zip(w, x)))))), y) for x, y in data]
    for lo, hi in zip(bins, bins[1:]):
        b = [(p, y) for p, y in probs if lo <= p < hi]
        if b:
            rows.append((f"{lo:.2f}-{min(hi, 1.0):.2f}", len(b), sum(p for p, _ in b) / len(b), sum(y for _, y in b) / len(b)))
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.calibrate")
    ap.add_argument("--sets", default="holdout,holdout2")
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    args = ap.parse_args(argv)
    data = examples(args.sets.split(","), args.kb)
    w = fit(data)
    print(f"{len(data)} matches ({sum(y for _, y in data)} right) on {args.sets}")
    print("calibration = (" + ", ".join(f"{x:.3f}" for x in w) + ")")
    print("bin  n  mean-confidence  accuracy (on the fitting sets)")
    for name, n, p, acc in table(data, w):
        print(f"  {name}  {n:>4}  {p:.3f}  {acc:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
