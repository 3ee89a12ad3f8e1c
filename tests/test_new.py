"""Tooling for writing entries: `faultline new` scaffolds, lint refuses placeholders, and the example
generator never replaces a good log when it cannot reproduce the error."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from faultline.entry import Entry
from tests.conftest import KB, REPO

NEW_ID = "pytorch/scaffold-widget-exploded"
MESSAGE = "RuntimeError: scaffold widget 17 exploded while reticulating splines (FaultlineTestOnly)"


def faultline(kb: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(kb), *args], capture_output=True,
                          text=True, cwd=REPO, timeout=300)


@pytest.fixture()
def kb_full(tmp_path) -> Path:
    """A private copy of the whole kb/ (entries, guides, example logs and negatives)."""
    dst = tmp_path / "kb"
    shutil.copytree(KB, dst)
    return dst


def _fill(doc: dict) -> dict:
    """Fill a scaffold the way a writer would: every field with a real value."""
    t = lambda en, zh: {"en": en, "zh": zh}  # noqa: E731
    doc.update(
        code="SCAFFOLD_WIDGET_EXPLODED",
        title=t("Scaffold widget exploded (test entry)", "脚手架组件炸了（测试条目）"),
        error_text=MESSAGE,
        category="testing",
        tags=["test"],
        role="cause",
        signatures=[{"name": "widget-exploded", "pattern": r"scaffold widget \d+ exploded while reticulating splines",
                     "ignore_case": False, "examples": [MESSAGE], "versions": "all", "context": []}],
        root_cause=t("The widget was asked to reticulate too many splines.", "组件被要求处理过多的样条。"),
        docs=[{"url": "https://pytorch.org/docs/stable/index.html", "title": "PyTorch documentation"}],
        workarounds=[
            {"action": t("Reticulate fewer splines.", "减少样条数量。"), "command": "splines = splines[:10]",
             "success_rate": 0.8, "condition": t("Always.", "总是适用。"), "applies_to": [], "sources": []},
            {"action": t("Use a bigger widget.", "换一个更大的组件。"), "command": "widget = Widget(size=2)",
             "success_rate": 0.5, "condition": t("When memory allows.", "内存允许时。"), "applies_to": [],
             "sources": []},
        ],
        dead_ends=[{"action": t("Restarting.", "重启。"), "command": "reboot",
                    "why_fails": t("The splines are still there.", "样条还在。"), "fail_rate": 0.9, "sources": []}],
        versions=[{"package": "torch", "range": ">=2.0", "status": "affected", "introduced": "2.0"}],
        blame={"kind": "user_code", "reason": t("The caller asks for too many splines.", "调用方要求的样条太多。")},
        retry={"kind": "after_change", "reason": t("The same call fails the same way.", "同样的调用会以同样的方式失败。")},
        seen_in=["https://github.com/pytorch/pytorch/issues/1"], seen_in_none=None,
        reports_seen={"count": 1, "date": "2026-12-04", "how": "a test"},
        fix_rate=0.8, confidence=0.8, evidence_count=0, first_seen="2024-01-01",
        provenance={"source": "curated", "rates": "estimated",
                    "note": t("Estimated for a test.", "测试用的估计值。")},
        completeness="complete",
        related=["pytorch/cuda-out-of-memory"],
    )
    return doc


def _errors(out: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln.startswith("error: ")]


def test_new_scaffold_lint_refuses_placeholders_until_filled(kb_full):
    # the copy's own state (normally clean; another writer's half-done entry must not fail this test)
    baseline = _errors(faultline(kb_full, "lint").stdout)
    r = faultline(kb_full, "new", NEW_ID)
    assert r.returncode == 0, r.stderr
    path = kb_full / "entries" / f"{NEW_ID}.yaml"
    assert path.is_file() and (kb_full / "examples" / NEW_ID).is_dir()
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    # every field of the schema is in the scaffold, in both languages
    assert set(doc) == set(Entry.model_fields), set(Entry.model_fields) ^ set(doc)
    assert doc["id"] == NEW_ID
    assert doc["title"]["en"].startswith("TODO(en)") and doc["title"]["zh"].startswith("TODO(zh)")

    r = faultline(kb_full, "lint")
    assert r.returncode == 1
    for field in ("title.en", "title.zh", "signatures.0.pattern", "workarounds.1.success_rate", "first_seen"):
        assert f"entries/{NEW_ID}.yaml [{field}]: still holds a placeholder" in r.stdout, r.stdout[-2000:]
    # the schema's complaints about placeholder values ("not a valid number") are not repeated
    assert "valid number" not in r.stdout and "valid date" not in r.stdout

    # half filled: the texts left as placeholders are still named
    half = _fill(dict(doc))
    half["root_cause"] = doc["root_cause"]
    path.write_text(yaml.safe_dump(half, allow_unicode=True, sort_keys=False), encoding="utf-8")
    r = faultline(kb_full, "lint")
    assert r.returncode == 1 and f"[root_cause.zh]: still holds a placeholder" in r.stdout
    assert "[title.en]" not in r.stdout

    path.write_text(yaml.safe_dump(_fill(doc), allow_unicode=True, sort_keys=False), encoding="utf-8")
    ex = kb_full / "examples" / NEW_ID
    (ex / "bare.composed.log").write_text(MESSAGE + "\n")
    (ex / "traceback.composed.log").write_text(
        "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    widget.run()\n"
        + MESSAGE + "\n")
    (ex / "training.composed.log").write_text("".join(f"step {i} loss 0.{i}\n" for i in range(30)) + MESSAGE + "\n")
    r = faultline(kb_full, "lint")
    assert f"entries/{NEW_ID}.yaml [verification]: no record file" in r.stdout, r.stdout[-2000:]
    # what `faultline verify` leaves for a signature no released package prints, with its reason
    rec = {"entry": NEW_ID, "signatures": [{"name": "widget-exploded", "uncheckable": {
        "en": "a test entry: no package prints this text", "zh": "测试条目：没有软件包打印这段文字"}}]}
    (kb_full / "verification" / f"{NEW_ID}.json").write_text(json.dumps(rec, ensure_ascii=False), encoding="utf-8")
    r = faultline(kb_full, "lint")
    assert NEW_ID not in r.stdout, r.stdout[-2000:]
    assert _errors(r.stdout) == baseline, r.stdout[-2000:]
    assert r.returncode == (1 if baseline else 0)


def test_new_refuses_to_overwrite_and_bad_ids(kb_full):
    existing = kb_full / "entries" / "pytorch" / "cuda-out-of-memory.yaml"
    before = existing.read_bytes()
    r = faultline(kb_full, "new", "pytorch/cuda-out-of-memory")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "already exists" in r.stderr
    assert existing.read_bytes() == before
    for bad in ("Pytorch/Thing", "no-slash", "a/b/c", "../x"):
        r = faultline(kb_full, "new", bad)
        assert r.returncode == 2 and "not an id" in r.stderr and "Traceback" not in r.stderr, bad
    assert not list((kb_full / "entries").rglob("c.yaml"))


def _snapshot(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


def test_generator_without_torch_changes_no_log_and_fails(tmp_path):
    """Run with this interpreter, which has no torch: every run fails to reproduce its error."""
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True, timeout=120)
    if probe.returncode == 0:
        pytest.skip("this interpreter has torch; the test needs one without it")
    shutil.copytree(REPO / "tools" / "examples", tmp_path / "tools" / "examples",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(KB / "entries", tmp_path / "kb" / "entries")
    shutil.copytree(KB / "examples", tmp_path / "kb" / "examples")
    before = _snapshot(tmp_path / "kb" / "examples")
    assert any(k.startswith("pytorch/nccl-not-built/") and k.endswith(".real.log") for k in before)
    r = subprocess.run([sys.executable, str(tmp_path / "tools" / "examples" / "generate.py"), "nccl"],
                       capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode != 0
    assert "not written" in r.stderr and "No module named 'torch'" in r.stderr
    assert _snapshot(tmp_path / "kb" / "examples") == before
