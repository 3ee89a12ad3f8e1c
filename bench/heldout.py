"""Score the matcher on a held-out set: `.venv/bin/python -m bench.heldout --set holdout3 [-v] [--json OUT]`.

A held-out set is a folder bench/<set>/ of logs written apart from kb/examples:
<domain>/<slug>/<name>.log (expected id "<domain>/<slug>") and negative/*.log (must match nothing).
An optional manifest.json maps a log's relative path to {"expected": id|null, "root_rank": int|null,
"features": [...], "tier": "core"|...}; it is authoritative for the expected id. For a multi-process
log the expected id is the entry of the cause (the process that failed first), not of its symptoms.

Measures: precision@1, MRR, first-failing-rank accuracy (logs whose manifest names it), negative
rejection, and the calibration of the top answer's confidence (how often an answer given with
confidence c is right). `--subset-kb DIR` adds the same figures restricted to the ids of another KB
(e.g. the 42 entries the set was written against).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BINS = (0.0, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001)


def _match_text():
    try:
        from faultline.render.match import match_text
    except ImportError:  # an older checkout of the matcher (scoring "before")
        from faultline.matching.rank import match_text
    return match_text


def load_logs(base: Path, manifest: dict | None = None) -> list[tuple[str, str | None, str]]:
    """(relative path, expected id or None for a negative, text) for every log of a held-out set.

    The bytes are passed on as a user would paste them (CRLF, ANSI escapes, other encodings):
    UTF-8 when they decode, else the matcher's own decoding when it has one."""
    out = []
    for p in sorted(base.rglob("*.log")):
        rel = p.relative_to(base).as_posix()
        parts = rel.split("/")
        if manifest and "expected" in manifest.get(rel, {}):
            expected = manifest[rel]["expected"]
        else:
            expected = None if parts[0] == "negative" else f"{parts[0]}/{parts[1]}"
        out.append((rel, expected, decode(p.read_bytes())))
    return out


def decode(data: bytes) -> str:
    try:
        from faultline.matching.decode import decode_paste
    except ImportError:
        return data.decode("utf-8", errors="replace")
    return decode_paste(data).text


def read_manifest(base: Path) -> dict:
    p = base / "manifest.json"
    return json.loads(p.read_text()) if p.exists() else {}


def kb_ids(kb: Path) -> set[str]:
    root = kb / "entries" if (kb / "entries").is_dir() else kb
    return {p.relative_to(root).with_suffix("").as_posix() for p in root.rglob("*.yaml")}


def score_set(base: Path, kb: Path) -> list[dict]:
    from faultline.kbfiles import load_kb
    from faultline.matching.index import MatchIndex

    match_text = _match_text()
    entries = load_kb(str(kb), lenient=True).entries
    index = MatchIndex.build(entries)
    known = {e.id for e in entries}
    manifest = read_manifest(base)
    rows = []
    for rel, expected, text in load_logs(base, manifest):
        res = match_text(index, text, limit=50)
        ids = [m["id"] for m in res["matches"]]
        top = res["matches"][0] if res["matches"] else None
        rc = res.get("root_cause") or {}
        meta = manifest.get(rel, {})
        row = {
            "log": rel,
            "expected": expected,
            "expected_in_kb": expected in known if expected else None,
            "top": top["id"] if top else None,
            "confidence": top["confidence"] if top else None,
            "all_matches": [(m["id"], m["confidence"]) for m in res["matches"]],
            "related": [r["id"] for r in res["related"]],
            "rank_of_expected": (ids.index(expected) + 1) if expected in ids else None,
            "root_cause": {"rank": rc.get("rank"), "entry": rc.get("entry"), "line": rc.get("line")} if rc else None,
            "expected_root_rank": meta.get("root_rank"),
            "features": meta.get("features", []),
            "tier": meta.get("tier", "core"),
            "took_ms": res.get("took_ms"),
        }
        row["group"] = ("unknown-root" if rel.startswith("unknown-root/") else "negative" if expected is None
                        else "known" if meta.get("kb42", True) else "planned")
        row["ok"] = (not res["matches"]) if expected is None else row["top"] == expected
        if row["group"] == "unknown-root":  # the root is an error no entry knows: say so, at the right rank
            row["root_unknown_ok"] = bool(rc) and rc.get("entry") is None and not any(
                m.get("root_cause_match") for m in res["matches"])
        if meta.get("root_rank") is not None:
            row["root_rank_ok"] = rc.get("rank") == meta["root_rank"]
        rows.append(row)
    return rows


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def calibration(rows: list[dict]) -> list[dict]:
    """Top answers by confidence: how many, their mean confidence, and how often they were right."""
    given = [r for r in rows if r["confidence"] is not None]
    table = []
    for lo, hi in zip(BINS, BINS[1:]):
        b = [r for r in given if lo <= r["confidence"] < hi]
        if b:
            table.append({"bin": f"{lo:.1f}-{min(hi, 1.0):.1f}", "n": len(b),
                          "mean_confidence": round(sum(r["confidence"] for r in b) / len(b), 3),
                          "accuracy": round(sum(r["ok"] for r in b) / len(b), 3)})
    return table


