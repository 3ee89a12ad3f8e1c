"""HTTP throughput of the real service: `python -m bench.throughput [--seconds 20] [--workers 2]`.

Starts `faultline serve --workers N` on a loopback port and loads it with wrk (Debian's `wrk`):
- POST /match with 150-line logs, 16 connections; every request body differs from the one before
  (40 logs, each a different known error inside a noisy training log with rank prefixes and perturbed
  numbers), so the work is matching, not a cache;
- GET /healthz at the same time on one connection, and alone before, to show what the load does to it;
- GET /errors pages of a 25,000-entry database (synthetic entries grown from kb/), page after page.
Writes docs/benchmarks-http.md and bench/results/http.json with the machine and the date.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from faultline.store.load import load_into_db, write_entries
from bench.corpus import REPO, grow, noisy_log, own_kb

WRK_SCRIPT = """
local bodies = {}
local n = 0
local i = 0
init = function(args)
  for _, path in ipairs(args) do
    local f = assert(io.open(path, "rb")); n = n + 1; bodies[n] = f:read("*all"); f:close()
  end
  i = math.random(n)
end
request = function()
  i = i % n + 1
  return wrk.format("POST", "/match", {["Content-Type"] = "text/plain"}, bodies[i])
end
"""
PAGES_SCRIPT = """
local i = 0
request = function()
  i = i % 1250 + 1
  return wrk.format("GET", "/errors?page=" .. i .. "&per_page=20")
end
"""


def machine() -> dict:
    from bench.__main__ import machine as m  # one definition of "the machine"

    return m()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, db: Path, workers: int):
        self.port = _free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "faultline.cli", "--kb", str(REPO / "kb"), "serve", "--db", str(db), "--host",
             "127.0.0.1", "--port", str(self.port), "--workers", str(workers)],
            cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                time.sleep(0.3)
        else:
            self.stop()
            raise RuntimeError("the service did not start")
        time.sleep(2 * workers)  # let every worker finish its start-up

    def stop(self) -> None:
        import signal

        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=30)


_UNITS = {"us": 1e-3, "ms": 1.0, "s": 1000.0}


def _ms(text: str) -> float:
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    return float(m.group(1)) * _UNITS[m.group(2)] if m else float("nan")


def wrk(url: str, seconds: float, connections: int, threads: int, script: str | None = None,
        args: list[str] | None = None) -> dict:
    cmd = ["wrk", f"-t{threads}", f"-c{connections}", f"-d{int(seconds)}s", "--latency", "--timeout", "10s"]
    tmp = None
    if script:
        tmp = tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False)
        tmp.write(script)
        tmp.close()
        cmd += ["-s", tmp.name]
    cmd.append(url)
    if args:
        cmd += ["--", *args]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=seconds + 60).stdout
    if tmp:
        os.unlink(tmp.name)
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = {p: _ms(v) for p, v in re.findall(r"^\s+(50|75|90|99)%\s+(\S+)", out, re.M)}
    non2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    return {"rps": rps, "p50_ms": lat.get("50"), "p90_ms": lat.get("90"), "p99_ms": lat.get("99"),
            "non_2xx": int(non2xx.group(1)) if non2xx else 0, "socket_errors": errors.group(1) if errors else None}


def bodies(n: int, seed: int) -> list[str]:
    """n different 150-line logs, each with another known error line."""
    rng = random.Random(seed)
    entries, _ = own_kb()
    lines = [ex for e in entries for s in e.signatures for ex in s.examples]
    rng.shuffle(lines)
    return [noisy_log(lines[i % len(lines)], rng, lines=150, ranks=True) for i in range(n)]


def big_db(path: Path, size: int) -> None:
    entries, _ = own_kb()
    write_entries(path, grow(entries, size), [])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.throughput")
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--connections", type=int, default=16)
    ap.add_argument("--out", default=str(REPO / "docs" / "benchmarks-http.md"))
    args = ap.parse_args(argv)
    if not shutil.which("wrk"):
        print("bench.throughput: needs wrk (apt-get install wrk)", file=sys.stderr)
        return 2
    res: dict = {"machine": machine(), "date": time.strftime("%Y-%m-%d"), "workers": args.workers,
                 "connections": args.connections, "seconds": args.seconds}
    with tempfile.TemporaryDirectory(prefix="fl-bench-http-") as tmp:
        tmp_path = Path(tmp)
        db = tmp_path / "kb.db"
        load_into_db(REPO / "kb", db)
        files = []
        for i, text in enumerate(bodies(40, seed=11)):
            p = tmp_path / f"log{i}.txt"
            p.write_text(text)
            files.append(str(p))
        srv = Server(db, args.workers)
        try:
            res["healthz_idle"] = wrk(srv.base + "/healthz", 5, 1, 1)
            # /match under load, and /healthz probed at the same time
            probe = subprocess.Popen([sys.executable, "-c", _PROBE, srv.base + "/healthz", str(args.seconds)],
                                     stdout=subprocess.PIPE, text=True)
            res["match"] = wrk(srv.base, args.seconds, args.connections, 2, WRK_SCRIPT, files)
            res["healthz_under_load"] = json.loads(probe.communicate(timeout=120)[0])
        finally:
            srv.stop()
        big = tmp_path / "big.db"
        big_db(big, 25_000)
        srv = Server(big, args.workers)
        try:
            res["errors_25k"] = wrk(srv.base, 10, 4, 2, PAGES_SCRIPT)
            res["errors_25k"]["entries"] = httpx.get(srv.base + "/healthz").json()["entries"]
        finally:
            srv.stop()
    res["healthz_p99_ratio"] = round(res["healthz_under_load"]["p99_ms"] / max(res["healthz_idle"]["p99_ms"], 1e-3), 1)
    out = Path(args.out)
    (REPO / "bench" / "results").mkdir(exist_ok=True)
    (REPO / "bench" / "results" / "http.json").write_text(json.dumps(res, indent=2) + "\n")
    out.write_text(report(res))
    print(report(res))
    return 0


# a bounded client that asks /healthz every 50 ms during the load and prints its latencies
_PROBE = r"""
import json, sys, time, statistics, httpx
url, seconds = sys.argv[1], float(sys.argv[2])
lat = []
end = time.monotonic() + seconds
with httpx.Client(timeout=10) as c:
    time.sleep(1.0)
    while time.monotonic() < end - 0.5:
        t = time.perf_counter(); c.get(url); lat.append((time.perf_counter() - t) * 1000); time.sleep(0.05)
