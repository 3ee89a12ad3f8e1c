"""Write the benchmark results as docs/benchmarks.md."""
from __future__ import annotations

from pathlib import Path


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def write_report(r: dict, out: Path) -> None:
    m = r["machine"]
    own = r["own"]
    peer = r["peer"]
    L: list[str] = ["# Benchmarks", ""]
    L.append(f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores, {m['memory']}), Python {m['python']}, {m['os']}.")
    L.append("Regenerate with `make bench` (`python -m bench --peer PATH_TO_DEADENDS_CHECKOUT`). "
             "Timings are medians (p50) and 99th percentiles of single in-process calls on a shared, noisy machine: "
             "compare ratios, not absolute numbers. Raw figures: `bench/results/latest.json`.")
    if not r.get("peer_checkout"):
        L.append("")
        L.append("**The peer's matcher was not run** (no `--peer` checkout given): peer columns are empty.")
    L += ["", "## 1. Our own examples (kb/examples)", ""]
    L.append(_row(["entries", "positive logs", "negative logs", "precision@1", "MRR", "negative rejection",
                   "precision when confidence >= 0.5", "p50 ms", "p99 ms"]))
    L.append(_row(["---"] * 9))
    L.append(_row([own["entries"], own["positives"], own["negatives"], own["p_at_1"], own["mrr"],
                   own["negative_rejection"], own["precision_when_confident"], own["latency_ms_p50"], own["latency_ms_p99"]]))
    L += ["", "Calibration of the top match's confidence on the positive examples:", "",
          _row(["confidence", "matches", "top-1 accuracy"]), _row(["---"] * 3)]
    for b, v in own["calibration"].items():
        L.append(_row([b, v["n"], v["accuracy"]]))
    h = r.get("holdout")
    if h:
        L += ["", "Held-out logs (`bench/holdout/`, written by a separate author without reading `kb/examples/`; "
              "general matcher fixes and three missing old-wording signatures were made after its first run, so it is "
              "no longer fully blind — see `bench/holdout/README.md`):", "",
              _row(["positive logs", "negative logs", "precision@1", "MRR", "negative rejection", "first failing rank right"]),
              _row(["---"] * 6),
              _row([h["positives"], h["negatives"], h["p_at_1"], h["mrr"], h["negative_rejection"], h["root_rank_correct"]]),
              "", "Misses: " + (", ".join(f"`{m}`" for m in h["misses"]) or "none")]
    L += ["", "## 2. Accuracy on identical data: the deadends.dev corpus", ""]
    L.append(f"Both matchers see the same {peer['canons']} canons (the corpus copy, CC BY 4.0). Ours imports them with "
             f"`faultline import deadends` ({peer['entries']} entries, index built in {peer['index_build_s']} s). "
             "Scenarios are scored by domain, as the peer's own benchmark does; the signature sets by id, where any "
             "canon with the identical signature text counts as correct (the text cannot tell their environments "
             "apart). Our ranked list is the confident matches followed by the weaker `related` candidates.")
    L += ["", _row(["query set", "queries", "faultline P@1", "faultline MRR", "deadends P@1", "deadends MRR"]),
          _row(["---"] * 6)]
    for name, row in peer["sets"].items():
        f = row.get("faultline", {})
        d = row.get("deadends", {})
        L.append(_row([name, f.get("n", d.get("n", "")), f.get("p_at_1", ""), f.get("mrr", ""),
                       d.get("p_at_1", "—"), d.get("mrr", "—")]))
    L += ["", "## 3. Speed on identical queries (in-process)", "",
          _row(["input", "faultline p50 ms", "faultline p99 ms", "deadends p50 ms", "deadends p99 ms", "speed-up (p50)"]),
          _row(["---"] * 6)]
    for name, row in peer["latency"].items():
        f = row.get("faultline", {})
        d = row.get("deadends", {})
        L.append(_row([name, f.get("p50_ms"), f.get("p99_ms"), d.get("p50_ms", "—"), d.get("p99_ms", "—"),
                       row.get("speedup_p50", "—")]))
    h = r["http"]
    L += ["", "HTTP `/match` under uvicorn (one worker) on our KB, with a concurrent client "
          f"({h['concurrency']} connections, {h['seconds']} s, our example logs as bodies):", "",
          _row(["requests", "req/s", "p50 ms", "p99 ms", "service RSS MB"]), _row(["---"] * 5),
          _row([h["requests"], h["req_per_s"], h["p50_ms"], h["p99_ms"], h["rss_mb"]])]
    L += ["", "## 4. Scaling (synthetic growth of the peer corpus)", "",
          "The corpus is grown by copying canons and mutating one word of each signature, so anchors differ. "
          "Queries: 150-line noisy logs.", "",
          _row(["entries", "signatures", "index build s", "p50 ms", "p99 ms", "p50 / p50 at smallest", "service RSS MB"]),
          _row(["---"] * 7)]
    for s in r["scaling"]:
        L.append(_row([s["entries"], s["signatures"], s["index_build_s"], s["p50_ms"], s["p99_ms"], s["p50_ratio"],
                       s["service_rss_mb"]]))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(L) + "\n")
