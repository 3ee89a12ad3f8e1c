"""The knowledge base as the running service holds it: an immutable snapshot of one load
generation (entries, guides, the match index), replaced when the database changes.

Requests only read ``KBService.current()``: they never touch the database and never wait
for a rebuild.  A watcher thread polls the database's generation (and, for an SQLite file,
its inode: a replaced or re-created file is noticed) and builds the new snapshot off the
event loop; a failed rebuild keeps the last good snapshot.
"""
from __future__ import annotations

import datetime as _dt
import json
import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select, text
from sqlalchemy.exc import DatabaseError, OperationalError

from faultline.settings import settings
from faultline.entry import Guide
from faultline.matching.index import MatchIndex
from faultline.store.db import display, engine_for, sqlite_path
from faultline.store.entries import EntryStore
from faultline.store.load import db_ready, load_into_db
from faultline.store.tables import EntryRow, GuideRow, MetaRow

log = logging.getLogger("faultline")
RELOAD_POLL_S = settings().reload_poll_s


class StartupError(RuntimeError):
    """The service cannot start on this database (said in one clear sentence)."""


@dataclass
class Snapshot:
    entries: EntryStore  # id -> Entry for this generation, in memory
    guides: dict[str, Guide]
    index: MatchIndex
    generation: str | None
    loaded_at: str | None = None
    guide_entries: dict[str, list[str]] = field(default_factory=dict)


def _file_identity(path: Path | None) -> tuple[int, int] | None:
    if path is None:
        return None
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_dev, st.st_ino


def ensure_kb(target: str | Path, kb_root: str | Path) -> None:
    """Make sure the database holds a KB: build it from kb/ when empty; move a corrupt SQLite file
    aside and rebuild it; refuse with StartupError where neither is possible."""
    path = sqlite_path(target)
    try:
        ready = db_ready(target)
    except DatabaseError as exc:
        if path is None or not os.access(path.parent, os.W_OK):
            raise StartupError(f"cannot read the database {display(target)}: {exc.orig}") from exc
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        aside = path.with_name(f"{path.name}.corrupt-{stamp}")
        path.rename(aside)
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        log.warning("%s is not a usable database (%s); moved it to %s and rebuilding from %s",
                    path, exc.orig, aside.name, kb_root)
        ready = False
    if not ready:
        if path is not None and path.exists() and not os.access(path, os.W_OK):
            raise StartupError(f"the database {path} is read-only and holds no knowledge base; "
                               "run `faultline load` on a writable copy first")
        log.info("no knowledge base in %s yet: loading %s", display(target), kb_root)
        load_into_db(kb_root, target)


def _freeze() -> None:
    """Move every object alive now (the snapshot: hundreds of thousands of them) out of the cyclic garbage
    collector's sight.  A big paste allocates enough to start a full collection, and one over the whole
    snapshot holds the GIL for about 0.3 s: the event loop (/healthz) would wait that long.  Objects
    freed by their reference count (an old snapshot) are still freed; see gc.freeze()."""
    import gc

    gc.freeze()
    _release_freed()


def _release_freed() -> None:
    """Give the heap's free pages back to the system.  Building a snapshot parses every stored document and
    keeps a small part of each: glibc keeps the rest of that memory for later allocations (about 30 MB at
    25,000 entries) until malloc_trim is asked.  Nothing happens where the C library has no malloc_trim."""
    import ctypes

    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS, Windows)
        return
    trim(0)


