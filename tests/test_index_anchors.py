"""The anchors of the match index are found by an RE2 Set; where that DFA gives up, the Aho-Corasick
automaton answers.  Both must give every example log of the KB the same hits, and a Set that gave up
must never read as "no anchor in this text"."""
from __future__ import annotations

import re2
import pytest

from faultline.kbfiles import examples, load_kb
from faultline.matching import index as index_mod
from faultline.matching.index import MatchIndex
from faultline.matching.logparse import parse_log
from tests.conftest import KB


@pytest.fixture(scope="module")
def kb_index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


def _hits(index: MatchIndex, text: str) -> list[tuple[str, str, int]]:
    return sorted((h.sig.entry_id, h.sig.name, h.line.no) for h in index.hits(parse_log(text)))


def test_the_set_and_the_automaton_find_the_same_hits_in_every_example(kb_index):
    fallback = MatchIndex.build(load_kb(KB).entries, validate=False)
    fallback._anchor_set = None  # as if the DFA had given up on every text
    assert kb_index.automaton is None  # never needed so far: not built
    n = 0
    for ex in examples(KB):
        text = ex.read()
        assert _hits(kb_index, text) == _hits(fallback, text), ex.path
        n += 1
    assert n > 1000 and fallback.automaton is not None


def test_a_set_that_matched_names_its_sentinel_even_in_a_text_without_anchors(kb_index):
    found = kb_index._anchor_set.Match("nothing a signature insists on")
    assert found == [len(kb_index._anchors)]
    assert kb_index._anchor_starts("nothing a signature insists on") == []


def test_a_set_whose_dfa_gives_up_is_not_taken_for_no_match(kb_index, monkeypatch):
    class GaveUp:  # what RE2::Set::Match answers when its DFA runs out of memory: no index at all
        def Match(self, text):
            return None

    text = "RuntimeError: CUDA error: out of memory"
    want = kb_index._anchor_starts(text)
    assert want
    monkeypatch.setattr(kb_index, "_anchor_set", GaveUp())
    assert sorted(kb_index._anchor_starts(text)) == sorted(want)


def test_literals_with_regex_syntax_are_matched_as_text():
    rset = index_mod._literal_set(["a.b", "(x)", "c[d]"])
    assert rset.Match("axb") == [3]
    assert sorted(rset.Match("a.b (x) c[d]")) == [0, 1, 2, 3]
    assert isinstance(rset, re2.Set)
