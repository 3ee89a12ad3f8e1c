"""The benchmark: `python -m bench [--peer PATH_TO_DEADENDS_CHECKOUT]`.

Measures, and writes to docs/benchmarks.md (and bench/results/latest.json):
1. accuracy on our own examples (precision@1, MRR, negative rejection, calibration);
2. accuracy on identical data with the peer (deadends.dev): its 20 scenarios, every canon
   signature as a query, and the same signatures inside noisy 150-line logs;
3. in-process latency (p50/p99) of both matchers on identical queries, and HTTP /match
   throughput under uvicorn with a concurrent client;
4. scaling: latency at 2.5k, 10k and 25k entries and the service's RSS at each size.
The peer's code is not part of this repository: pass --peer with a checkout of it to run
it side by side (its data comes from the corpus copy, so both see identical canons).
Without the corpus copy (DEADENDS_CORPUS, default ../shared/peers/deadends) section 2 is not
measured and scaling grows our own entries instead.

Nothing tracked is rewritten unless asked: by default the report goes to standard output;
``--write`` rewrites docs/benchmarks.md and bench/results/latest.json; ``--out FILE`` writes the
report to FILE and the raw figures beside it (FILE with .json).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from bench.corpus import (PEER_DATA, REPO, Query, grow, noisy_log, own_kb, peer_corpus, peer_corpus_present,
                          scenario_queries, signature_queries)


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, int(round(p / 100 * (len(xs) - 1)))))
    return xs[k]


def ours(index: MatchIndex, text: str) -> list[str]:
    res = match_text(index, text, limit=10)
    return [m["id"] for m in res["matches"]] + [r["id"] for r in res["related"]]


def timed(fn, queries: list[Query]) -> tuple[list[list[str]], list[float]]:
    answers, times = [], []
    for q in queries:
        t0 = time.perf_counter()
        a = fn(q.text)
        times.append((time.perf_counter() - t0) * 1000)
        answers.append(a)
    return answers, times


def score(answers: list[list[str]], queries: list[Query], key=lambda x: x) -> dict:
    hits = rr = 0.0
    for a, q in zip(answers, queries):
        want = {key(x) for x in (q.accept or {q.expected})}
        got = [key(x) for x in a]
        if got and got[0] in want:
            hits += 1
        for i, g in enumerate(got[:10]):
            if g in want:
                rr += 1 / (i + 1)
                break
    n = max(len(queries), 1)
    return {"n": len(queries), "p_at_1": round(hits / n, 3), "mrr": round(rr / n, 3)}


def own_examples() -> dict:
    entries, qs = own_kb()
    index = MatchIndex.build(entries)
    # a benign line (role "benign") is listed apart from the matches and never ranked: its examples are
    # scored as `faultline lint` scores them, by whether the result lists that benign line
    benign = [q for q in qs if q.expected and index.roles.get(q.expected) == "benign"]
    pos = [q for q in qs if q.expected and q not in benign]
    neg = [q for q in qs if not q.expected]
    benign_ok = sum(q.expected in {b["id"] for b in match_text(index, q.text).get("benign", [])} for q in benign)
    p1 = rr = 0.0
    buckets: dict[str, list[int]] = {}
    confident_right = confident_all = 0
    lat = []
    for q in pos:
        t0 = time.perf_counter()
        res = match_text(index, q.text)
        lat.append((time.perf_counter() - t0) * 1000)
        ids = [m["id"] for m in res["matches"]]
        if ids and ids[0] == q.expected:
            p1 += 1
        if q.expected in ids:
            rr += 1 / (ids.index(q.expected) + 1)
        if res["matches"]:
            c = res["matches"][0]["confidence"]
            b = f"{min(int(c * 10), 9) / 10:.1f}-{min(int(c * 10), 9) / 10 + 0.1:.1f}"
            buckets.setdefault(b, []).append(int(ids[0] == q.expected))
            if c >= 0.5:
                confident_all += 1
                confident_right += int(ids[0] == q.expected)
    rejected = 0
    false_conf = []
    for q in neg:
        res = match_text(index, q.text)
        if not res["matches"]:
            rejected += 1
        else:
            false_conf.append(res["matches"][0]["confidence"])
    return {
        "entries": len(entries),
        "positives": len(pos),
        "negatives": len(neg),
        "benign_examples": len(benign),
        "benign_recognised": round(benign_ok / max(len(benign), 1), 3),
        "p_at_1": round(p1 / max(len(pos), 1), 3),
        "mrr": round(rr / max(len(pos), 1), 3),
        "negative_rejection": round(rejected / max(len(neg), 1), 3),
        "precision_when_confident": round(confident_right / max(confident_all, 1), 3),
        "calibration": {b: {"n": len(v), "accuracy": round(sum(v) / len(v), 3)} for b, v in sorted(buckets.items())},
        "latency_ms_p50": round(pct(lat, 50), 3),
        "latency_ms_p99": round(pct(lat, 99), 3),
    }


def heldout() -> dict:
    """Every ready held-out set (bench/holdout*/), scored by bench/heldout.py: figures only, no per-log rows."""
    from bench.heldout import evaluate, figures, ready_sets

    return {name: figures(evaluate(name)) for name in ready_sets()}


def load_peer(path: Path | None, canons: list[dict]):
    if path is None:
        return None
    sys.path.insert(0, str(path))
    from generator import lookup  # type: ignore[import-not-found]

    lookup._CANONS_CACHE = canons  # identical data: the corpus copy, not the checkout's files
    lookup.lookup_all("warm up")
    return lookup


def peer_data(peer_path: Path | None, sample: int, seed: int) -> dict:
    canons, entries, id_map = peer_corpus(PEER_DATA / "canons.jsonl")
    back = {v: k for k, v in id_map.items()}
    t0 = time.perf_counter()
    index = MatchIndex.build(entries)
    build_s = time.perf_counter() - t0
    peer = load_peer(peer_path, canons)
    rng = random.Random(seed)
    sig_q = signature_queries(canons)
    noisy_q = [Query(noisy_log(q.text, rng), q.expected, q.accept, q.domain) for q in rng.sample(sig_q, min(sample, len(sig_q)))]
    scen_q = scenario_queries(PEER_DATA / "scenarios.json")
    short_q = rng.sample(sig_q, min(sample, len(sig_q)))
    out: dict = {"canons": len(canons), "entries": len(entries), "index_build_s": round(build_s, 2), "sets": {}}

    def our_fn(text):
        return [back.get(i, i) for i in ours(index, text)]

    def peer_fn(text):
        return [m["id"] for m in peer.lookup_all(text)]

    for name, qs, key in (
        ("scenarios (by domain)", scen_q, "domain"),
        ("signatures as queries", sig_q, "id"),
        ("signatures in noisy 150-line logs", noisy_q, "id"),
    ):
        row = {}
        for who, fn in (("faultline", our_fn), ("deadends", peer_fn if peer else None)):
            if fn is None:
                continue
            answers, times = timed(fn, qs)
            if key == "domain":
                dq = [Query(q.text, q.domain, frozenset({q.domain}), q.domain) for q in qs]
                m = score(answers, dq, key=lambda x: x.split("/", 1)[0])
            else:
                m = score(answers, qs)
            m.update({"p50_ms": round(pct(times, 50), 3), "p99_ms": round(pct(times, 99), 3)})
            row[who] = m
        out["sets"][name] = row
    # latency on identical short and 150-line queries
    lat = {}
    for name, qs in (("short (one line)", short_q), ("150-line log", noisy_q)):
        row = {}
        for who, fn in (("faultline", our_fn), ("deadends", peer_fn if peer else None)):
            if fn is None:
                continue
            _, times = timed(fn, qs)
            row[who] = {"p50_ms": round(pct(times, 50), 3), "p99_ms": round(pct(times, 99), 3)}
        if "deadends" in row:
            row["speedup_p50"] = round(row["deadends"]["p50_ms"] / row["faultline"]["p50_ms"], 1)
        lat[name] = row
    out["latency"] = lat
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_service(db: Path, kb: Path) -> tuple[subprocess.Popen, str]:
    """One worker process, so that its pid is the process whose memory is measured (with several
    workers it would be uvicorn's supervisor, which holds no KB)."""
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(kb), "serve", "--db", str(db),
                             "--host", "127.0.0.1", "--port", str(port), "--workers", "1"], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(1200):
        try:
            if httpx.get(f"{base}/healthz", timeout=1).status_code == 200:
                return proc, base
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("service did not start")


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def http_throughput(seconds: float, concurrency: int) -> dict:
    from faultline.store.load import load_into_db

    entries, qs = own_kb()
    texts = [q.text for q in qs if q.expected]
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "kb.db"
        load_into_db(REPO / "kb", db)
        proc, base = _start_service(db, REPO / "kb")
        try:
            lat: list[float] = []

            async def worker(client: httpx.AsyncClient, stop: float, k: int):
                i = k
                while time.perf_counter() < stop:
                    t0 = time.perf_counter()
                    r = await client.post("/match", content=texts[i % len(texts)].encode(),
                                          headers={"Content-Type": "text/plain"})
                    r.raise_for_status()
                    lat.append((time.perf_counter() - t0) * 1000)
                    i += concurrency

            async def main():
                async with httpx.AsyncClient(base_url=base, timeout=30) as client:
                    stop = time.perf_counter() + seconds
                    await asyncio.gather(*(worker(client, stop, k) for k in range(concurrency)))

            t0 = time.perf_counter()
            asyncio.run(main())
            took = time.perf_counter() - t0
            return {"concurrency": concurrency, "seconds": round(took, 1), "requests": len(lat),
                    "req_per_s": round(len(lat) / took, 1), "p50_ms": round(pct(lat, 50), 2),
                    "p99_ms": round(pct(lat, 99), 2), "rss_mb": _rss_mb(proc.pid)}
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def scaling(sizes: list[int], queries: int, seed: int) -> list[dict]:
    from faultline.store.load import write_entries

    rng = random.Random(seed)
    if peer_corpus_present():
        canons, entries, _ = peer_corpus(PEER_DATA / "canons.jsonl")
        lines = [q.text for q in signature_queries(canons)]
    else:  # no corpus copy: grow our own entries, queried with their own error texts
        entries, _ = own_kb()
        lines = [e.error_text.strip().splitlines()[-1] for e in entries]
    logs = [noisy_log(rng.choice(lines), rng) for _ in range(queries)]
    rows = []
    for n in sizes:
        corpus = grow(entries, n, seed)
        t0 = time.perf_counter()
        index = MatchIndex.build(corpus)
        build = time.perf_counter() - t0
        for t in logs[:20]:
            match_text(index, t)  # warm up
        times = []
        for t in logs:
            t0 = time.perf_counter()
            match_text(index, t)
            times.append((time.perf_counter() - t0) * 1000)
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "grown.db"
            write_entries(db, corpus, [], source=f"synthetic-{n}")
            proc, base = _start_service(db, REPO / "kb")
            try:
                httpx.post(f"{base}/match", content=logs[0].encode(), headers={"Content-Type": "text/plain"}, timeout=30)
                rss = _rss_mb(proc.pid)
            finally:
                proc.terminate()
                proc.wait(timeout=10)
        rows.append({"entries": n, "signatures": len(index.signatures), "index_build_s": round(build, 2),
                     "p50_ms": round(pct(times, 50), 3), "p99_ms": round(pct(times, 99), 3), "service_rss_mb": rss})
    base = rows[0]["p50_ms"]
    for r in rows:
        r["p50_ratio"] = round(r["p50_ms"] / base, 2)
    return rows


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = "unknown"
    try:
        mem = f"{int(Path('/proc/meminfo').read_text().split()[1]) // 1024 // 1024} GiB"
    except (OSError, ValueError, IndexError):
        pass
    return {"date": time.strftime("%Y-%m-%d"), "python": platform.python_version(), "cpu": cpu,
            "cores": os.cpu_count(), "memory": mem, "os": platform.platform()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench")
    ap.add_argument("--peer", type=Path, default=os.environ.get("DEADENDS_CHECKOUT"),
                    help="path to a checkout of github.com/dbwls99706/deadends.dev (optional)")
    ap.add_argument("--sample", type=int, default=300, help="noisy/short queries sampled from the peer's signatures")
    ap.add_argument("--sizes", default="2500,10000,25000")
    ap.add_argument("--scale-queries", type=int, default=200)
    ap.add_argument("--http-seconds", type=float, default=10.0)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="small samples, for a smoke run")
    ap.add_argument("--write", action="store_true",
                    help="rewrite docs/benchmarks.md and bench/results/latest.json (tracked files)")
    ap.add_argument("--out", type=Path, default=None,
                    help="write the report to this file and the raw figures beside it (.json); default: print it")
    args = ap.parse_args(argv)
    if args.write and args.out is None:
        args.out = REPO / "docs" / "benchmarks.md"
    if args.quick:
        args.sample, args.sizes, args.scale_queries, args.http_seconds = 40, "2500,5000", 30, 2.0
    peer = Path(args.peer) if args.peer else None
    results = {"machine": machine(), "peer_checkout": bool(peer), "peer_corpus": peer_corpus_present(),
               "scaling_base": "peer" if peer_corpus_present() else "own"}
    print("own examples ...", flush=True)
    results["own"] = own_examples()
    from faultline.matching.config import DEFAULT

    results["config"] = DEFAULT.id
    results["heldout"] = heldout()
    if results["peer_corpus"]:
        print("peer data ...", flush=True)
        results["peer"] = peer_data(peer, args.sample, args.seed)
    else:
        print(f"peer data: not measured (no corpus copy at {PEER_DATA}; set DEADENDS_CORPUS)", flush=True)
        results["peer"] = None
    print("http throughput ...", flush=True)
    results["http"] = http_throughput(args.http_seconds, args.concurrency)
    print("scaling ...", flush=True)
    results["scaling"] = scaling([int(x) for x in args.sizes.split(",")], args.scale_queries, args.seed)
    from bench.report import render, write_report

    if args.out is None:
        print(render(results))
        print("(nothing written; `--write` or `make bench-write` updates docs/benchmarks.md)")
        return 0
    raw = REPO / "bench" / "results" / "latest.json" if args.write else args.out.with_suffix(".json")
    raw.parent.mkdir(parents=True, exist_ok=True)
    raw.write_text(json.dumps(results, indent=2))
    write_report(results, args.out)
    print(f"wrote {args.out} and {raw}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