def summary(rows: list[dict], subset: set[str] | None = None, group: str | None = None) -> dict:
    pos = [r for r in rows if r["expected"] and (subset is None or r["expected"] in subset)
           and (group is None or r.get("group") == group)]
    neg = [r for r in rows if not r["expected"] and r.get("group", "negative") == "negative"]
    unknown = [r for r in rows if r.get("group") == "unknown-root"]
    rr = [r for r in pos + (unknown if group is None or group == "known" else []) if "root_rank_ok" in r]
    return {
        "positives": len(pos),
        "negatives": len(neg),
        "p_at_1": _ratio(sum(r["ok"] for r in pos), len(pos)),
        "mrr": round(sum(1 / r["rank_of_expected"] for r in pos if r["rank_of_expected"]) / len(pos), 3) if pos else None,
        "root_rank_correct": _ratio(sum(r["root_rank_ok"] for r in rr), len(rr)),
        "root_rank_logs": len(rr),
        "negative_rejection": _ratio(sum(r["ok"] for r in neg), len(neg)),
        "expected_missing_from_kb": sum(1 for r in pos if not r["expected_in_kb"]),
        "misses": [r["log"] for r in pos if not r["ok"]],
        "false_positives": [r["log"] for r in neg if not r["ok"]],
        "root_rank_misses": [r["log"] for r in rr if not r["root_rank_ok"]],
        "unknown_root": len(unknown),
        "unknown_root_said": _ratio(sum(r["root_unknown_ok"] for r in unknown), len(unknown)),
        "unknown_root_no_match": _ratio(sum(not r["all_matches"] for r in unknown), len(unknown)),
        "calibration": calibration(pos + neg),
    }


def _short(s: str | None, n: int = 90) -> str:
    if s is None:
        return "-"
    s = s.replace("\x1b", "\\e").replace("\r", "\\r")
    return s if len(s) <= n else s[: n - 1] + "…"


def print_rows(rows: list[dict], verbose: bool) -> None:
    for r in rows:
        bad = not r["ok"] or r.get("root_rank_ok") is False
        if not (verbose or bad):
            continue
        rc = r["root_cause"] or {}
        conf = f"{r['confidence']:.2f}" if r["confidence"] is not None else "  -  "
        print(f"{'ok' if r['ok'] else 'XX'} {r['log']:<80} {str(r['expected'] or '(negative)'):<44} "
              f"{str(r['top'] or '[]'):<44} {conf}")
        if bad:
            print(f"     matches: {r['all_matches'][:4]}  related: {r['related'][:3]}")
            print(f"     root: rank={rc.get('rank')} (expected {r['expected_root_rank']}) entry={rc.get('entry')} "
                  f"line={_short(rc.get('line'), 100)!r}")


def print_summary(title: str, s: dict) -> None:
    print(f"\n== {title}")
    print(f"positives {s['positives']} (ids missing from the KB: {s['expected_missing_from_kb']}), negatives {s['negatives']}")
    print(f"precision@1            {s['p_at_1']}")
    print(f"MRR                    {s['mrr']}")
    print(f"first failing rank     {s['root_rank_correct']}  ({s['root_rank_logs']} logs name it)")
    print(f"negative rejection     {s['negative_rejection']}")
    if s["unknown_root"]:
        print(f"unknown root said      {s['unknown_root_said']}  (no match at all: {s['unknown_root_no_match']}, "
              f"{s['unknown_root']} logs)")
    print("calibration (top answers): bin  n  mean-confidence  accuracy")
    for b in s["calibration"]:
        print(f"    {b['bin']}  {b['n']:>4}  {b['mean_confidence']:.3f}  {b['accuracy']:.3f}")


def evaluate(name: str, kb: Path | None = None, subset_kb: Path | None = None, base: Path | None = None) -> dict:
    base = base or REPO / "bench" / name
    rows = score_set(base, kb or REPO / "kb")
    out = {"set": name, "all": summary(rows), "rows": rows}
    if subset_kb is not None:
        out["subset"] = summary(rows, kb_ids(subset_kb))
    groups = {r.get("group") for r in rows}
    for g in ("known", "planned"):
        if g in groups and "planned" in groups:
            out[g] = summary(rows, group=g)
    return out


SETS = ("holdout", "holdout2", "holdout3")
START, END = "<!-- heldout:start -->", "<!-- heldout:end -->"


