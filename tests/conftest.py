"""Fixtures: a real SQLite file built from the repository's kb/, the real app over HTTP."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.store.load import load_into_db

REPO = Path(__file__).resolve().parent.parent
KB = REPO / "kb"
SEED_LINE = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: "
    "AllReduce timed out after 600000 ms"
)


@pytest.fixture(scope="session")
def kb_db(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("db") / "faultline.db"
    load_into_db(KB, db)
    return db


@pytest.fixture(scope="session")
def client(kb_db):
    app = create_app(db_path=str(kb_db), kb_root=str(KB))
    with TestClient(app) as c:
        yield c


@pytest.fixture()
def kb_copy(tmp_path) -> Path:
    """A private copy of kb/ (entries and guides only) that a test may break."""
    dst = tmp_path / "kb"
    shutil.copytree(KB / "entries", dst / "entries")
    shutil.copytree(KB / "guides", dst / "guides")
    return dst
