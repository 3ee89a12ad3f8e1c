"""Evaluate the matcher on the blind held-out set: `.venv/bin/python -m bench.holdout_eval [-v] [--json OUT]`.

Held-out logs live in bench/holdout/<domain>/<slug>/<name>.log (expected id = "<domain>/<slug>") and
bench/holdout/negative/*.log (must give "matches": []). bench/holdout/manifest.json optionally gives, per
log, the rank that failed first (root_rank) and the format features it exercises. For a multi-rank log
the expected id is the entry of the CAUSE (the rank that failed first), not of the symptoms.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.kbfiles import load_kb
from app.matching.index import MatchIndex
from app.render.match import match_text

REPO = Path(__file__).resolve().parent.parent
HOLDOUT = REPO / "bench" / "holdout"


def load_logs(base: Path = HOLDOUT, manifest: dict | None = None) -> list[tuple[str, str | None, str]]:
    """(relative path, expected id or None for a negative, text) for every log of a held-out set.

    The expected id comes from ``manifest`` when it lists the log, else from the path <domain>/<slug>/.
    """
    out = []
    for p in sorted(base.rglob("*.log")):
        rel = p.relative_to(base).as_posix()
        parts = rel.split("/")
        if manifest and "expected" in manifest.get(rel, {}):
            expected = manifest[rel]["expected"]
        else:
            expected = None if parts[0] == "negative" else f"{parts[0]}/{parts[1]}"
        # read bytes as-is: keep CRLF, ANSI escapes etc. exactly as a user would paste them
        text = p.read_bytes().decode("utf-8", errors="replace")
        out.append((rel, expected, text))
    return out


def short(s: str | None, n: int = 90) -> str:
    if s is None:
        return "-"
    s = s.replace("\x1b", "\\e").replace("\r", "\\r")
    return s if len(s) <= n else s[: n - 1] + "…"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-v", "--verbose", action="store_true", help="also print every match id and the matched line")
    ap.add_argument("--json", help="write per-log results to this file")
    args = ap.parse_args(argv)

    kb = load_kb(str(REPO / "kb"), lenient=True)
    index = MatchIndex.build(kb.entries)
    known = {e.id for e in kb.entries}
    manifest = {}
    mpath = HOLDOUT / "manifest.json"
    if mpath.exists():
        manifest = json.loads(mpath.read_text())

    rows = []
    for rel, expected, text in load_logs():
        res = match_text(index, text, limit=50)
        ids = [m["id"] for m in res["matches"]]
        top = res["matches"][0] if res["matches"] else None
        rc = res.get("root_cause") or {}
        meta = manifest.get(rel, {})
        rank = (ids.index(expected) + 1) if expected in ids else None
        row = {
            "log": rel,
            "expected": expected,
            "expected_in_kb": expected in known if expected else None,
            "top": top["id"] if top else None,
            "confidence": top["confidence"] if top else None,
            "matched_signature": top["matched"]["signature"] if top else None,
            "matched_line": top["matched"]["line"] if top else None,
            "all_matches": [(m["id"], m["confidence"], m["matched"]["signature"]) for m in res["matches"]],
            "related": [(r["id"], r["score"], r["why"]) for r in res["related"]],
            "rank_of_expected": rank,
            "root_cause": {"rank": rc.get("rank"), "entry": rc.get("entry"), "line": rc.get("line")} if rc else None,
            "expected_root_rank": meta.get("root_rank"),
            "log_ranks": res["log"]["ranks"],
            "features": meta.get("features", []),
            "tier": meta.get("tier", "core"),
        }
        if expected is None:
            row["ok"] = not res["matches"]
        else:
            row["ok"] = row["top"] == expected
        if meta.get("root_rank") is not None:
            row["root_rank_ok"] = rc.get("rank") == meta["root_rank"]
        rows.append(row)

    print(f"{'':2} {'log':<86} {'expected':<44} {'top':<44} {'conf':>5}  root_cause")
    for r in rows:
        mark = "ok" if r["ok"] else "XX"
        rc = r["root_cause"]
        rc_s = "-" if not rc else f"rank={rc['rank']} entry={rc['entry']} line={short(rc['line'], 70)!r}"
        conf = f"{r['confidence']:.2f}" if r["confidence"] is not None else "  -  "
        print(f"{mark:2} {r['log']:<86} {str(r['expected'] or '(negative)'):<44} {str(r['top'] or '[]'):<44} {conf:>5}  {rc_s}")
        if args.verbose or not r["ok"]:
            if r["all_matches"]:
                print(f"{'':5}matches: " + ", ".join(f"{i}({c:.2f}, sig={s})" for i, c, s in r["all_matches"]))
                print(f"{'':5}top matched line: {short(r['matched_line'], 150)!r}")
            if r["related"]:
                print(f"{'':5}related: " + ", ".join(f"{i}({(s or 0):.2f} {w})" for i, s, w in r["related"]))
            if r["expected"] and not r["expected_in_kb"]:
                print(f"{'':5}NOTE: expected id is not in the KB")
        if "root_rank_ok" in r and not r["root_rank_ok"]:
            print(f"{'':5}root rank: expected {r['expected_root_rank']}, got {rc['rank'] if rc else None} (ranks seen: {r['log_ranks']})")

    def p_at_1(rs):
        return sum(r["ok"] for r in rs) / len(rs) if rs else float("nan")

    def mrr(rs):
        return sum(1 / r["rank_of_expected"] if r["rank_of_expected"] else 0 for r in rs) / len(rs) if rs else float("nan")

    def summary(title: str, rs: list[dict]) -> None:
        pos = [r for r in rs if r["expected"]]
        neg = [r for r in rs if not r["expected"]]
        in_kb = [r for r in pos if r["expected_in_kb"]]
        rr = [r for r in pos if "root_rank_ok" in r]
        print()
        print(f"== {title}")
        print(f"positives: {len(pos)} logs over {len({r['expected'] for r in pos})} canonical ids "
              f"({len(in_kb)} whose id is in the KB, {len(pos) - len(in_kb)} whose id is missing from the KB)")
        print(f"precision@1:                      {p_at_1(pos):.3f}  ({sum(r['ok'] for r in pos)}/{len(pos)})")
        print(f"MRR:                              {mrr(pos):.3f}")
        if len(in_kb) != len(pos):
            print(f"precision@1 (ids present in KB):  {p_at_1(in_kb):.3f}  ({sum(r['ok'] for r in in_kb)}/{len(in_kb)})")
            print(f"MRR         (ids present in KB):  {mrr(in_kb):.3f}")
        print(f"expected anywhere in matches:     {sum(1 for r in pos if r['rank_of_expected'])}/{len(pos)}")
        print(f"no confident match on a positive: {sum(1 for r in pos if r['top'] is None)}/{len(pos)}")
        print(f"negative rejection:               {p_at_1(neg):.3f}  ({sum(r['ok'] for r in neg)}/{len(neg)})")
        if rr:
            print(f"root-cause rank correct:          {sum(r['root_rank_ok'] for r in rr)}/{len(rr)} logs with a known failing rank")

    summary("CORE (2 logs per canonical id + 15+ negatives, written blind)", [r for r in rows if r["tier"] == "core"])
    ext = [r for r in rows if r["tier"] != "core"]
    if ext:
        summary("EXTENDED (harder probes: old/new wordings, other prefixes, near-miss negatives)", ext)
        summary("ALL", rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
