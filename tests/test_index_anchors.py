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


def _probe_cases(kb_index):
    """Every signature with its own examples, changed examples and other signatures' examples."""
    sigs = kb_index.signatures
    all_examples = [x for e in load_kb(KB).entries for s in e.signatures for x in s.examples]
    by_sig = {(e.id, s.name): s.examples for e in load_kb(KB).entries for s in e.signatures}
    for k, spec in enumerate(sigs):
        own = by_sig[(spec.entry_id, spec.name)]
        others = [all_examples[(k * 7 + j * 131) % len(all_examples)] for j in range(4)]
        changed = [x.upper() for x in own] + [x[1:-1] for x in own] + [x.replace(" ", "  ") for x in own]
        yield spec, own + others + changed + ["", "é" * 3 + "\udc80"]


def test_a_probe_says_yes_exactly_where_a_search_finds_the_pattern(kb_index):
    yes = no = 0
    for spec, texts in _probe_cases(kb_index):
        probe = index_mod.Probe(spec)
        rx = index_mod.compile_regex(spec.entry_id, spec.name, spec.pattern, spec.ignore_case)
        for t in texts:
            want = rx.search(t.encode("utf-8", "surrogatepass").decode("utf-8", "replace")) is not None
            if "\udc80" not in t:
                want = rx.search(t) is not None
            assert probe(t) == want, (spec.entry_id, spec.name, t)
            yes += want
            no += not want
    assert yes > 1000 and no > 1000


def test_a_probe_whose_dfa_gave_up_searches_instead(kb_index):
    spec = next(s for s in kb_index.signatures if s.entry_id == "pytorch/cuda-out-of-memory")
    probe = index_mod.Probe(spec)
    line = next(x for e in load_kb(KB).entries if e.id == spec.entry_id for s in e.signatures
                if s.name == spec.name for x in s.examples)
    assert probe(line)
    probe._match = lambda text: None  # what re2.Set.Match answers when its DFA runs out of memory: no index at all
    assert probe(line)
    assert not probe("a line about something else entirely")


def test_the_related_list_is_the_best_few_of_every_entry_sorted(kb_index):
    """MatchIndex.similar picks its best few without sorting every candidate: it must give what a full sort of
    every entry's cosine (ties: the greater id first) gives, exclusions and limits included."""
    import math
    import random

    from faultline.matching.mask import tokens

    rng = random.Random(3)
    words = [x for e in load_kb(KB).entries for s in e.signatures for x in s.examples]
    checked = 0
    for _ in range(200):
        q = " ".join(rng.sample(" ".join(rng.sample(words, 4)).split(), k=rng.randint(1, 12)))
        limit, exclude = rng.choice([1, 3, 5, 40]), set(rng.sample(kb_index.entry_ids, rng.randint(0, 2)))
        qw = {t: kb_index.idf[t] for t in set(tokens(q)) if t in kb_index.idf}
        qn = math.sqrt(sum(v * v for v in qw.values())) or 1.0
        every = []
        for k, eid in enumerate(kb_index.entry_ids):
            s = 0.0
            for t, w in qw.items():
                if k in kb_index.postings[t]:
                    s += w * w
            if s:
                every.append((s / (qn * kb_index._norm[k]), eid))
        every.sort(reverse=True)
        want = [(eid, round(v, 3)) for v, eid in every if eid not in exclude][:limit]
        assert kb_index.similar(q, limit=limit, exclude=exclude or None) == want, q
        checked += len(want)
    assert checked > 300