class KBService:
    def __init__(self, target: str | Path, kb_root: str | Path, poll_s: float = RELOAD_POLL_S):
        self.target = str(target)
        self.kb_root = Path(kb_root)
        self.poll_s = poll_s
        self._path = sqlite_path(self.target)
        ensure_kb(self.target, self.kb_root)
        self._engine = engine_for(self.target)
        self._identity = _file_identity(self._path)
        self.snapshot = self._read()
        _freeze()
        self.db_available = True  # the last poll of the database worked (GET /healthz: "database")
        self.db_generation: str | None = self.snapshot.generation  # the newest generation the database holds
        self._failed_generation: str | None = None  # a generation that could not be read (logged once)
        self._replaced_pending = False  # the file was replaced and its content is not loaded yet
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- reading one generation -------------------------------------------------------------
    def _read(self) -> Snapshot:
        """Every row of one generation, read in one transaction (a consistent view)."""
        store = EntryStore()
        g_entries: dict[str, list[str]] = {}
        with self._engine.connect() as conn:
            if conn.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                meta = {k: v for k, v in conn.execute(select(MetaRow.key, MetaRow.value))}
                rows = conn.execute(select(EntryRow.id, EntryRow.document, EntryRow.search_text)
                                    .order_by(EntryRow.id))

                def docs():
                    for eid, doc_json, search_text in rows:
                        parsed = json.loads(doc_json)
                        store.add(doc_json, parsed, search_text)
                        for gid in parsed.get("guides", []):
                            g_entries.setdefault(gid, []).append(eid)
                        yield eid, parsed

                index = MatchIndex.from_documents(docs(), store.__getitem__)
                store.done()
                guides = {gid: Guide.model_validate_json(doc)
                          for gid, doc in conn.execute(select(GuideRow.id, GuideRow.document))}
        return Snapshot(store, guides, index, meta.get("generation"), meta.get("loaded_at"), g_entries)

    def _generation(self) -> str | None:
        with self._engine.connect() as conn:
            row = conn.execute(text("select value from kb_meta where key = 'generation'")).fetchone()
        return row[0] if row else None

    # -- watching for new generations --------------------------------------------------------
    def current(self) -> Snapshot:
        """The newest good snapshot (never blocks, never touches the database)."""
        return self.snapshot

    def refresh(self) -> bool:
        """Rebuild the snapshot when the database changed; True when a new one is in place."""
        with self._lock:
            identity = _file_identity(self._path)
            replaced = identity is not None and identity != self._identity
            if replaced:  # the file was replaced or re-created: open the new one
                old, self._engine = self._engine, engine_for(self.target)
                old.dispose()
                self._identity = identity
                self._replaced_pending = True  # until a snapshot of the new file is in place
            replaced = self._replaced_pending
            try:
                gen = self._generation()
            except (OperationalError, DatabaseError) as exc:
                if self.db_available:  # once per outage, not once per poll
                    first = (str(exc.orig).strip().splitlines() or [type(exc.orig).__name__])[0]
                    log.warning("cannot read the generation of %s (%s); still serving generation %s from memory",
                                display(self.target), first[:300], self.snapshot.generation)
                self.db_available = False
                return False
            if not self.db_available:
                log.info("the database %s answers again", display(self.target))
            self.db_available = True
            self.db_generation = gen
            if gen is None or (gen == self.snapshot.generation and not replaced):
                return False
            if gen == self._failed_generation and not replaced:
                return False  # already tried and failed: tried again when the generation changes
            try:
                snap = self._read()
            except Exception:  # noqa: BLE001 - keep serving the last good data
                if gen != self._failed_generation:  # once per generation, not once per poll
                    log.exception("reload of generation %s failed; still serving generation %s (tried again "
                                  "when the generation changes)", gen, self.snapshot.generation)
                self._failed_generation = gen
                return False
            self._failed_generation = None
            self._replaced_pending = False
            self.snapshot = snap
            _freeze()
            log.info("knowledge base reloaded (generation %s, %d entries)", snap.generation, len(snap.entries))
            return True

    def _watch(self) -> None:
        while not self._stop.wait(self.poll_s):
            try:
                self.refresh()
            except Exception:  # noqa: BLE001 - the watcher must survive anything
                log.exception("knowledge-base watcher error")

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._watch, name="faultline-kb-watcher", daemon=True)
            self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        self._engine.dispose()