lat.sort()
q = lambda p: lat[min(len(lat) - 1, int(round(p / 100 * (len(lat) - 1))))]
print(json.dumps({"n": len(lat), "p50_ms": round(q(50), 2), "p99_ms": round(q(99), 2), "max_ms": round(lat[-1], 2)}))
"""


def report(r: dict) -> str:
    m = r["machine"]
    mt, hz, hi, er = r["match"], r["healthz_under_load"], r["healthz_idle"], r["errors_25k"]
    target_rps, target_p99 = 1000, 50
    return "\n".join([
        "# HTTP throughput",
        "",
        f"Measured {r['date']} on {m.get('cpu', '?')} ({m.get('cores', '?')} cores), Python {m.get('python', '?')}, "
        f"`faultline serve --workers {r['workers']}`, load from wrk on the same machine (it shares the cores).",
        "Regenerate with `python -m bench.throughput` (needs `wrk`). Raw figures: `bench/results/http.json`.",
        "",
        "| what | connections | req/s | p50 ms | p90 ms | p99 ms | non-2xx |",
        "| --- | --- | --- | --- | --- | --- | --- |",
        f"| POST /match, 40 different 150-line logs in turn | {r['connections']} | {mt['rps']:.0f} | {mt['p50_ms']:.2f} | "
        f"{mt['p90_ms']:.2f} | {mt['p99_ms']:.2f} | {mt['non_2xx']} |",
        f"| GET /healthz alone | 1 | {hi['rps']:.0f} | {hi['p50_ms']:.2f} | {hi['p90_ms']:.2f} | {hi['p99_ms']:.2f} | {hi['non_2xx']} |",
        f"| GET /errors pages at {er['entries']} entries | 4 | {er['rps']:.0f} | {er['p50_ms']:.2f} | {er['p90_ms']:.2f} | "
        f"{er['p99_ms']:.2f} | {er['non_2xx']} |",
        "",
        f"GET /healthz asked every 50 ms during the /match load: p50 {hz['p50_ms']} ms, p99 {hz['p99_ms']} ms, max "
        f"{hz['max_ms']} ms ({hz['n']} requests); its p99 is {r['healthz_p99_ratio']}x its p99 without load.",
        "",
        f"Target: POST /match >= {target_rps} req/s with p99 <= {target_p99} ms at 16 connections on 2 cores: "
        f"{'met' if mt['rps'] >= target_rps and mt['p99_ms'] <= target_p99 else 'not met'} "
        f"({mt['rps']:.0f} req/s, p99 {mt['p99_ms']:.1f} ms). "
        f"/errors at 25k entries p50 <= 20 ms: {'met' if er['p50_ms'] <= 20 else 'not met'}.",
        "",
    ])


if __name__ == "__main__":
    sys.exit(main())
