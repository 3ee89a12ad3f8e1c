"""Matching behaviour a user notices: the first failing rank, masking, environments, abstaining."""
from __future__ import annotations

import random
import re

import pytest

from faultline.kbfiles import load_kb
from faultline.matching.environment import parse_environment
from faultline.matching.index import MatchIndex
from faultline.render.match import match_text
from tests.conftest import KB

EX = KB / "examples"


@pytest.fixture(scope="module")
def index() -> MatchIndex:
    return MatchIndex.build(load_kb(KB).entries)


def test_one_rank_oom_then_everyone_times_out(index):
    log = (EX / "pytorch/cuda-out-of-memory/ddp-8gpu-rank3-oom-then-watchdog-timeouts.composed.log").read_text()
    res = match_text(index, log)
    assert res["root_cause"]["rank"] == 3
    assert "OutOfMemoryError" in res["root_cause"]["line"]
    assert res["root_cause"]["entry"] == "pytorch/cuda-out-of-memory"
    ids = [m["id"] for m in res["matches"]]
    assert ids == ["pytorch/cuda-out-of-memory"]  # one answer: the timeouts are not answers of their own
    top = res["matches"][0]
    timeout = next(c for c in top["consequences"] if c["id"] == "pytorch/nccl-timeout-allreduce")
    assert top["root_cause_match"] and timeout["reason"]["code"] == "symptom_of_cause"
    assert timeout["rank"] is not None and timeout["rank"] != 3  # seen on another rank
    assert "explains_root_cause" in [w["code"] for w in top["why"]]


def test_unknown_user_exception_is_reported_as_the_root_cause(index):
    """A real 3-rank gloo run: rank 2 raises a KeyError, the others then time out."""
    log = (EX / "pytorch/elastic-child-failed/torchrun-3procs-user-exception-then-gloo-timeouts.real.log").read_text()
    res = match_text(index, log)
    assert res["root_cause"]["rank"] == 2 and "KeyError" in res["root_cause"]["line"]
    assert res["root_cause"]["entry"] is None
    # the launcher's summary says where to look; the timeouts of the other ranks are only consequences
    assert [m["id"] for m in res["matches"]] == ["pytorch/elastic-child-failed"]
    assert {"id": "pytorch/gloo-collective-timeout", "code": "consequence_of_unknown_root"} in [
        {"id": r["id"], "code": r["reason"]["code"]} for r in res["related"]]


def _perturb(text: str, seed: int) -> str:
    rng = random.Random(seed)
    # what differs between runs: PIDs, ports, timeouts, byte counts (4+ digits), sizes, hosts, paths
    text = re.sub(r"(?<![A-Za-z\d.])\d{4,}(?![\d.])", lambda m: str(rng.randint(1000, 9999999)), text)
    text = re.sub(r"\d+\.\d+ ([KMG]iB)", lambda m: f"{rng.randint(1, 999)}.{rng.randint(0, 99):02d} {m.group(1)}", text)
    text = re.sub(r"/workspace/", "/home/someone/jobs/run-%d/" % rng.randint(1, 999), text)
    text = re.sub(r"\[rank(\d+)\]", lambda m: "[rank%d]" % ((int(m.group(1)) + 1) % 8), text)
    return text.replace("node-01", "gpu-host-%d" % rng.randint(1, 64))


def test_the_same_error_from_another_run_scores_the_same(index):
    for path in sorted(EX.glob("pytorch/*/*.log"))[:60]:
        text = path.read_text(errors="replace")
        a = match_text(index, text)
        b = match_text(index, _perturb(text, 7))
        assert [m["id"] for m in a["matches"]][:1] == [m["id"] for m in b["matches"]][:1], path
        if a["matches"]:
            assert a["matches"][0]["confidence"] == b["matches"][0]["confidence"], path


def test_unknown_errors_abstain(index):
    for path in sorted((EX / "negative").glob("*.log")):
        assert match_text(index, path.read_text(errors="replace"))["matches"] == [], path


def test_environment_text_is_parsed():
    freeze = "torch==2.1.2\naccelerate==0.30.1\nnvidia-nccl-cu12==2.18.1\n"
    assert parse_environment(freeze) == {"torch": "2.1.2", "accelerate": "0.30.1", "nccl": "2.18.1"}
    collect_env = (
        "PyTorch version: 2.3.1+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
        "Python version: 3.11.7 (main, Dec  8 2023, 18:56:58) [GCC 9.4.0] (64-bit runtime)\n"
        "[pip3] numpy==1.26.4\n[pip3] torch==2.3.1\n"
    )
    env = parse_environment(collect_env)
    assert env["torch"] == "2.3.1" and env["cuda"] == "12.1" and env["python"] == "3.11.7" and env["numpy"] == "1.26.4"
    accel = "- `Accelerate` version: 0.34.2\n- PyTorch version (GPU?): 2.4.0+cu121 (True)\n"
    assert parse_environment(accel) == {"accelerate": "0.34.2", "torch": "2.4.0"}
    smi = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |"
    assert parse_environment(smi) == {"nvidia-driver": "535.104.5", "cuda": "12.2"}  # PEP 440 normalised
    assert parse_environment({"torch": "2.2.0", "bad": None}) == {"torch": "2.2.0"}
    assert parse_environment("\x00\xff garbage") == {}


