"""The knowledge base as the running service holds it: entries, guides and the
match index, rebuilt when the database's generation changes (after
`faultline load`).  A failed rebuild keeps the last good data."""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import json

from sqlmodel import Session, select

from app.entry import Guide
from app.matching.index import MatchIndex
from app.store.db import engine_for
from app.store.entries import EntryStore
from app.store.load import db_ready, load_into_db
from app.store.tables import GuideRow, MetaRow

log = logging.getLogger("faultline")
RETRY_AFTER_S = 1.0  # after a failed reload, wait this long before trying again


@dataclass
class Snapshot:
    entries: EntryStore  # a read-only mapping id -> Entry, fetched from SQLite on demand
    guides: dict[str, Guide]
    index: MatchIndex
    generation: str | None
    loaded_at: str | None = None
    guide_entries: dict[str, list[str]] = field(default_factory=dict)


class KBService:
    def __init__(self, db_path: str | Path, kb_root: str | Path):
        self.db_path = Path(db_path)
        self.kb_root = Path(kb_root)
        self._lock = threading.Lock()
        self._checked = -RETRY_AFTER_S
        if not db_ready(self.db_path):
            log.info("no knowledge base in %s yet: loading %s", self.db_path, self.kb_root)
            load_into_db(self.kb_root, self.db_path)
        self.snapshot = self._read()

    def _read(self) -> Snapshot:
        store = EntryStore(self.db_path)
        g_entries: dict[str, list[str]] = {}

        def docs():
            for eid, doc in store.documents():
                parsed = json.loads(doc)  # parsed once, for the guide links and the index
                for gid in parsed.get("guides", []):
                    g_entries.setdefault(gid, []).append(eid)
                yield eid, parsed

        index = MatchIndex.from_documents(docs(), store.__getitem__)
        engine = engine_for(self.db_path)
        try:
            with Session(engine) as s:
                guides = {g.id: Guide.model_validate_json(g.document) for g in s.exec(select(GuideRow))}
                meta = {m.key: m.value for m in s.exec(select(MetaRow))}
        finally:
            engine.dispose()
        return Snapshot(store, guides, index, meta.get("generation"), meta.get("loaded_at"), g_entries)

    def current(self) -> Snapshot:
        """The newest good snapshot: a cheap generation check on every call, a rebuild when it changed."""
        gen = self.snapshot.entries.generation()
        if gen is None or gen == self.snapshot.generation:
            return self.snapshot
        with self._lock:
            if gen != self.snapshot.generation and time.monotonic() - self._checked >= RETRY_AFTER_S:
                try:
                    self.snapshot = self._read()
                    log.info("knowledge base reloaded (generation %s)", gen)
                except Exception:  # noqa: BLE001 - keep serving the last good data
                    self._checked = time.monotonic()
                    log.exception("reload failed; still serving generation %s", self.snapshot.generation)
        return self.snapshot
