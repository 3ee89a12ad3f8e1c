"""Two `faultline serve` replicas on one PostgreSQL database: they share outcome reports and KB reloads."""
from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest
import yaml

from tests.conftest import KB, REPO
from tests.support import Service, wait_until
from tests.written_backends import make_target, pg_unavailable

pytestmark = pytest.mark.skipif(pg_unavailable() is not None, reason=pg_unavailable() or "")

ENTRY = "pytorch/cuda-out-of-memory"


def _cli(*args: str, target: str, kb=KB) -> subprocess.CompletedProcess:
    env = {**os.environ, "DATABASE_URL": target}
    env.pop("FAULTLINE_DB", None)
    return subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(kb), *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


def _reports(base: str) -> int:
    wa = httpx.get(f"{base}/errors/{ENTRY}", timeout=10).json()["workarounds"]
    return sum(w["success_rate_evidence"]["reports"] for w in wa)


def test_two_replicas_share_reports_and_reloads(tmp_path, kb_copy):
    target, drop = make_target("postgresql", tmp_path)
    try:
        env = {"DATABASE_URL": target, "FAULTLINE_DB": ""}
        with Service(target, KB, workers=1, env=env) as one, Service(target, KB, workers=1, env=env) as two:
            before = _reports(two.base)
            token = _cli("token", "create", "--scope", "report", "--name", "replica-test", target=target)
            assert token.returncode == 0, token.stderr
            secret = token.stdout.strip().splitlines()[-1]
            r = httpx.post(f"{one.base}/errors/{ENTRY}/outcomes", json={"workaround": 1, "worked": True},
                           headers={"Authorization": f"Bearer {secret}"}, timeout=10)
            assert r.status_code == 201, r.text
            # the other replica counts the report within a second (COUNTS_FRESH_S: it reads counts again)
            wait_until(lambda: _reports(two.base) == before + 1)

            # a reload of kb/ through one `faultline load` reaches both replicas
            data = yaml.safe_load((kb_copy / "entries" / "pytorch" / "cuda-out-of-memory.yaml").read_text())
            data["id"] = "pytorch/replica-extra"
            (kb_copy / "entries" / "pytorch" / "replica-extra.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
            n = httpx.get(f"{one.base}/healthz").json()["entries"]
            loaded = _cli("load", target=target, kb=kb_copy)
            assert loaded.returncode == 0, loaded.stderr
            for svc in (one, two):
                wait_until(lambda: httpx.get(f"{svc.base}/healthz").json()["entries"] == n + 1)
                assert httpx.get(f"{svc.base}/errors/pytorch/replica-extra").status_code == 200
            # reports survive the reload
            assert _reports(two.base) == before + 1
    finally:
        drop()
