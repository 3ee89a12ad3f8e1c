"""Fixtures: a real SQLite file built from the repository's kb/, the real app over HTTP."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from faultline.main import create_app
from faultline.store.load import load_into_db

REPO = Path(__file__).resolve().parent.parent
KB = Path(os.environ.get("FAULTLINE_TEST_KB") or REPO / "kb")  # override: run the suite against another copy of kb/
SEED_LINE = (
    "RuntimeError: [Rank 0] NCCL communicator was aborted on rank 2. Original reason for failure was: "
    "AllReduce timed out after 600000 ms"
)


def pytest_configure(config):
    """The per-user data folder, where the CLI builds its default database, is a private folder for
    the whole run: no test reads or writes the real user's (subprocesses inherit it)."""
    import tempfile

    if not os.environ.get("FAULTLINE_TEST_KEEP_XDG"):
        os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="faultline-xdg-")


# The database behind the shared fixtures: an SQLite file (default) or, with
# FAULTLINE_TEST_BACKEND=postgresql, a private schema on the PostgreSQL at FAULTLINE_TEST_PG
# (see tests/written_backends.py); .ci/run runs the suite once with each.
BACKEND = os.environ.get("FAULTLINE_TEST_BACKEND", "sqlite")


@pytest.fixture(scope="session")
def kb_db(tmp_path_factory):
    """The repository's kb/ loaded into the test database: a Path (SQLite) or a URL (PostgreSQL)."""
    if BACKEND == "sqlite":
        db = tmp_path_factory.mktemp("db") / "faultline.db"
        load_into_db(KB, db)
        yield db
        return
    from tests.written_backends import make_target, pg_unavailable

    why = pg_unavailable()
    if why:
        pytest.fail(f"FAULTLINE_TEST_BACKEND=postgresql but {why}")
    target, drop = make_target("postgresql", tmp_path_factory.mktemp("db"))
    yield target
    drop()


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
