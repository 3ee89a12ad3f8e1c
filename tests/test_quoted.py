"""An entry's message quoted inside a sentence, or retyped without its parenthesised details
(app/matching/quoted.py).  Forms from public reports named in each entry's seen_in."""
from __future__ import annotations

from pathlib import Path

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.matching.quoted import elide, quoted_spans
from faultline.render.match import match_text

KB = Path(__file__).resolve().parent.parent / "kb"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB, lenient=True).entries)


def test_spans_and_elision():
    assert quoted_spans('I get an “uncorrectable ECC error encountered” after 600 iteration') == \
        ["uncorrectable ECC error encountered"]
    assert quoted_spans('model = build(backbone="distilbert-base-uncased", dropout=0.2)') == []  # a name, not a message
    assert elide("DataLoader worker (pid(s) 4743, 4751) exited unexpectedly") == "DataLoader worker exited unexpectedly"


@pytest.mark.parametrize("text,expected", [
    ("uncorrectable ECC error encountered\nWhen I run the code, I get an “uncorrectable ECC error encountered” after "
     "600 iteration. And I have to restart my computer to rerun the code.", "pytorch/cuda-ecc-error"),
    ('Training crash with "uncorrectable ECC error" on one node', "pytorch/cuda-ecc-error"),
    ("RuntimeError: DataLoader worker exited unexpectedly", "pytorch/dataloader-worker-killed"),
    ("DataLoader worker exited unexpectedly.", "pytorch/dataloader-worker-killed"),
])
def test_a_quoted_or_retyped_message(index, text, expected):
    m = match_text(index, text)["matches"][0]
    assert m["id"] == expected
    assert m["confidence"] <= 0.55


@pytest.mark.parametrize("text", [
    'The log says "loss went up after the warmup" and then nothing',  # a quote no entry holds
    "My worker exited after the data was loaded",
    'model = build_classifier(backbone="distilbert-base-uncased", dropout=0.2, num_labels=3)',
])
def test_quotes_and_lines_no_entry_holds(index, text):
    assert match_text(index, text)["matches"] == [], text
