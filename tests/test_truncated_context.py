"""A pasted line cut short is matched by the entry whose message contains it, but only where the entry's
own signatures would be allowed to match: words they need somewhere in the log (``context``) are needed
for the cut paste too."""
from __future__ import annotations

from faultline.entry import Entry
from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from tests.conftest import KB


def _entry(context: list[str]) -> Entry:
    base = load_kb(KB).entries[0].model_dump()
    base.update(id="testlib/needs-context", error_text="OSError: [Errno 28] No space left on device while saving the shards",
                signatures=[{"name": "nospace", "pattern": r"No space left on device while saving the shards",
                             "examples": ["OSError: [Errno 28] No space left on device while saving the shards"],
                             "versions": "all", "context": context}], related=[], leads_to=[])
    return Entry.model_validate(base)


def test_a_cut_paste_needs_the_context_its_entry_needs():
    cut = "OSError: [Errno 28] No space left on device while sav"
    without = MatchIndex.build([_entry(["torch.save", "save_pretrained"])])
    assert match_text(without, cut)["matches"] == []
    assert match_text(without, "model.save_pretrained(out)\n" + cut)["matches"][0]["id"] == "testlib/needs-context"
    free = MatchIndex.build([_entry([])])
    assert match_text(free, cut)["matches"][0]["id"] == "testlib/needs-context"
