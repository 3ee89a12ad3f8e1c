"""Schemathesis against the started service, all checks, bounded: the OpenAPI document and the
service agree (documented statuses, bodies that match their schemas, no 5xx, Allow on 405, ...)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from faultline.store.load import load_into_db
from tests.conftest import KB, REPO
from tests.support import Service

SCHEMATHESIS = shutil.which("schemathesis", path=str(Path(sys.executable).parent)) or shutil.which("schemathesis")


@pytest.mark.skipif(SCHEMATHESIS is None, reason="schemathesis is not installed (pip install -e '.[test]')")
def test_schemathesis_finds_nothing(tmp_path):
    db = tmp_path / "kb.db"
    load_into_db(KB, db)
    token = subprocess.run([sys.executable, "-m", "faultline.cli", "--kb", str(KB), "token", "create", "--scope", "report",
                            "--db", str(db)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert token.returncode == 0, token.stderr
    secret = token.stdout.strip().splitlines()[-1]
    with Service(db, KB, workers=1) as svc:
        r = subprocess.run(
            [SCHEMATHESIS, "run", f"{svc.base}/openapi.json", "--checks", "all", "--max-examples", "10",
             "--max-time", "150", "--workers", "1", "--request-timeout", "30", "--seed", "20261202",
             "-H", f"Authorization: Bearer {secret}", "--exclude-path-regex", "^/mcp"],
            cwd=tmp_path, capture_output=True, text=True, timeout=400,
            env={**os.environ, "SCHEMATHESIS_HOOKS": "", "NO_COLOR": "1"})
    assert r.returncode == 0, r.stdout[-6000:] + r.stderr[-2000:]
