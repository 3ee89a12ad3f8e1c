"""Evaluate the matcher on the second blind held-out set: `.venv/bin/python -m bench.holdout2_eval [-v] [--json OUT]`.

Logs: bench/holdout2/<domain>/<slug>/<name>.log (positives) and bench/holdout2/negative/*.log (must give
"matches": []). bench/holdout2/manifest.json maps each log's relative path to
{"expected": id or null, "root_rank": int or null}; the manifest is authoritative for the expected id (a log
not listed there falls back to its directory). For a multi-rank log the expected id is the entry of the CAUSE
(the rank that failed first, or the earlier of two known errors), not of the symptoms on the other ranks.

Metrics: precision@1 over positives (top match == expected), MRR (1/rank of expected among all matches,
0 if absent), negative rejection (matches == []), root-cause rank accuracy over logs whose manifest gives a
root_rank.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.kbfiles import load_kb
from app.matching.index import MatchIndex
from app.render.match import match_text
from bench.holdout_eval import load_logs as _load_logs
from bench.holdout_eval import short

REPO = Path(__file__).resolve().parent.parent
HOLDOUT = REPO / "bench" / "holdout2"


def load_logs(manifest: dict) -> list[tuple[str, str | None, str]]:
    return _load_logs(HOLDOUT, manifest)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-v", "--verbose", action="store_true", help="print every match id and matched line for every log")
    ap.add_argument("--json", help="write per-log results to this file")
    args = ap.parse_args(argv)

    kb = load_kb(str(REPO / "kb"))
    index = MatchIndex.build(kb.entries)
    known = {e.id for e in kb.entries}
    manifest = json.loads((HOLDOUT / "manifest.json").read_text())

    rows = []
    for rel, expected, text in load_logs(manifest):
        res = match_text(index, text, limit=50)
        ids = [m["id"] for m in res["matches"]]
        top = res["matches"][0] if res["matches"] else None
        rc = res.get("root_cause") or {}
        meta = manifest.get(rel, {})
        row = {
            "log": rel,
            "expected": expected,
            "expected_in_kb": (expected in known) if expected else None,
            "top": top["id"] if top else None,
            "confidence": top["confidence"] if top else None,
            "matched_signature": top["matched"]["signature"] if top else None,
            "matched_line": top["matched"]["line"] if top else None,
            "all_matches": [(m["id"], m["confidence"], m["matched"]["signature"]) for m in res["matches"]],
            "related": [(r["id"], r.get("score"), r.get("why")) for r in res.get("related", [])],
            "rank_of_expected": (ids.index(expected) + 1) if expected in ids else None,
            "root_cause": {"rank": rc.get("rank"), "entry": rc.get("entry"), "line": rc.get("line")} if rc else None,
            "expected_root_rank": meta.get("root_rank"),
        }
        row["ok"] = (not res["matches"]) if expected is None else (row["top"] == expected)
        if meta.get("root_rank") is not None:
            row["root_rank_ok"] = rc.get("rank") == meta["root_rank"]
        rows.append(row)

    print(f"{'':2} {'log':<92} {'expected':<44} {'top':<44} {'conf':>5}  {'rc':>4}")
    for r in rows:
        mark = "ok" if r["ok"] else "XX"
        conf = f"{r['confidence']:.2f}" if r["confidence"] is not None else "  -  "
        rc = r["root_cause"]
        rc_rank = "-" if not rc or rc["rank"] is None else str(rc["rank"])
        rr = ""
        if "root_rank_ok" in r:
            rr = f"  (root rank expected {r['expected_root_rank']}: {'ok' if r['root_rank_ok'] else 'XX'})"
        print(f"{mark:2} {r['log']:<92} {str(r['expected'] or '(negative)'):<44} {str(r['top'] or '[]'):<44} {conf:>5}  {rc_rank:>4}{rr}")
        if args.verbose or not r["ok"] or ("root_rank_ok" in r and not r["root_rank_ok"]):
            if r["all_matches"]:
                print(f"{'':5}matches: " + ", ".join(f"{i}({c:.2f}, sig={s})" for i, c, s in r["all_matches"]))
                print(f"{'':5}top matched line: {short(r['matched_line'], 160)!r}")
            if r["related"]:
                print(f"{'':5}related: " + ", ".join(f"{i}({s})" for i, s, _ in r["related"]))
            if rc:
                print(f"{'':5}root_cause: rank={rc['rank']} entry={rc['entry']} line={short(rc['line'], 120)!r}")

    pos = [r for r in rows if r["expected"]]
    neg = [r for r in rows if not r["expected"]]
    rr = [r for r in pos if "root_rank_ok" in r]
    p1 = sum(r["ok"] for r in pos) / len(pos)
    mrr = sum(1 / r["rank_of_expected"] if r["rank_of_expected"] else 0 for r in pos) / len(pos)
    print()
    print(f"positives: {len(pos)} logs over {len({r['expected'] for r in pos})} ids "
          f"({sum(1 for r in pos if not r['expected_in_kb'])} with an id missing from the KB)")
    print(f"precision@1:            {p1:.3f}  ({sum(r['ok'] for r in pos)}/{len(pos)})")
    print(f"MRR:                    {mrr:.3f}")
    print(f"expected anywhere:      {sum(1 for r in pos if r['rank_of_expected'])}/{len(pos)}")
    print(f"no match on a positive: {sum(1 for r in pos if r['top'] is None)}/{len(pos)}")
    print(f"negative rejection:     {sum(r['ok'] for r in neg) / len(neg):.3f}  ({sum(r['ok'] for r in neg)}/{len(neg)})")
    if rr:
        print(f"root-rank accuracy:     {sum(r['root_rank_ok'] for r in rr) / len(rr):.3f}  ({sum(r['root_rank_ok'] for r in rr)}/{len(rr)} logs with a known first failing rank)")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
