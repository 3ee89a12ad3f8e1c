"""Databases for the tests of tokens, outcome reports and the inbox: a real SQLite file, and a real
PostgreSQL database (a private schema per test module, dropped afterwards).

PostgreSQL is the one at FAULTLINE_TEST_PG (default postgresql+psycopg://postgres@127.0.0.1:5432/test);
its tests are skipped, saying why, when it does not answer.
"""
from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from faultline.store.load import load_into_db

REPO = Path(__file__).resolve().parent.parent
KB = Path(os.environ.get("FAULTLINE_TEST_KB") or REPO / "kb")
PG_URL = os.environ.get("FAULTLINE_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
BACKENDS = ["sqlite", "postgresql"]


def pg_unavailable() -> str | None:
    """Why PostgreSQL cannot be used here, or None when it answers."""
    try:
        import psycopg
    except ImportError:
        return "psycopg is not installed"
    from sqlalchemy.engine import make_url

    u = make_url(PG_URL)
    try:
        with psycopg.connect(host=u.host or "127.0.0.1", port=u.port or 5432, user=u.username or "postgres",
                             password=u.password, dbname=u.database or "postgres", connect_timeout=3):
            return None
    except Exception as exc:  # noqa: BLE001 - any failure means: skip, and say why
        return f"PostgreSQL at {u.render_as_string(hide_password=True)} does not answer: {exc}"


def make_target(kind: str, tmp: Path) -> tuple[str, callable]:
    """A database holding the repository's kb/: (target, cleanup)."""
    if kind == "sqlite":
        db = tmp / "faultline.db"
        load_into_db(KB, db)
        return str(db), lambda: None
    why = pg_unavailable()
    if why:
        pytest.skip(why)
    import sqlalchemy as sa

    schema = "fl_test_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(PG_URL)
    with admin.begin() as c:
        c.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    target = f"{PG_URL}{'&' if '?' in PG_URL else '?'}options=-csearch_path%3D{schema}"
    load_into_db(KB, target)

    def drop():
        with admin.begin() as c:
            c.execute(sa.text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        admin.dispose()

    return target, drop
