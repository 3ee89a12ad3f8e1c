"""In-process p50 on 150-line logs, this checkout against another one, side by side in one run.

    python -m bench.compare OLD_CHECKOUT [--rounds 5] [--logs 300]

OLD_CHECKOUT is a work tree of an older commit (e.g. `git worktree add ../old <commit>`). Each round
builds the same noisy 150-line logs (bench.corpus.noisy_log, one seed per round, error lines taken
from the OLD checkout's own signature examples so both match the same texts) and times every match
in a fresh process of each checkout, alternating old and new, so a busy machine weighs on both.
Prints the medians per round and the median of their ratios.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_CHILD = r"""
import json, random, statistics, sys, time
root, seed, lines_file, here = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
sys.path.insert(0, root)
import importlib.util, os
_app = os.path.join(sys.argv[1], "app")
if not os.path.isdir(os.path.join(sys.argv[1], "faultline")) and os.path.isfile(os.path.join(_app, "__init__.py")):
    # the import name is faultline, the folder app/ (pyproject.toml maps them): an installed editable
    # package would otherwise resolve faultline to the current tree, for the old checkout too
    _spec = importlib.util.spec_from_file_location("faultline", os.path.join(_app, "__init__.py"),
                                                   submodule_search_locations=[_app])
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["faultline"] = _mod
    _spec.loader.exec_module(_mod)
from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
sys.path.append(here)
from bench.corpus import noisy_log
index = MatchIndex.build(load_kb(root + "/kb", lenient=True).entries)
rng = random.Random(seed)
logs = [noisy_log(line, rng) for line in json.load(open(lines_file))]
for t in logs[:20]:
    match_text(index, t, limit=10)
times = []
for t in logs:
    t0 = time.perf_counter()
    match_text(index, t, limit=10)
    times.append((time.perf_counter() - t0) * 1000)
print(statistics.median(times))
"""

_LINES = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import importlib.util, os
_app = os.path.join(sys.argv[1], "app")
if not os.path.isdir(os.path.join(sys.argv[1], "faultline")) and os.path.isfile(os.path.join(_app, "__init__.py")):
    # the import name is faultline, the folder app/ (pyproject.toml maps them): an installed editable
    # package would otherwise resolve faultline to the current tree, for the old checkout too
    _spec = importlib.util.spec_from_file_location("faultline", os.path.join(_app, "__init__.py"),
                                                   submodule_search_locations=[_app])
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules["faultline"] = _mod
    _spec.loader.exec_module(_mod)
from faultline.kbfiles import load_kb
es = load_kb(sys.argv[1] + "/kb", lenient=True).entries
json.dump([s.examples[0] for e in es for s in e.signatures][: int(sys.argv[2])], open(sys.argv[3], "w"))
"""


def _run(code: str, cwd: Path, *args: str) -> str:
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True, text=True,
                          check=True, timeout=600).stdout.strip()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.compare")
    ap.add_argument("old", type=Path, help="a checkout of the older code (with its kb/)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--logs", type=int, default=300)
    args = ap.parse_args(argv)
    old = args.old.resolve()
    with tempfile.TemporaryDirectory() as tmp:
        lines = str(Path(tmp) / "lines.json")
        _run(_LINES, old, str(old), str(args.logs), lines)
        ratios = []
        for seed in range(1, args.rounds + 1):
            o = float(_run(_CHILD, old, str(old), str(seed), lines, str(REPO)))
            n = float(_run(_CHILD, REPO, str(REPO), str(seed), lines, str(REPO)))
            ratios.append(n / o)
            print(f"round {seed}: p50 old {o:.3f} ms, new {n:.3f} ms, new/old {n / o:.2f}")
    print(json.dumps({"median_ratio": round(statistics.median(ratios), 3), "rounds": args.rounds,
                      "logs": args.logs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
