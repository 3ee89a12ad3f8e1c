"""Outcome reports per second over HTTP, on SQLite and on PostgreSQL: `python -m bench.reports`.

Starts `faultline serve` on a fresh database holding kb/, gives each of C concurrent reporters
its own token, and has them post distinct reports (201s) for D seconds; prints and writes
bench/results/reports-<date>.json with the machine and the date.

    python -m bench.reports [--concurrency 16] [--seconds 10] [--workers 2]
                            [--pg postgresql+psycopg://postgres@127.0.0.1:5432/test]
"""
from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
KB = REPO / "kb"


def _port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pg_target(url: str) -> tuple[str, callable]:
    import sqlalchemy as sa

    schema = "fl_bench_" + uuid.uuid4().hex[:10]
    admin = sa.create_engine(url)
    with admin.begin() as c:
        c.execute(sa.text(f'CREATE SCHEMA "{schema}"'))

    def drop():
        with admin.begin() as c:
            c.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()

    return f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3D{schema}", drop


def run_one(target: str, concurrency: int, seconds: float, workers: int) -> dict:
    from faultline.store.load import load_into_db, read_db
    from faultline.store.written import WrittenStore

    load_into_db(KB, target)
    entries, _, _ = read_db(target)
    work = [(e.id, i) for e in entries for i in range(1, len(e.workarounds) + 1)]
    store = WrittenStore.open(target)
    tokens = [store.create_token("report", f"bench-{i}")[1] for i in range(concurrency)]
    port = _port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "FAULTLINE_REPORTS_PER_MINUTE": "1000000"}
    env.pop("FAULTLINE_INBOX", None)
    proc = subprocess.Popen([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "serve", "--db", target,
                             "--port", str(port), "--workers", str(workers)], cwd=REPO, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    created, errors, latencies = [0], [0], []
    lock = threading.Lock()
    try:
        for _ in range(600):
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("the service did not start")
        start = time.monotonic()
        end = start + seconds

        def reporter(tok: str, offset: int):
            with httpx.Client(base_url=base, timeout=30) as c:
                n = 0
                while time.monotonic() < end and n < len(work):
                    eid, idx = work[(offset + n) % len(work)]
                    n += 1
                    t0 = time.perf_counter()
                    try:
                        r = c.post(f"/errors/{eid}/outcomes", json={"workaround": idx, "worked": n % 2 == 0},
                                   headers={"Authorization": f"Bearer {tok}"})
                        ok = r.status_code == 201
                    except httpx.HTTPError:
                        ok = False
                    with lock:
                        if ok:
                            created[0] += 1
                            latencies.append(time.perf_counter() - t0)
                        else:
                            errors[0] += 1

        threads = [threading.Thread(target=reporter, args=(t, i * 7)) for i, t in enumerate(tokens)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - start
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
    stored = len(store.report_ids())
    store.close()
    latencies.sort()
    return {
        "reports_per_s": round(created[0] / elapsed, 1),
        "created": created[0],
        "stored": stored,
        "errors": errors[0],
        "seconds": round(elapsed, 2),
        "p50_ms": round(latencies[len(latencies) // 2] * 1000, 1) if latencies else None,
        "p99_ms": round(latencies[int(len(latencies) * 0.99)] * 1000, 1) if latencies else None,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pg", default=os.environ.get("FAULTLINE_TEST_PG",
                                                   "postgresql+psycopg://postgres@127.0.0.1:5432/test"))
    args = ap.parse_args(argv)
    out = {
        "date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": {"platform": platform.platform(), "python": platform.python_version(),
                    "cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
        "concurrency": args.concurrency, "workers": args.workers, "results": {},
    }
    with tempfile.TemporaryDirectory() as tmp:
        out["results"]["sqlite"] = run_one(str(Path(tmp) / "bench.db"), args.concurrency, args.seconds, args.workers)
    try:
        target, drop = _pg_target(args.pg)
    except Exception as exc:  # noqa: BLE001 - report and go on with what we have
        out["results"]["postgresql"] = {"skipped": f"PostgreSQL does not answer: {exc}"}
    else:
        try:
            out["results"]["postgresql"] = run_one(target, args.concurrency, args.seconds, args.workers)
        finally:
            drop()
    print(json.dumps(out, indent=2))
    dest = REPO / "bench" / "results" / f"reports-{out['date'][:10]}.json"
    dest.write_text(json.dumps(out, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
