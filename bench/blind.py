"""Score the matcher on the blind set: `.venv/bin/python -m bench.blind [--kb PATH] [-v] [--json OUT]`.

The blind set (bench/blind/, see its README) is real failure reports drawn from public issue threads
and labelled by reading, blind to the matcher: bench/blind/reports/NNN.log and manifest.json
({"NNN.log": {"expected": id|null, "fair": [ids], "url", "query", "rank_in_query", "why"}}).

On the top answer only:
  right first   the top answer is `expected` or in `fair`, over the reports that have an `expected` entry;
  wrong first   a top answer that is neither `expected` nor `fair`, over all reports (any answer on a
                `null` report counts, unless that report names it as `fair`); an answer with an entry
                added to the KB after the labels (LABELLED_AT) is counted apart, as unlabelled;
  silent        no answer at all, over all reports.

Labels written later (`later`: {"expected", "fair", "why", "date"} in a manifest row) are for entries added
after the blind labels: they were written by reading the report again once the entry existed, so they are
not blind. The figures with them are printed apart ("with later labels"), and the blind figures never use them.

To score an older checkout ("before"), run this file with that checkout first on the path and its KB:
  cd OLD && PYTHONPATH=OLD python NEW/bench/blind.py --kb OLD/kb --dir NEW/bench/blind
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

try:
    from bench.heldout import _match_text, decode
except ImportError:  # run as a file from another checkout's root
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.heldout import _match_text, decode

REPO = Path(__file__).resolve().parent.parent
BASE = REPO / "bench" / "blind"
LABELLED_AT = "76375d3"  # the KB the labels were written against: an entry added later has no label yet


def labelled_ids(rev: str = LABELLED_AT) -> set[str] | None:
    """The entry ids of the KB at the labelling commit (None when git or the commit is not at hand)."""
    import subprocess

    try:
        out = subprocess.run(["git", "-C", str(REPO), "ls-tree", "-r", "--name-only", rev, "kb/entries"],
                             capture_output=True, text=True, timeout=30, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    return {p[len("kb/entries/"):-len(".yaml")] for p in out.split() if p.endswith(".yaml")} or None


def read_set(base: Path) -> list[tuple[str, dict, str]]:
    """(name, manifest row, pasted text) for every report of the manifest, in its order."""
    manifest = json.loads((base / "manifest.json").read_text(encoding="utf-8"))
    return [(name, meta, decode((base / "reports" / name).read_bytes())) for name, meta in manifest.items()]


def verdict(top: str | None, expected: str | None, fair: list[str], labelled: set[str] | None = None) -> str:
    """right / wrong / silent for one report (a null report answered with a fair id is `fair`; an answer
    with an entry the labels could not know, added after them, is `unlabelled`)."""
    if top is None:
        return "silent"
    if top == expected or top in fair:
        return "right" if expected else "fair"
    if labelled is not None and top not in labelled:
        return "unlabelled"
    return "wrong"


def score_set(base: Path, kb: Path) -> list[dict]:
    from faultline.kbfiles import load_kb
    from faultline.matching.index import MatchIndex

    match_text = _match_text()
    entries = load_kb(str(kb), lenient=True).entries
    index = MatchIndex.build(entries)
    known = {e.id for e in entries}
    labelled = labelled_ids()
    rows = []
    for name, meta, text in read_set(base):
        res = match_text(index, text, limit=5)
        top = res["matches"][0] if res["matches"] else None
        expected, fair = meta.get("expected"), list(meta.get("fair", []))
        rows.append({
            "log": name, "url": meta.get("url"), "expected": expected, "fair": fair,
            "expected_in_kb": expected in known if expected else None,
            "top": top["id"] if top else None,
            "confidence": top["confidence"] if top else None,
            "matches": [(m["id"], m["confidence"]) for m in res["matches"]],
            "verdict": verdict(top["id"] if top else None, expected, fair, labelled),
        })
        later = meta.get("later")
        if later is not None:
            rows[-1]["expected_later"] = later.get("expected")
            rows[-1]["verdict_later"] = verdict(top["id"] if top else None, later.get("expected"),
                                                list(later.get("fair", [])), labelled=None)
        else:
            rows[-1]["expected_later"] = expected
            rows[-1]["verdict_later"] = rows[-1]["verdict"]
    return rows


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def summary(rows: list[dict]) -> dict:
    held = [r for r in rows if r["expected"]]
    return {
        "reports": len(rows),
        "held": len(held),
        "right_first_held": _ratio(sum(r["verdict"] == "right" for r in held), len(held)),
        "right_first_held_n": sum(r["verdict"] == "right" for r in held),
        "wrong_first_all": _ratio(sum(r["verdict"] == "wrong" for r in rows), len(rows)),
        "wrong_first_n": sum(r["verdict"] == "wrong" for r in rows),
        "wrong_or_unlabelled_all": _ratio(sum(r["verdict"] in ("wrong", "unlabelled") for r in rows), len(rows)),
        "silent_all": _ratio(sum(r["verdict"] == "silent" for r in rows), len(rows)),
        "silent_held": _ratio(sum(r["verdict"] == "silent" for r in held), len(held)),
        "null_answered_fair": sum(r["verdict"] == "fair" for r in rows),
        "unlabelled_n": sum(r["verdict"] == "unlabelled" for r in rows),
        "unlabelled": sorted({r["top"] for r in rows if r["verdict"] == "unlabelled"}),
        "expected_missing_from_kb": sum(1 for r in held if not r["expected_in_kb"]),
        "wrong": [r["log"] for r in rows if r["verdict"] == "wrong"],
        "missed": [r["log"] for r in held if r["verdict"] != "right"],
        "later": _later_summary(rows),
    }


def _later_summary(rows: list[dict]) -> dict:
    """The same figures with the later labels where a report has one (not blind: see the docstring)."""
    held = [r for r in rows if r["expected_later"]]
    return {
        "relabelled": sum(1 for r in rows if r["expected_later"] != r["expected"]),
        "held": len(held),
        "right_first_held": _ratio(sum(r["verdict_later"] == "right" for r in held), len(held)),
        "right_first_held_n": sum(r["verdict_later"] == "right" for r in held),
        "wrong_first_n": sum(r["verdict_later"] == "wrong" for r in rows),
        "wrong_first_all": _ratio(sum(r["verdict_later"] == "wrong" for r in rows), len(rows)),
        "unlabelled_n": sum(r["verdict_later"] == "unlabelled" for r in rows),
    }


def print_rows(rows: list[dict], verbose: bool) -> None:
    for r in rows:
        if not verbose and r["verdict"] in ("right", "fair") or not verbose and r["verdict"] == "silent" and not r["expected"]:
            continue
        conf = f"{r['confidence']:.2f}" if r["confidence"] is not None else "  -  "
        print(f"{r['verdict']:<6} {r['log']}  expected={r['expected'] or '-'}  top={r['top'] or '-'} {conf}")


def print_summary(s: dict) -> None:
    print(f"\nreports {s['reports']}, with an expected entry {s['held']} "
          f"(ids missing from the KB: {s['expected_missing_from_kb']})")
    print(f"right first (held)     {s['right_first_held']}  ({s['right_first_held_n']}/{s['held']})")
    print(f"wrong first (all)      {s['wrong_first_all']}  ({s['wrong_first_n']}/{s['reports']})")
    print(f"silent (all)           {s['silent_all']}  (held: {s['silent_held']})")
    print(f"null answered fairly   {s['null_answered_fair']}")
    if s["unlabelled_n"]:
        print(f"answered with an entry added after the labels ({LABELLED_AT}): {s['unlabelled_n']} "
              f"({', '.join(s['unlabelled'])}); label them to score them")
        print(f"wrong first, counting those as wrong: {s['wrong_or_unlabelled_all']}")
    lt = s["later"]
    if lt["relabelled"]:
        print(f"\nwith later labels (not blind; {lt['relabelled']} reports labelled again after entries were added):")
        print(f"  KB holds               {lt['held']}/{s['reports']}")
        print(f"  right first (held)     {lt['right_first_held']}  ({lt['right_first_held_n']}/{lt['held']})")
        print(f"  wrong first (all)      {lt['wrong_first_all']}  ({lt['wrong_first_n']}/{s['reports']})")
        if lt["unlabelled_n"]:
            print(f"  still unlabelled       {lt['unlabelled_n']}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.blind")
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    ap.add_argument("--dir", type=Path, default=BASE, help="the blind set's folder (default bench/blind)")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every report, not only the misses")
    ap.add_argument("--json", type=Path, help="write the figures and per-report rows here")
    args = ap.parse_args(argv)
    rows = score_set(args.dir, args.kb)
    print_rows(rows, args.verbose)
    s = summary(rows)
    print_summary(s)
    if args.json:
        args.json.write_text(json.dumps({"summary": s, "rows": rows}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
