"""The entries of one load generation, held in memory: the service's view of the KB.

A snapshot reads every row once, in one read transaction, and never goes back to the
database: later writes (a reload, a tampered row, a deleted file) cannot change or break it.
Documents are kept zlib-compressed and parsed on demand into a bounded cache; lists,
search and facets run on small summaries, so they cost what the page costs, not the KB.

The compressed documents are written to an unnamed temporary file of the snapshot's own (unlinked at
once: nothing else can open it) and read back one document at a time with a positioned read (through
a memory map where the system has no positioned read): the documents stay in the kernel's page cache,
which it may drop again, instead of in the service's memory (a third of it at 25,000 entries), and
reading one does not keep its pages mapped into the process either.  Where no temporary file can be
written the documents stay in memory.

The search text of every entry is held as UTF-8 bytes: at 25,000 entries of the KB's own kind (Chinese
beside English, which makes a Python string two bytes a character) that is 0.6 of the string's size.
"""
from __future__ import annotations

import json
import mmap
import os
import tempfile
import threading
import weakref
import zlib
from collections import Counter, OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from faultline.entry import Entry

CACHE_SIZE = 256  # parsed entries (about 36 KB each for the KB's own): the whole KB of today, a bound at 25,000
_PREAD = getattr(os, "pread", None)  # positioned reads (POSIX); elsewhere the file is memory-mapped


@dataclass(frozen=True, slots=True)
class Summary:
    """What a list row, a search and the facets need of an entry."""

    id: str
    domain: str
    category: str
    role: str
    code: str | None
    title_en: str
    title_zh: str
    tags: tuple[str, ...]
    fix_rate: float
    search_text: bytes  # lowercased en + zh text (see store/load.py), UTF-8

    @classmethod
    def from_document(cls, doc: dict, search_text: str, pool: dict | None = None) -> "Summary":
        """``pool``: the values of the summaries made so far; an equal domain, category, role, title or tag
        list is shared with them, not held again."""
        title = doc.get("title") or {}
        eid = doc["id"]
        share = (pool if pool is not None else {}).setdefault
        fields = (eid.split("/", 1)[0], doc.get("category", ""), doc.get("role", "cause"), doc.get("code"),
                  title.get("en", ""), title.get("zh", ""), tuple(doc.get("tags") or ()))
        return cls(eid, *(share(v, v) for v in fields), float(doc.get("fix_rate", 0.0)),
                   search_text.encode("utf-8", "surrogatepass"))

    def title(self, lang: str) -> str:
        return self.title_zh if lang == "zh" else self.title_en

    @property
    def title_key(self) -> str:
        """The lowercased titles and id: search hits here rank first (made for a search's hits only)."""
        return f"{self.title_en} {self.title_zh} {self.id}".lower()


