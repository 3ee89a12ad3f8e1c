"""The match result carries reasons as codes; every edge (API, pages, CLI) says them in the reader's language."""
from __future__ import annotations

import html
import re
import subprocess
import sys

import pytest

from faultline.i18n.reasons import MESSAGES
from faultline.kbfiles import load_kb
from faultline.matching.config import DEFAULT
from faultline.matching.index import MatchIndex
from faultline.matching.rank import match
from tests.conftest import KB, SEED_LINE

CJK = re.compile(r"[\u4e00-\u9fff]")
EX = KB / "examples"
OOM_THEN_TIMEOUTS = EX / "pytorch/cuda-out-of-memory/ddp-8gpu-rank3-oom-then-watchdog-timeouts.composed.log"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


def test_the_result_has_no_language_in_it(index):
    res = match(index, OOM_THEN_TIMEOUTS.read_text())
    assert res.config == DEFAULT.id
    folded = [c.match for m in res.matches for c in m.consequences]  # the timeouts, under the OOM
    codes = {r.code for m in res.matches + folded for r in m.why}
    assert {"signature_matched", "explains_root_cause", "consequence_elsewhere"} <= codes
    assert {c.reason.code for m in res.matches for c in m.consequences} == {"symptom_of_cause", "wrapper_of_cause"}
    for m in res.matches + folded:
        for r in m.why + [c.reason for c in m.consequences]:
            assert r.code in MESSAGES and all(not isinstance(v, str) or not CJK.search(v) for v in r.params.values())
            # parameters are data (names, numbers), not sentences
            assert all(not isinstance(v, str) or " " not in v for v in r.params.values()), r


def test_every_reason_code_the_examples_produce_has_a_message(index):
    seen: set[str] = set()
    for path in sorted(EX.rglob("*.log"))[:120]:
        res = match(index, path.read_text(errors="replace"), environment={"torch": "1.12.1"})
        seen |= {r.code for m in res.matches for r in m.why} | {r.reason.code for r in res.related}
    assert len(seen) >= 5
    assert seen <= set(MESSAGES), seen - set(MESSAGES)


def test_api_reasons_in_chinese_and_english(client):
    log = OOM_THEN_TIMEOUTS.read_text()
    zh = client.post("/match?lang=zh", content=log, headers={"Content-Type": "text/plain"}).json()
    en = client.post("/match", json={"text": log, "lang": "en"}).json()
    assert zh["config"] == en["config"] == DEFAULT.id
    for z, e in zip(zh["matches"], en["matches"]):
        assert [w["code"] for w in z["why"]] == [w["code"] for w in e["why"]]
        for wz, we in zip(z["why"], e["why"]):
            assert CJK.search(wz["text"]), wz
            assert not CJK.search(we["text"]) and we["text"], we
    cookie_less = client.post("/match", json={"text": SEED_LINE, "lang": "zh", "environment": "torch==1.8.0"}).json()
    assert cookie_less["matches"] and all(CJK.search(w["text"]) for m in cookie_less["matches"] for w in m["why"])


def test_results_page_shows_reasons_in_chinese(client):
    r = client.post("/results", data={"text": OOM_THEN_TIMEOUTS.read_text(), "lang": "zh"},
                    headers={"Accept": "text/html"})
    assert r.status_code == 200
    body = html.unescape(r.text)
    why = re.findall(r'<details class="why">(.*?)</details>', body, re.S)
    assert why, body[:500]
    items = [i for block in why for i in re.findall(r"<li>(.*?)</li>", block, re.S)]
    assert items and all(CJK.search(i) for i in items), items[:3]
    assert "特征签名" in body and "根本原因" in body


def test_cli_reasons_in_chinese(tmp_path, kb_db):
    log = tmp_path / "train.log"
    log.write_text(OOM_THEN_TIMEOUTS.read_text())
    r = subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "match", "--db", str(kb_db), "--lang", "zh",
                        str(log)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    reasons = [ln.strip()[2:] for ln in r.stdout.splitlines() if ln.startswith("   - ")]
    assert reasons and all(CJK.search(x) for x in reasons), r.stdout[:800]


def test_results_page_says_when_no_entry_knows_the_first_failure(client):
    log = ("Traceback (most recent call last):\n"
           '  File "/home/ana/proj/metrics.py", line 14, in f1\n'
           "    return 2 * p * r / (p + r)\n"
           "ZeroDivisionError: float division by zero\n")
    for lang, words in (("en", "raised in your code"), ("zh", "在你的代码中抛出")):
        r = client.post("/results", data={"text": log, "lang": lang}, headers={"Accept": "text/html"})
        body = html.unescape(r.text)
        assert r.status_code == 200 and words in body and "metrics.py" in body, lang
