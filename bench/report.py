"""Write the benchmark results as docs/benchmarks.md."""
from __future__ import annotations

import re

from pathlib import Path


def _row(cells) -> str:
    return "| " + " | ".join(str(c) for c in cells) + " |"


def _targets(r: dict) -> list[tuple[str, str, bool]]:
    own, peer, scale = r["own"], r["peer"] or NOT_MEASURED, r["scaling"]
    out = [
        ("precision@1 >= 0.95 on our examples", str(own["p_at_1"]), own["p_at_1"] >= 0.95),
        ("negative rejection >= 0.95 on our examples", str(own["negative_rejection"]), own["negative_rejection"] >= 0.95),
    ]
    for k, res in r.get("heldout", {}).items():
        h = res.get("known", res["all"])
        out.append((f"(held-out `bench/{k}/`) precision@1 / negative rejection",
                    f"{h['p_at_1']} / {h['negative_rejection']}", h["p_at_1"] >= 0.95 and h["negative_rejection"] >= 0.95))
    for name, row in peer["sets"].items():
        if "deadends" in row:
            f, d = row["faultline"]["p_at_1"], row["deadends"]["p_at_1"]
            out.append((f"P@1 above the peer: {name}", f"{f} vs {d}", f > d))
    small = next((x for x in scale if x["entries"] == 2500), scale[0])
    long_log = peer["latency"].get("150-line log")
    if long_log:
        out.append(("in-process p50 <= 2 ms, 150-line log, 2.5k entries",
                    f"{long_log['faultline']['p50_ms']} ms (peer set); {small['p50_ms']} ms (scaling set)",
                    long_log["faultline"]["p50_ms"] <= 2 and small["p50_ms"] <= 2))
    else:
        out.append(("in-process p50 <= 2 ms, 150-line log, 2.5k entries",
                    f"{small['p50_ms']} ms (scaling set; peer set not measured)", small["p50_ms"] <= 2))
    for name, row in peer["latency"].items():
        if "speedup_p50" in row:
            out.append((f"at least 10x faster than the peer: {name}", f"{row['speedup_p50']}x", row["speedup_p50"] >= 10))
    big = next((x for x in scale if x["entries"] == 25000), None)
    if big:
        out.append(("p50 at 25k within 2x of p50 at 2.5k", f"{big['p50_ratio']}x", big["p50_ratio"] <= 2))
        out.append(("service RSS at 25k entries < 300 MB", f"{big['service_rss_mb']} MB", big["service_rss_mb"] < 300))
    return out


# the peer section when the corpus copy was absent
NOT_MEASURED: dict = {"sets": {}, "latency": {}}


# a block of the report that this module does not write (the adversarial pastes, the big job, notes by hand):
# kept from the file it replaces, in its order, after the sections written here
_KEPT_BLOCK = re.compile(r"<!-- (\w+):start -->.*?<!-- \1:end -->", re.S)


def write_report(r: dict, out: Path) -> None:
    out.parent.mkdir(parents=True, exist_ok=True)
    text = render(r)
    if out.is_file():
        made = set(re.findall(r"<!-- (\w+):start -->", text))
        kept = [m.group(0) for m in _KEPT_BLOCK.finditer(out.read_text()) if m.group(1) not in made]
        if kept:
            text = text.rstrip("\n") + "\n\n" + "\n\n".join(kept) + "\n"
    out.write_text(text)


