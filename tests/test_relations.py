"""The ranker uses the KB's relations: benign lines are never the cause, a warning never outranks the
exception that ended the run unless the KB says that it leads to it, and ``leads_to`` orders cause
before consequence.  The entries are the real KB's, given the relation under test."""
from __future__ import annotations

import pytest

from faultline.entry import Signature
from faultline.kbfiles import load_kb
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from tests.conftest import KB

OOM_ID = "pytorch/cuda-out-of-memory"
TIMEOUT_ID = "pytorch/nccl-timeout-allreduce"
WARN_ID = "pytorch/test-grad-accum-warning"
BENIGN_ID = "transformers/test-tokenizers-fork-warning"

WARNING = ("/opt/conda/lib/python3.11/site-packages/torch/autograd/graph.py:825: UserWarning: "
           "Grad strides do not match bucket view strides. This may indicate grad was not created according to "
           "the gradient layout contract")
FORK = ("huggingface/tokenizers: The current process just got forked, after parallelism has already been used. "
        "Disabling parallelism to avoid deadlocks...")
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "79.15 GiB of which 1.06 GiB is free.")
TIMEOUT = ("[rank1]:[E1202 11:49:40.000000000 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective "
           "operation timeout: WorkNCCL(SeqNum=4041, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
           "ran for 600012 milliseconds before timing out.")

LOG = f"""\
[rank0]:{FORK}
[rank0]:{WARNING}
[rank0]:Traceback (most recent call last):
[rank0]:  File "/workspace/train.py", line 40, in <module>
[rank0]:    loss.backward()
[rank0]:{OOM}
{TIMEOUT}
"""


def _kb(leads: dict[str, list[str]] | None = None):
    entries = {e.id: e for e in load_kb(KB).entries}
    oom = entries[OOM_ID]
    warn = oom.model_copy(update={
        "id": WARN_ID, "role": "cause", "related": [],
        "signatures": [Signature(name="grad-strides-warning",
                                 pattern=r"UserWarning: Grad strides do not match bucket view strides",
                                 examples=[WARNING])],
    })
    benign = oom.model_copy(update={
        "id": BENIGN_ID, "role": "benign", "related": [],
        "signatures": [Signature(name="tokenizers-fork", pattern=r"huggingface/tokenizers: The current process just got forked",
                                 examples=[FORK])],
    })
    entries[WARN_ID], entries[BENIGN_ID] = warn, benign
    for eid, targets in (leads or {}).items():
        entries[eid] = entries[eid].model_copy(update={"leads_to": targets})
    return MatchIndex.build(list(entries.values()))


@pytest.fixture(scope="module")
def plain() -> MatchIndex:
    return _kb()


def test_benign_lines_are_listed_apart_and_never_the_cause(plain):
    res = match_text(plain, LOG)
    ids = [m["id"] for m in res["matches"]] + [r["id"] for r in res["related"]]
    assert BENIGN_ID not in ids
    assert (BENIGN_ID, 1, 0) in [(b["id"], b["line_no"], b["rank"]) for b in res["benign"]]
    assert res["root_cause"]["line_no"] != 1
    # a paste of the benign line alone has no cause and no match
    alone = match_text(plain, f"[rank0]:{FORK}\n")
    assert alone["matches"] == [] and alone["root_cause"] is None and BENIGN_ID in [b["id"] for b in alone["benign"]]


def test_a_warning_never_outranks_the_exception_that_ended_the_run(plain):
    res = match_text(plain, LOG)
    assert res["root_cause"]["line_no"] == 6 and res["root_cause"]["entry"] == OOM_ID
    ids = [m["id"] for m in res["matches"]]
    assert ids == [OOM_ID]  # the warning is no second answer: it is listed under the exception
    assert {"id": WARN_ID, "code": "before_first_failure"} in [
        {"id": c["id"], "code": c["reason"]["code"]} for c in res["matches"][0]["consequences"]]


def test_unless_the_kb_says_the_warning_leads_to_it():
    res = match_text(_kb({WARN_ID: [OOM_ID]}), LOG)
    assert res["root_cause"]["line_no"] == 2 and res["root_cause"]["entry"] == WARN_ID
    ids = [m["id"] for m in res["matches"]]
    assert ids == [WARN_ID]
    warn = res["matches"][0]
    assert warn["leads_to"] == [OOM_ID] and "leads_to" in [w["code"] for w in warn["why"]]
    # what it leads to is listed under it, as the KB says
    assert {"id": OOM_ID, "code": "led_from_cause"} in [
        {"id": c["id"], "code": c["reason"]["code"]} for c in warn["consequences"]]


def test_leads_to_puts_the_cause_first_even_when_the_consequence_comes_first():
    # the timeout on rank 1 is printed before the OOM on rank 0: without the relation the earliest wins
    log = f"{TIMEOUT}\n[rank0]:{OOM}\n"
    without = match_text(_kb(), log)
    with_rel = match_text(_kb({OOM_ID: [TIMEOUT_ID]}), log)
    assert [m["id"] for m in with_rel["matches"]][0] == OOM_ID
    assert with_rel["root_cause"]["entry"] == OOM_ID and with_rel["root_cause"]["rank"] == 0
    assert with_rel["matches"][0]["leads_to"] == [TIMEOUT_ID]
    assert [m["id"] for m in without["matches"]][0] == OOM_ID  # role: cause beats symptom already