def ready_sets() -> list[str]:
    """The held-out sets present (a set still being written has no READY file yet: holdout3 and later)."""
    out = []
    for name in SETS:
        base = REPO / "bench" / name
        if base.is_dir() and (name in ("holdout", "holdout2") or (base / "READY").exists()):
            out.append(name)
    return out


def figures(res: dict) -> dict:
    """The per-set figures kept in bench/results (no per-log rows)."""
    keep = {k: v for k, v in res.items() if k != "rows"}
    return keep


def markdown(results: dict[str, dict], config: str | None, when: str) -> str:
    """The held-out section of docs/benchmarks.md: one row per set (and group), then the calibration tables."""
    def row(cells) -> str:
        return "| " + " | ".join("—" if c is None else str(c) for c in cells) + " |"

    L = [START, "", "## Held-out sets and calibration", "",
         f"Scored {when} with ranking config `{config}` (`python -m bench.heldout --set NAME`). "
         "`first failing rank` counts the logs whose manifest names the rank (or mp.spawn process) that failed "
         "first; `unknown root` counts logs whose first failure is an error no entry knows (right when the result "
         "says so: root cause with no entry, and no match claims it). "
         f"Against the {len(kb_ids(REPO / 'kb'))} entries of `kb/`; negatives of `bench/holdout` and `bench/holdout2` "
         "that later entries cover are relabelled in their manifests (`relabelled` says when and why).", "",
         row(["set", "group", "positives", "negatives", "precision@1", "MRR", "first failing rank",
              "negative rejection", "unknown root"]), row(["---"] * 9)]
    for name, res in results.items():
        groups = [("all", res["all"])] + [(g, res[g]) for g in ("known", "planned") if g in res]
        for g, s in groups:
            L.append(row([f"`bench/{name}/`", g, s["positives"], s["negatives"], s["p_at_1"], s["mrr"],
                          f"{s['root_rank_correct']} ({s['root_rank_logs']})", s["negative_rejection"],
                          s["unknown_root_said"] if s["unknown_root"] else None]))
    L += ["", "Calibration: the top answer's confidence against how often it was right (negatives count as wrong "
          "answers when anything is returned). The weights were fitted on `bench/holdout` and `bench/holdout2` "
          "(`python -m bench.calibrate`); `bench/holdout3` was not used for the fit.", ""]
    for name, res in results.items():
        L += [f"`bench/{name}/`:", "", row(["confidence", "answers", "mean confidence", "accuracy"]), row(["---"] * 4)]
        for b in res["all"]["calibration"]:
            L.append(row([b["bin"], b["n"], b["mean_confidence"], b["accuracy"]]))
        L.append("")
    L.append(END)
    return "\n".join(L)


def write_section(doc: Path, section: str, start: str = START, end: str = END) -> None:
    """Put the section into doc, replacing the previous one between the markers (appending if none)."""
    text = doc.read_text() if doc.exists() else "# Benchmarks\n"
    if start in text and end in text:
        head, rest = text.split(start, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    doc.write_text(text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.heldout")
    ap.add_argument("--set", default="holdout3", help="folder under bench/ (holdout, holdout2, holdout3)")
    ap.add_argument("--dir", type=Path, help="a held-out folder elsewhere (overrides --set)")
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    ap.add_argument("--subset-kb", type=Path, help="also score only the positives whose id is in this KB")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every log, not only the misses")
    ap.add_argument("--json", type=Path, help="write the figures and per-log rows here")
    ap.add_argument("--markdown", type=Path, help="score every ready set and write the held-out section of this file "
                                                  "(e.g. docs/benchmarks.md)")
    args = ap.parse_args(argv)
    if args.markdown:
        import time

        from faultline.matching.config import DEFAULT

        results = {name: evaluate(name, args.kb) for name in ready_sets()}
        for name, res in results.items():
            print_summary(name, res["all"])
        write_section(args.markdown, markdown(results, DEFAULT.id, time.strftime("%Y-%m-%d")))
        if args.json:
            args.json.write_text(json.dumps({k: figures(v) for k, v in results.items()}, indent=1))
        return 0
    res = evaluate(args.set, args.kb, args.subset_kb, args.dir)
    print_rows(res["rows"], args.verbose)
    print_summary(f"{args.set}: all", res["all"])
    if "subset" in res:
        print_summary(f"{args.set}: ids of {args.subset_kb}", res["subset"])
    for g in ("known", "planned"):
        if g in res:
            print_summary(f"{args.set}: {g} ids (manifest kb42={g == 'known'}) and every negative", res[g])
    try:
        from faultline.matching.config import DEFAULT
        res["config"] = DEFAULT.id
    except ImportError:
        res["config"] = None
    print(f"\nranking config: {res['config']}")
    if args.json:
        args.json.write_text(json.dumps(res, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
