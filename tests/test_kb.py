"""The knowledge base checks itself: `faultline lint` in strict mode, content minimums."""
from __future__ import annotations

import re

from faultline.kbfiles import examples, load_kb
from faultline.lint import lint
from tests.conftest import KB, REPO

CANONICAL = REPO / "kb" / "canonical-ids.txt"


def test_lint_passes_on_the_shipped_kb():
    rep = lint(KB, strict=True)
    assert rep.ok, "\n".join(rep.errors)
    assert rep.checked_examples >= 3 * rep.entries
    assert rep.checked_negatives >= 20


def test_every_canonical_id_ships():
    ids = {e.id for e in load_kb(KB).entries}
    wanted = [ln.strip() for ln in CANONICAL.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
    assert len(wanted) == 42
    missing = [i for i in wanted if i not in ids]
    assert not missing, missing


def test_examples_are_varied_and_marked():
    by_entry: dict[str, list] = {}
    for ex in examples(KB):
        if ex.entry_id:
            by_entry.setdefault(ex.entry_id, []).append(ex)
    for eid, exs in by_entry.items():
        assert all(re.search(r"\.(real|composed)\.log$", e.path.name) for e in exs), eid
        lengths = sorted(len(e.read().splitlines()) for e in exs)
        assert lengths[0] < lengths[-1], f"{eid}: examples all have the same length"


def test_no_machine_paths_in_examples():
    for ex in examples(KB):
        text = ex.read()
        for leak in (str(REPO), ".venv-gen", "fl-gen-", "python-build."):  # the checkout, generator temp dirs
            assert leak not in text, (ex.path, leak)


def test_no_entry_was_written_from_a_blind_report():
    """The blind set measures recall on threads nobody writing an entry has read: an entry that lists one
    of them in seen_in must be declared in the set's manifest (read_for_entry), so the figure says so."""
    import json
    manifest = json.loads((REPO / "bench" / "blind" / "manifest.json").read_text())
    declared = {row["url"] for row in manifest.values() if row.get("read_for_entry")}
    blind = {row["url"] for row in manifest.values()} - declared
    cited = {(e.id, u) for e in load_kb(KB).entries for u in e.seen_in if u.rstrip("/") in blind}
    assert not cited, f"entries cite blind reports' threads: {sorted(cited)}"
