"""Entries read from SQLite on demand, with a bounded cache (the service's view of the KB)."""
from __future__ import annotations

import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from pathlib import Path

from app.entry import Entry

CACHE_SIZE = 2048


class EntryStore(Mapping):
    """id -> Entry, backed by the `entry` table; ids and documents are read once at start."""

    def __init__(self, db_path: str | Path):
        self._con = sqlite3.connect(f"file:{Path(db_path)}?mode=ro", uri=True, check_same_thread=False)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Entry] = OrderedDict()
        with self._lock:
            self._ids = [r[0] for r in self._con.execute("select id from entry order by id")]
        self._idset = set(self._ids)

    def documents(self) -> Iterator[tuple[str, str]]:
        """(id, JSON document) for every entry, streamed."""
        cur = self._con.cursor()
        try:
            for row in cur.execute("select id, document from entry order by id"):
                yield row[0], row[1]
        finally:
            cur.close()

    def generation(self) -> str | None:
        """The database's current load generation (bumped by every successful `faultline load`)."""
        try:
            with self._lock:
                row = self._con.execute("select value from kb_meta where key = 'generation'").fetchone()
        except sqlite3.Error:
            return None
        return row[0] if row else None

    def search(self, q: str | None, tag: str | None, domain: str | None) -> list[str]:
        """Ids matching every word of ``q`` (title, message, tags, root cause, en and zh), a tag and a domain."""
        sql = "select e.id, lower(e.title_en || ' ' || e.title_zh || ' ' || e.id) from entry e"
        where, args = [], []
        if tag:
            where.append("exists (select 1 from entry_tag t where t.entry_id = e.id and t.tag = ?)")
            args.append(tag)
        if domain:
            where.append("e.domain = ?")
            args.append(domain)
        words = [w for w in (q or "").lower().split() if w][:20]
        for w in words:
            where.append("instr(e.search_text, ?) > 0")
            args.append(w)
        if where:
            sql += " where " + " and ".join(where)
        with self._lock:
            rows = self._con.execute(sql, args).fetchall()
        # entries whose title holds more of the words come first, then by id
        rows.sort(key=lambda r: (-sum(w in r[1] for w in words), r[0]))
        return [r[0] for r in rows]

    def __getitem__(self, key: str) -> Entry:
        if key not in self._idset:
            raise KeyError(key)
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
            row = self._con.execute("select document from entry where id = ?", (key,)).fetchone()
        if row is None:
            raise KeyError(key)
        entry = Entry.model_validate_json(row[0])
        with self._lock:
            self._cache[key] = entry
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return entry

    def __contains__(self, key: object) -> bool:
        return key in self._idset

    def __iter__(self) -> Iterator[str]:
        return iter(self._ids)

    def __len__(self) -> int:
        return len(self._ids)

    def close(self) -> None:
        self._con.close()
