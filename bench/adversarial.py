"""Adversarial pastes of about 1 MiB through the whole matcher: `.venv/bin/python -m bench.adversarial [--markdown DOC]`.

The shapes of the reliability review (D2: `WorkNCCL(` lines full of `[PG `, ANSI OSC strings without an end) and
the new paste forms (rich boxes, frames-only pastes, runner prefixes, one huge line) must stay linear: the
target is under 100 ms per MiB. Each figure is the best of three runs, in milliseconds per MiB of input.
"""
from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.matching.rank import match
from bench.heldout import REPO

START, END = "<!-- adversarial:start -->", "<!-- adversarial:end -->"


def cases() -> dict[str, str]:
    return {
        "baseline: an ordinary log, 25k lines": "[rank0]: step 1200 loss 2.3104 lr 1.0e-4 grad_norm 0.83 tokens/s 5120\n" * 14000,
        "D2: `WorkNCCL(` + `[PG ` x980 per line": ("WorkNCCL(SeqNum=1, OpType=ALLREDUCE " + "[PG " * 980 + "\n") * 262,
        "D2: ANSI OSC `\\x1b]` x2000 per line": ("\x1b]" * 2000 + "\n") * 260,
        "`[PG ` x1000 then `Rank 1`": ("[PG " * 1000 + "Rank 1" + "\n") * 250,
        "`a.` x2000 per line": ("a." * 2000 + "\n") * 260,
        "one 1 MiB line, an error at its end": "x" * (1 << 20) + " torch.OutOfMemoryError: CUDA out of memory.",
        "`Traceback` headers x29k": "Traceback (most recent call last):\n" * 29000,
        "rich box tops x6k": ("╭" + "─" * 20 + " Traceback (most recent call last) " + "─" * 20 + "╮\n") * 6000,
        "frames and `raise` lines x15k": ('  File "/a/b.py", line 1, in f\n' + "    raise ValueError('x')\n") * 15000,
        "Ray `(pid=` prefix, one line": "(" + "pid=1, " * 140000 + "\n",
        "`ERROR:root:` x300 per line": ("ERROR:root:" * 300 + "\n") * 300,
        "`process 1 terminated with ` x150 per line": ("process 1 terminated with " * 150 + "\n") * 270,
    }


def measure(index: MatchIndex) -> list[dict]:
    out = []
    for name, text in cases().items():
        mib = len(text.encode()) / (1 << 20)
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            match(index, text)
            best = min(best, time.perf_counter() - t0)
        out.append({"case": name, "mib": round(mib, 2), "ms_per_mib": round(best * 1000 / mib, 1)})
    return out


def markdown(rows: list[dict], when: str) -> str:
    L = [START, "", "## Adversarial pastes (linear time)", "",
         f"Measured {when} on {platform.processor() or platform.machine()}, Python {platform.python_version()}, "
         "a shared machine (other jobs running: compare with the target, not between runs). "
         "`python -m bench.adversarial`. Target: under 100 ms per MiB. The last column divides by the first row "
         "(an ordinary log of the same size), which the machine's load affects in the same way.", "",
         "| input | MiB | ms per MiB | x ordinary log |", "| --- | --- | --- | --- |"]
    base = rows[0]["ms_per_mib"] or 1.0
    L += [f"| {r['case']} | {r['mib']} | {r['ms_per_mib']} | {r['ms_per_mib'] / base:.1f} |" for r in rows]
    L += ["", END]
    return "\n".join(L)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.adversarial")
    ap.add_argument("--kb", type=Path, default=REPO / "kb")
    ap.add_argument("--markdown", type=Path, help="write the section into this file (e.g. docs/benchmarks.md)")
    args = ap.parse_args(argv)
    index = MatchIndex.build(load_kb(str(args.kb), lenient=True).entries)
    rows = measure(index)
    for r in rows:
        print(f"{r['case']:<48} {r['mib']:>5} MiB {r['ms_per_mib']:>8} ms/MiB")
    if args.markdown:
        from bench.heldout import write_section

        write_section(args.markdown, markdown(rows, time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())),
                      START, END)
    return 0


if __name__ == "__main__":
    sys.exit(main())