def test_environment_demotes_entries_that_do_not_apply(index):
    """weights_only= only exists since torch 1.13: with torch 1.12 the entry cannot be the answer."""
    wol = (EX / "pytorch/weights-only-load-failed/torch22-explicit-weights-only.composed.log").read_text()
    sd = (EX / "pytorch/state-dict-module-prefix/torch113-dataparallel-resnet.composed.log").read_text()
    log = wol + "\n" + sd
    plain = match_text(index, log)
    # the first failure is the answer; the second error, later in the same paste, is listed under it
    assert [m["id"] for m in plain["matches"]] == ["pytorch/weights-only-load-failed"]
    assert {"id": "pytorch/state-dict-module-prefix", "code": "after_first_failure"} in [
        {"id": c["id"], "code": c["reason"]["code"]} for c in plain["matches"][0]["consequences"]]
    assert plain["matches"][0]["applies_to_environment"] is None
    for env in ({"torch": "1.12.1"}, "torch==1.12.1+cu116\nnumpy==1.23.0\n", "PyTorch version: 1.12.1+cu113\n"):
        res = match_text(index, log, environment=env)
        ids = [m["id"] for m in res["matches"]]
        assert ids[:2] == ["pytorch/state-dict-module-prefix", "pytorch/weights-only-load-failed"], env
        demoted = res["matches"][1]
        assert demoted["applies_to_environment"] is False
        assert any(w["code"] == "env_outside_range" and "outside" in w["text"] for w in demoted["why"])
        assert res["environment"]["torch"] == "1.12.1"
    newer = match_text(index, log, environment={"torch": "2.7.0"})
    assert newer["matches"][0]["id"] == "pytorch/weights-only-load-failed"
    assert newer["matches"][0]["applies_to_environment"] is True


def test_environment_over_http(client):
    log = (EX / "pytorch/weights-only-load-failed/torch22-explicit-weights-only.composed.log").read_text()
    r = client.post("/match", json={"text": log, "environment": "torch==1.12.1\n"})
    m = r.json()["matches"][0]
    assert m["id"] == "pytorch/weights-only-load-failed" and m["applies_to_environment"] is False


def test_ranks_stuck_in_different_collectives_are_reported(index):
    log = "\n".join([
        "[rank0]:[E0814 05:41:19.006734112 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600049 milliseconds before timing out.",
        "[rank1]:[E0814 05:41:19.107734112 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=813, OpType=BROADCAST, NumelIn=4096, NumelOut=4096, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.",
    ])
    res = match_text(index, log)
    assert res["matches"][0]["id"] == "pytorch/nccl-timeout-allreduce"
    f = res["findings"][0]
    assert f["kind"] == "different_step" and f["ranks"][0]["seq"] == 812 and f["ranks"][1]["op"] == "BROADCAST"
    assert [r["id"] for r in res["related"]][:2] == ["pytorch/uneven-inputs-epoch-end-hang", "pytorch/collective-mismatch-detected"]
    same = log.replace("SeqNum=813, OpType=BROADCAST", "SeqNum=812, OpType=ALLREDUCE")
    assert match_text(index, same)["findings"][0]["kind"] == "different_collective"
    agree = log.replace("SeqNum=813, OpType=BROADCAST, NumelIn=4096, NumelOut=4096", "SeqNum=812, OpType=ALLREDUCE, NumelIn=1, NumelOut=1")
    assert match_text(index, agree)["findings"] == []


def test_generic_message_needs_its_context(index):
    """'weight' must be 2-D also comes from plain F.embedding misuse: only a DeepSpeed log makes it ZeRO-3."""
    plain = (
        "Traceback (most recent call last):\n"
        '  File "/home/u/app/embed.py", line 12, in <module>\n'
        "    out = F.embedding(ids, table)\n"
        "RuntimeError: 'weight' must be 2-D\n"
    )
    assert match_text(index, plain)["matches"] == []
    ds = "[2024-11-21 08:02:11,330] [INFO] [partition_parameters.py:348:__exit__] finished initializing model\n" + plain
    assert match_text(index, ds)["matches"][0]["id"] == "deepspeed/zero3-partitioned-parameter-empty"
