"""kb/ -> SQLite: validation messages, one-transaction loads, last good data kept."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from faultline.kbfiles import KBError, load_kb
from faultline.main import create_app
from faultline.store.load import load_into_db
from tests.support import wait_until
from tests.conftest import KB, SEED_LINE

SEED_FILE = Path("entries/pytorch/nccl-timeout-allreduce.yaml")


def _count(db: Path, table: str) -> int:
    with sqlite3.connect(db) as con:
        return con.execute(f"select count(*) from {table}").fetchone()[0]


def test_load_builds_a_real_sqlite_file(tmp_path):
    db = tmp_path / "kb.db"
    n_entries, n_guides = load_into_db(KB, db)
    assert n_entries == len(list((KB / "entries").rglob("*.yaml"))) and n_guides >= 1
    assert _count(db, "entry") == n_entries
    assert _count(db, "signature") >= n_entries
    with sqlite3.connect(db) as con:
        assert con.execute("select version_num from alembic_version").fetchone()[0]
    # loading twice replaces, it does not duplicate
    load_into_db(KB, db)
    assert _count(db, "entry") == n_entries


def _break(kb: Path, mutate) -> None:
    path = kb / SEED_FILE
    data = yaml.safe_load(path.read_text())
    mutate(data)
    path.write_text(yaml.safe_dump(data, allow_unicode=True))


@pytest.mark.parametrize(
    "mutate, field, words",
    [
        (lambda d: d["workarounds"][0].__setitem__("success_rate", 1.7), "workarounds.0.success_rate", "between 0 and 1"),
        (lambda d: d["title"].pop("zh"), "title.zh", "Field required"),
        (lambda d: d.__setitem__("id", "Not An Id"), "id", "domain/slug"),
        (lambda d: d["versions"][0].__setitem__("range", "~~2"), "versions.0.range", "version range"),
        (lambda d: d.__setitem__("surprise", 1), "surprise", "Extra inputs"),
        (lambda d: d["title"].__setitem__("zh", "no chinese here"), "title.zh", "Chinese"),
    ],
)
def test_schema_violation_names_file_field_and_problem(kb_copy, mutate, field, words):
    _break(kb_copy, mutate)
    with pytest.raises(KBError) as exc:
        load_kb(kb_copy)
    msg = str(exc.value)
    assert str(SEED_FILE) in msg and field in msg and words in msg


def test_malformed_yaml_and_non_utf8_are_rejected(kb_copy):
    bad = kb_copy / "entries" / "pytorch" / "broken.yaml"
    bad.write_text("id: pytorch/broken\ntitle: [unclosed\n")
    with pytest.raises(KBError) as exc:
        load_kb(kb_copy)
    assert "broken.yaml" in str(exc.value) and "malformed YAML" in str(exc.value)
    bad.write_bytes(b"id: pytorch/broken\ntitle: \xff\xfe\n")
    with pytest.raises(KBError) as exc:
        load_kb(kb_copy)
    assert "broken.yaml" in str(exc.value) and "cannot read" in str(exc.value)


def test_signature_that_does_not_compile_is_rejected(kb_copy, tmp_path):
    _break(kb_copy, lambda d: d["signatures"][0].__setitem__("pattern", "Watchdog caught (?<=x)collective timeout"))
    with pytest.raises(KBError) as exc:
        load_into_db(kb_copy, tmp_path / "x.db")
    assert "does not compile" in str(exc.value)
    assert not (tmp_path / "x.db").exists()


def test_bad_file_never_half_loads(kb_copy, tmp_path):
    db = tmp_path / "kb.db"
    load_into_db(kb_copy, db)
    before = _count(db, "entry")
    # a new valid entry plus a broken one: neither may reach the database
    data = yaml.safe_load((kb_copy / SEED_FILE).read_text())
    data["id"] = "pytorch/extra-copy"
    (kb_copy / "entries" / "pytorch" / "extra-copy.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
    (kb_copy / "entries" / "pytorch" / "zz-bad.yaml").write_text("id: [")
    with pytest.raises(KBError):
        load_into_db(kb_copy, db)
    assert _count(db, "entry") == before
    with sqlite3.connect(db) as con:
        assert con.execute("select count(*) from entry where id='pytorch/extra-copy'").fetchone()[0] == 0


def test_service_keeps_last_good_data_and_picks_up_good_reloads(kb_copy, tmp_path):
    db = tmp_path / "kb.db"
    load_into_db(kb_copy, db)
    app = create_app(db_path=str(db), kb_root=str(kb_copy))
    with TestClient(app) as c:
        gen = c.get("/healthz").json()["generation"]
        n = c.get("/healthz").json()["entries"]
        # a broken KB: the load fails, the service still answers from the last good data
        (kb_copy / "entries" / "pytorch" / "zz-bad.yaml").write_text("id: [")
        with pytest.raises(KBError):
            load_into_db(kb_copy, db)
        h = c.get("/healthz").json()
        assert h["generation"] == gen and h["entries"] == n
        assert c.post("/match", json={"text": SEED_LINE}).json()["matches"]
        # fixed and extended: the running service sees the new generation
        (kb_copy / "entries" / "pytorch" / "zz-bad.yaml").unlink()
        data = yaml.safe_load((kb_copy / SEED_FILE).read_text())
        data["id"] = "pytorch/extra-copy"
        (kb_copy / "entries" / "pytorch" / "extra-copy.yaml").write_text(yaml.safe_dump(data, allow_unicode=True))
        load_into_db(kb_copy, db)
        h = wait_until(lambda: (h := c.get("/healthz").json())["generation"] != gen and h)
        assert h["entries"] == n + 1
        assert c.get("/errors/pytorch/extra-copy").status_code == 200


def test_json_entries_are_accepted(kb_copy, tmp_path):
    import json

    data = yaml.safe_load((kb_copy / SEED_FILE).read_text())
    data["id"] = "pytorch/json-twin"
    (kb_copy / "entries" / "pytorch" / "json-twin.json").write_text(json.dumps(data, default=str, ensure_ascii=False))
    kb = load_kb(kb_copy)
    assert "pytorch/json-twin" in {e.id for e in kb.entries}


def test_a_snapshot_whose_disk_fills_while_it_is_built_keeps_every_document():
    """The entry store writes compressed documents to a temporary file; when a write fails (a full disk)
    the documents already written stay readable from it and the rest stay in memory."""
    import json

    from faultline.store.entries import EntryStore

    class FullAfter:  # the store's file, until the disk is full
        def __init__(self, f, writes):
            self.f, self.left = f, writes

        def write(self, b):
            self.left -= 1
            if self.left < 0:
                raise OSError(28, "No space left on device")
            return self.f.write(b)

        def fileno(self):
            return self.f.fileno()

        def close(self):
            self.f.close()

    store = EntryStore()
    store._file = FullAfter(store._file, 3)
    docs = [{"id": f"d/e{k}", "title": {"en": f"entry {k}", "zh": f"条目 {k}"}, "x": "y" * (k * 50)} for k in range(8)]
    for d in docs:
        store.add(json.dumps(d), d, d["title"]["en"])
    assert sum(isinstance(v, tuple) for v in store._docs.values()) == 3  # three in the file, five in memory
    assert [store.document(d["id"]) for d in docs] == docs
    with pytest.raises(KeyError):
        store.document("d/none")
