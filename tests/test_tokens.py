"""`faultline token create | list | revoke` on SQLite and PostgreSQL: the token is printed once, alone
on the last line, only its hash is stored, and a revoked token stops working over HTTP."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from faultline.main import create_app
from faultline.store.db import engine_for
from faultline.store.load import load_into_db
from tests.written_backends import BACKENDS, KB, REPO, make_target

SEED = "pytorch/nccl-timeout-allreduce"


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "faultline.cli", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(REPO)})


@pytest.fixture(scope="module", params=BACKENDS)
def target(request, tmp_path_factory):
    t, cleanup = make_target(request.param, tmp_path_factory.mktemp(request.param))
    yield t
    cleanup()


def test_create_prints_the_token_once_and_stores_only_its_hash(target):
    out = cli("token", "create", "--scope", "report", "--name", "ci-bot", "--db", target)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.rstrip("\n").splitlines()
    tok = lines[-1]
    assert tok.startswith("flt_") and " " not in tok and len(tok) > 30
    assert tok not in "\n".join(lines[:-1])
    eng = engine_for(target)
    with eng.connect() as conn:
        rows = [list(map(str, r)) for r in conn.execute(sa.text("select * from api_token"))]
    eng.dispose()
    assert rows and not any(tok in cell or tok[4:] in cell for r in rows for cell in r)
    listing = cli("token", "list", "--db", target)
    assert listing.returncode == 0 and "ci-bot" in listing.stdout and "report" in listing.stdout
    assert tok not in listing.stdout and tok[:10] in listing.stdout  # a hint to tell tokens apart


def test_revoked_token_gets_401_and_scopes_are_checked(target):
    rep = cli("token", "create", "--scope", "report", "--name", "to-revoke", "--db", target).stdout.splitlines()[-1]
    cur = cli("token", "create", "--scope", "curate", "--db", target).stdout.splitlines()[-1]
    body = {"workaround": 1, "worked": True}
    with TestClient(create_app(db_path=target, kb_root=str(KB))) as c:
        assert c.post(f"/errors/{SEED}/outcomes", json=body, headers={"Authorization": f"Bearer {rep}"}).status_code == 201
        assert c.get("/inbox", headers={"Authorization": f"Bearer {cur}"}).status_code == 200
        assert c.get("/inbox", headers={"Authorization": f"Bearer {rep}"}).status_code == 403
        out = cli("token", "revoke", "to-revoke", "--db", target)
        assert out.returncode == 0 and "revoked" in out.stdout
        r = c.post(f"/errors/{SEED}/outcomes", json=body, headers={"Authorization": f"Bearer {rep}"})
        assert r.status_code == 401
    assert "revoked" in cli("token", "list", "--db", target).stdout
    again = cli("token", "revoke", "to-revoke", "--db", target)
    assert again.returncode == 1 and "no active token" in again.stderr


def test_tokens_survive_a_reload_of_kb(target):
    tok = cli("token", "create", "--scope", "report", "--db", target).stdout.splitlines()[-1]
    load_into_db(KB, target)
    with TestClient(create_app(db_path=target, kb_root=str(KB))) as c:
        r = c.post(f"/errors/{SEED}/outcomes", json={"workaround": 2, "worked": False},
                   headers={"Authorization": f"Bearer {tok}"})
        assert r.status_code == 201


def test_bad_scope_is_refused():
    out = cli("token", "create", "--scope", "admin", "--db", "unused.db")
    assert out.returncode == 2 and "invalid choice" in out.stderr
    assert not (REPO / "unused.db").exists()
