"""`make bench-write` rewrites docs/benchmarks.md from the measured figures: the sections it does not write (the
adversarial pastes, the big job, notes by hand, each between `<!-- NAME:start -->` and `<!-- NAME:end -->`) must
survive it, once each, in their order."""
from __future__ import annotations

import json
from pathlib import Path

from bench.report import write_report

REPO = Path(__file__).resolve().parent.parent


def test_a_rewrite_keeps_the_sections_it_does_not_write(tmp_path):
    results = json.loads((REPO / "bench" / "results" / "latest.json").read_text())
    out = tmp_path / "benchmarks.md"
    out.write_text("# Benchmarks\n\nold figures\n\n<!-- notes:start -->\n\n### By hand\n\nkept text\n\n<!-- notes:end -->\n\n"
                   "<!-- bigjob:start -->\n\n## A whole job\n\nrow\n\n<!-- bigjob:end -->\n")
    for _ in range(2):
        write_report(results, out)
        text = out.read_text()
        assert "old figures" not in text and "## Targets" in text
        assert text.count("kept text") == 1 and text.count("## A whole job") == 1
        assert text.index("## Targets") < text.index("### By hand") < text.index("## A whole job")
        assert text.count("<!-- heldout:start -->") <= 1


def test_the_checked_in_report_holds_every_section():
    text = (REPO / "docs" / "benchmarks.md").read_text()
    for name in ("notes", "adversarial", "bigjob"):
        assert text.count(f"<!-- {name}:start -->") == 1 and text.count(f"<!-- {name}:end -->") == 1