class EntryStore(Mapping):
    """id -> Entry for one generation (a read-only mapping), plus summaries, search and facets."""

    def __init__(self) -> None:
        self._docs: dict[str, bytes | tuple[int, int]] = {}  # the compressed document, or where it is in the file
        self._file = None
        self._size = 0
        self._spooling = False  # documents still go to the file (until a write fails, or the first read)
        self._map: mmap.mmap | None = None
        self._reading = False  # the first read happened: the file is complete
        try:
            self._file = tempfile.TemporaryFile(prefix="faultline-entries-", buffering=0)
            self._spooling = True
        except OSError:
            pass
        self._closer = weakref.finalize(self, _close, [self._file], [None])
        self._summaries: dict[str, Summary] = {}
        self._pool: dict = {}  # the summaries' shared values, while the store is built (then dropped)
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, Entry] = OrderedDict()
        self._facets: tuple[list[tuple[str, int]], list[tuple[str, int]]] | None = None
        self._lists: tuple[list[str], dict[str, list[str]], dict[str, list[str]]] | None = None

    def add(self, doc_json: str, doc: dict, search_text: str) -> None:
        """Add one stored entry (its JSON text and the same document parsed), while building."""
        blob = zlib.compress(doc_json.encode("utf-8"), 6)
        if self._spooling and not self._reading:
            try:
                view = memoryview(blob)
                while view:  # unbuffered: a full disk fails here, not at the first read
                    view = view[self._file.write(view):]
                self._docs[doc["id"]] = (self._size, len(blob))
                self._size += len(blob)
            except OSError:  # the disk is full: this document, and the ones after it, stay in memory;
                self._spooling = False  # the ones before stay readable from the file
                self._docs[doc["id"]] = blob
        else:
            self._docs[doc["id"]] = blob
        self._summaries[doc["id"]] = Summary.from_document(doc, search_text, self._pool)

    def done(self) -> None:
        """Every entry is added: what only the building needed is dropped."""
        self._pool = {}

    def _blob(self, key: str) -> bytes:
        where = self._docs[key]  # KeyError for an unknown id, as a Mapping should
        if isinstance(where, bytes):
            return where
        off, n = where
        if _PREAD is not None:
            self._reading = True  # the first read: the file is complete (a snapshot is built, then read)
            fd = self._file.fileno()
            blob = _PREAD(fd, n, off)
            while len(blob) < n:  # a short read (a signal): the rest
                more = _PREAD(fd, n - len(blob), off + len(blob))
                if not more:
                    raise OSError(f"the entry store's file ended {n - len(blob)} bytes early")
                blob += more
            return blob
        with self._lock:
            if self._map is None:
                self._reading = True
                self._map = mmap.mmap(self._file.fileno(), self._size, access=mmap.ACCESS_READ)
                self._closer.detach()
                self._closer = weakref.finalize(self, _close, [self._file], [self._map])
            return self._map[off:off + n]

    # -- lists and search ----------------------------------------------------------
    def summary(self, entry_id: str) -> Summary:
        return self._summaries[entry_id]

    def search(self, q: str | None, tag: str | None, domain: str | None) -> list[str]:
        """Ids matching every word of ``q`` (title, message, tags, root cause, en and zh), a tag and a domain;
        entries whose title holds more of the words come first, then by id."""
        words = [w for w in (q or "").lower().split() if w][:20]
        # a word of UTF-8 bytes is in the text's UTF-8 bytes exactly where the word is in the text (no character's
        # bytes start inside another's); a lone surrogate from a URL is no text's, and matches none
        words_b = [w.encode("utf-8", "surrogatepass") for w in words]
        if not words:  # a listing: from the sorted lists of this generation, not a scan of every entry
            return self._listed(tag, domain)
        hits = []
        for s in self._summaries.values():
            if domain and s.domain != domain:
                continue
            if tag and tag not in s.tags:
                continue
            if not all(w in s.search_text for w in words_b):
                continue
            hits.append((-sum(w in s.title_key for w in words) if words else 0, s.id))
        hits.sort()
        return [eid for _, eid in hits]

    def _listed(self, tag: str | None, domain: str | None) -> list[str]:
        if self._lists is None:  # built once per generation (a snapshot never changes after it is built)
            by_domain: dict[str, list[str]] = {}
            by_tag: dict[str, list[str]] = {}
            ids = sorted(self._summaries)
            for eid in ids:
                s = self._summaries[eid]
                by_domain.setdefault(s.domain, []).append(eid)
                for t in set(s.tags):
                    by_tag.setdefault(t, []).append(eid)
            self._lists = (ids, by_domain, by_tag)
        ids, by_domain, by_tag = self._lists
        if domain and tag:
            in_tag = set(by_tag.get(tag, ()))
            return [i for i in by_domain.get(domain, ()) if i in in_tag]
        if domain:
            return by_domain.get(domain, [])
        if tag:
            return by_tag.get(tag, [])
        return ids

    def facets(self) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """(domains, tags) with their entry counts, by name (computed once per generation)."""
        if self._facets is None:
            domains = Counter(s.domain for s in self._summaries.values())
            tags = Counter(t for s in self._summaries.values() for t in set(s.tags))
            self._facets = (sorted(domains.items()), sorted(tags.items()))
        return self._facets

    # -- the mapping -------------------------------------------------------------------
    def __getitem__(self, key: str) -> Entry:
        with self._lock:
            hit = self._cache.get(key)
            if hit is not None:
                self._cache.move_to_end(key)
                return hit
        entry = Entry.model_validate_json(zlib.decompress(self._blob(key)))
        with self._lock:
            self._cache[key] = entry
            if len(self._cache) > CACHE_SIZE:
                self._cache.popitem(last=False)
        return entry

    def document(self, key: str) -> dict:
        """The stored JSON document of one entry, parsed (no validation)."""
        return json.loads(zlib.decompress(self._blob(key)))

    def __contains__(self, key: object) -> bool:
        return key in self._docs

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._docs))

    def __len__(self) -> int:
        return len(self._docs)


def _close(files: list, maps: list) -> None:
    """Unmap and close a store's file once the store is gone (the file was never named: it goes with it)."""
    for m in maps:
        if m is not None:
            m.close()
    for f in files:
        if f is not None:
            f.close()