def render(r: dict) -> str:
    m = r["machine"]
    own = r["own"]
    peer = r["peer"]
    L: list[str] = ["# Benchmarks", ""]
    L.append(f"Measured {m['date']} on {m['cpu']} ({m['cores']} cores, {m['memory']}), Python {m['python']}, {m['os']}.")
    L.append("Regenerate with `make bench-write` (`python -m bench --write --peer PATH_TO_DEADENDS_CHECKOUT`). "
             "Timings are medians (p50) and 99th percentiles of single in-process calls on a shared, noisy machine: "
             "compare ratios, not absolute numbers. Raw figures: `bench/results/latest.json`.")
    if not r.get("peer_checkout"):
        L.append("")
        L.append("**The peer's matcher was not run** (no `--peer` checkout given): its columns say \"not measured\".")
    L += ["", "## Targets", "", _row(["target", "measured", "met"]), _row(["---"] * 3)]
    for name, value, ok in _targets(r):
        L.append(_row([name, value, "yes" if ok else "**no**"]))
    L += ["", "## 1. Our own examples (kb/examples)", ""]
    L.append(_row(["entries", "positive logs", "negative logs", "precision@1", "MRR", "negative rejection",
                   "precision when confidence >= 0.5", "p50 ms", "p99 ms"]))
    L.append(_row(["---"] * 9))
    L.append(_row([own["entries"], own["positives"], own["negatives"], own["p_at_1"], own["mrr"],
                   own["negative_rejection"], own["precision_when_confident"], own["latency_ms_p50"], own["latency_ms_p99"]]))
    if own.get("benign_examples"):
        L += ["", f"Examples of benign lines (role `benign`, never ranked as a cause; scored as `faultline lint` does, "
              f"by whether the result lists the line as benign): {own['benign_examples']}, recognised "
              f"{own['benign_recognised']}."]
    L += ["", "Calibration of the top match's confidence on the positive examples:", "",
          _row(["confidence", "matches", "top-1 accuracy"]), _row(["---"] * 3)]
    for b, v in own["calibration"].items():
        L.append(_row([b, v["n"], v["accuracy"]]))
    if r.get("heldout"):
        from bench.heldout import markdown

        L += ["", markdown(r["heldout"], r.get("config"), r["machine"]["date"])]
    L += ["", "## 2. Accuracy on identical data: the deadends.dev corpus", ""]
    if peer is None:
        L.append("Not measured: the corpus copy (`DEADENDS_CORPUS`, default `../shared/peers/deadends`) was not found.")
        L += ["", _row(["query set", "faultline P@1", "deadends P@1"]), _row(["---"] * 3),
              _row(["(all)", "not measured", "not measured"])]
        peer = NOT_MEASURED
    else:
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
                       d.get("p_at_1", "not measured"), d.get("mrr", "not measured")]))
    L += ["", "## 3. Speed on identical queries (in-process)", "",
          _row(["input", "faultline p50 ms", "faultline p99 ms", "deadends p50 ms", "deadends p99 ms", "speed-up (p50)"]),
          _row(["---"] * 6)]
    for name, row in peer["latency"].items():
        f = row.get("faultline", {})
        d = row.get("deadends", {})
        L.append(_row([name, f.get("p50_ms"), f.get("p99_ms"), d.get("p50_ms", "not measured"),
                       d.get("p99_ms", "not measured"), row.get("speedup_p50", "—")]))
    if not peer["latency"]:
        L.append(_row(["(the peer's queries)"] + ["not measured"] * 4 + ["—"]))
    h = r["http"]
    L += ["", "HTTP `/match` under uvicorn (one worker) on our KB, with a concurrent client "
          f"({h['concurrency']} connections, {h['seconds']} s, our example logs as bodies):", "",
          _row(["requests", "req/s", "p50 ms", "p99 ms", "service RSS MB"]), _row(["---"] * 5),
          _row([h["requests"], h["req_per_s"], h["p50_ms"], h["p99_ms"], h["rss_mb"]])]
    base = "the peer corpus" if r.get("scaling_base", "peer") == "peer" else "our own entries (no peer corpus copy)"
    L += ["", f"## 4. Scaling (synthetic growth of {base})", "",
          "The corpus is grown by copying entries and mutating one word of each signature, so anchors differ. "
          "Queries: 150-line noisy logs.", "",
          _row(["entries", "signatures", "index build s", "p50 ms", "p99 ms", "p50 / p50 at smallest", "service RSS MB"]),
          _row(["---"] * 7)]
    for s in r["scaling"]:
        L.append(_row([s["entries"], s["signatures"], s["index_build_s"], s["p50_ms"], s["p99_ms"], s["p50_ratio"],
                       s["service_rss_mb"]]))
    return "\n".join(L) + "\n"
