"""kb/ files -> SQLite (one transaction) and SQLite -> entries and the match index."""
from __future__ import annotations

import datetime as _dt
import logging
from pathlib import Path

from sqlalchemy import delete, inspect
from sqlmodel import Session, select

from faultline.entry import Entry, Guide
from faultline.kbfiles import KBError, Problem, load_kb
from faultline.matching.index import MIN_SPECIFICITY, MatchIndex, SignatureError
from faultline.store.db import engine_for, migrate, sqlite_path
from faultline.store.tables import EntryRow, EntryTagRow, GuideRow, MetaRow, SignatureRow


def _search_text(e: Entry) -> str:
    parts = [e.id, e.title.en, e.title.zh, e.error_text, e.category, " ".join(e.tags),
             e.root_cause.en, e.root_cause.zh, e.code or ""]
    return "\n".join(parts).lower()


def write_entries(db_path: str | Path, entries: list[Entry], guides: list[Guide],
                  files: dict[str, str] | None = None, source: str = "kb") -> None:
    """Replace the database's content with these entries and guides, in one transaction."""
    engine = engine_for(db_path)
    try:
        migrate(engine)
        with Session(engine) as s:
            for table in (SignatureRow, EntryTagRow, EntryRow, GuideRow):
                s.exec(delete(table))
            for e in entries:
                s.add(EntryRow(id=e.id, domain=e.domain, category=e.category, title_en=e.title.en,
                               title_zh=e.title.zh, search_text=_search_text(e),
                               document=e.model_dump_json(), source_file=(files or {}).get(e.id, "")))
            s.flush()
            for e in entries:
                for tag in sorted(set(e.tags)):
                    s.add(EntryTagRow(entry_id=e.id, tag=tag))
                for sig in e.signatures:
                    s.add(SignatureRow(entry_id=e.id, name=sig.name, pattern=sig.pattern))
            for g in guides:
                s.add(GuideRow(id=g.id, title_en=g.title.en, title_zh=g.title.zh, document=g.model_dump_json()))
            gen = s.get(MetaRow, "generation")
            meta = {
                "generation": str(int(gen.value) + 1 if gen else 1),
                "loaded_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
                "entries": str(len(entries)),
                "source": source,
            }
            for k, v in meta.items():
                s.merge(MetaRow(key=k, value=v))
            s.commit()
    finally:
        engine.dispose()


log = logging.getLogger("faultline")
SHRINK_LIMIT = 0.5  # (kept for old imports) see DROP_LIMIT
DROP_LIMIT = 0.10  # a load that would remove more than this share of the served entries needs force=True


def load_into_db(kb_root: str | Path, db_path: str | Path, force: bool = False) -> tuple[int, int]:
    """Validate kb/ completely, then replace the database content in one transaction.

    Nothing is written unless every file is valid, every signature compiles and is specific
    enough, and the KB is not empty; a KB that would shrink the served one by more than half
    is refused unless ``force``.
    """
    kb = load_kb(kb_root)
    if not kb.entries:
        raise KBError([Problem(str(kb_root), "entries", "no entries found under entries/: wrong --kb or FAULTLINE_KB?")])
    try:
        index = MatchIndex.build(kb.entries)
    except SignatureError as exc:
        raise KBError([Problem(kb.files.get(str(exc).split(" ", 1)[0], "kb"), "signatures", str(exc))]) from exc
    weak = [Problem(kb.files[eid], f"signatures.{name}", f"too generic: only {spec} required letters/digits "
                    f"(at least {MIN_SPECIFICITY})")
            for eid, name, spec in ((g.entry_id, g.name, g.specificity) for g in index.signatures)
            if spec < MIN_SPECIFICITY]
    if weak:
        raise KBError(weak)
    served = served_ids(db_path)
    removed = sorted(served - {e.id for e in kb.entries})
    if removed:
        shown = ", ".join(removed[:10]) + (f" and {len(removed) - 10} more" if len(removed) > 10 else "")
        if not force and len(removed) > len(served) * DROP_LIMIT:
            raise KBError([Problem(str(kb_root), "entries", f"{len(removed)} of the {len(served)} served entries would "
                                   f"be removed (more than {DROP_LIMIT:.0%}; a partial checkout?): {shown}; "
                                   "pass --force if that is intended")])
        log.warning("loading %s removes %d of the %d served entries: %s", kb_root, len(removed), len(served), shown)
    write_entries(db_path, kb.entries, kb.guides, kb.files)
    return len(kb.entries), len(kb.guides)


def served_ids(db_path: str | Path) -> set[str]:
    """The ids of the entries the database holds now (empty when it has none or does not exist)."""
    if not db_ready(db_path):
        return set()
    engine = engine_for(db_path)
    try:
        with Session(engine) as s:
            return set(s.exec(select(EntryRow.id)))
    finally:
        engine.dispose()


def served_entries(db_path: str | Path) -> int:
    """How many entries the database holds now (0 when it has none or does not exist)."""
    if not db_ready(db_path):
        return 0
    engine = engine_for(db_path)
    try:
        with Session(engine) as s:
            row = s.get(MetaRow, "entries")
            return int(row.value) if row and row.value.isdigit() else 0
    finally:
        engine.dispose()


def db_ready(db_path: str | Path) -> bool:
    """True when the database (an SQLite file or a URL) holds a loaded knowledge base."""
    path = sqlite_path(db_path)
    if path is not None and not path.is_file():
        return False
    engine = engine_for(db_path, readonly=True) if path is not None else engine_for(db_path)
    try:
        return inspect(engine).has_table("entry")
    finally:
        engine.dispose()


def read_db(db_path: str | Path) -> tuple[list[Entry], list[Guide], dict[str, str]]:
    engine = engine_for(db_path)
    try:
        with Session(engine) as s:
            entries = [Entry.model_validate_json(r.document) for r in s.exec(select(EntryRow).order_by(EntryRow.id))]
            guides = [Guide.model_validate_json(r.document) for r in s.exec(select(GuideRow).order_by(GuideRow.id))]
            meta = {m.key: m.value for m in s.exec(select(MetaRow))}
        return entries, guides, meta
    finally:
        engine.dispose()


def kb_from_db(db_path: str | Path, kb_root: str | Path) -> tuple[list[Entry], list[Guide]]:
    """Entries and guides from the database, building it from kb/ first if it does not exist yet."""
    if not db_ready(db_path):
        load_into_db(kb_root, db_path)
    entries, guides, _ = read_db(db_path)
    return entries, guides


def index_from_db(db_path: str | Path, kb_root: str | Path) -> MatchIndex:
    entries, _ = kb_from_db(db_path, kb_root)
    return MatchIndex.build(entries)
