"""What users write, kept apart from the KB: API tokens, outcome reports, the inbox of unknown errors and
the results kept for a shareable link (``/results/<id>``).

These tables live in the same database as the KB (an SQLite file or PostgreSQL), under the
same Alembic history, but `faultline load` never touches them: reloading kb/ replaces entries,
never reports.  Everything here is plain SQLModel / SQLAlchemy Core, so it runs on both.
"""
from __future__ import annotations

import hashlib
import logging
import json
import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from sqlalchemy import Index, case, func, inspect, update
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlmodel import Field, Session, SQLModel, select

from faultline.store.db import display, engine_for, is_url, migrate, sqlite_path

log = logging.getLogger("faultline")
SCOPES = ("report", "curate")
TOKEN_PREFIX = "flt_"
REPEAT_WINDOW_S = 24 * 3600  # the same token, entry and target within this window count once
RATE_WINDOW_S = 60.0
RETRY_DOWN_S = 1.0  # while the database is down, reads for counts are tried again after this long
COUNTS_FRESH_S = 1.0  # an entry's report counts, as read, serve the requests of the next second
COUNTS_MEMO_SIZE = 4096
MAX_INBOX_GROUPS = 10_000  # beyond this, the oldest groups seen once make room (app/inbox.py MAX_GROUPS)


class TokenRow(SQLModel, table=True):
    __tablename__ = "api_token"
    id: Optional[int] = Field(default=None, primary_key=True)
    name: str
    scope: str
    token_hash: str = Field(unique=True)  # sha256 of the token; the token itself is never stored
    hint: str  # the first characters, to tell tokens apart in `faultline token list`
    created: float
    revoked: Optional[float] = None
    window_start: float = 0.0  # per-token rate limit: start of the current one-minute window
    window_count: int = 0


class ReportRow(SQLModel, table=True):
    __tablename__ = "outcome_report"
    __table_args__ = (Index("ix_outcome_report_repeat", "token_id", "entry_id", "target_kind", "target_key"),)
    id: Optional[int] = Field(default=None, primary_key=True)
    token_id: int = Field(foreign_key="api_token.id")
    entry_id: str = Field(index=True)  # no foreign key: entries are replaced by every reload of kb/
    target_kind: str  # "workaround" | "dead_end"
    target_key: str  # the workaround's or dead end's id (a hash of its English action)
    target_index: int  # its 1-based position in the entry when reported
    worked: bool
    environment: Optional[str] = None  # JSON, as given
    note: Optional[str] = None
    created: float
    retried: Optional[bool] = None  # the reporter reran the failed job as is first (a transient failure)
    retry_worked: Optional[bool] = None  # and that rerun succeeded


class KeptRow(SQLModel, table=True):
    """A result page's input (the pasted log, the environment, uploaded files), zlib-compressed JSON, kept
    under a random id until ``expires`` so that ``/results/<id>`` can show it again (app/api/kept.py)."""
    __tablename__ = "kept_result"
    id: str = Field(primary_key=True)  # 128 random bits, URL-safe: the link is the only key to it
    created: float = Field(index=True)
    expires: float
    viewed: bool = False  # the first view counts an unknown error in the inbox; later ones do not
    payload: bytes


class InboxRow(SQLModel, table=True):
    __tablename__ = "inbox_group"
    fingerprint: str = Field(primary_key=True)
    sample: str  # one scrubbed, masked failure line
    count: int
    first_seen: float
    last_seen: float


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


@dataclass
class Counts:
    """Reports on one entry: per target (kind, key) -> [successes, failures], and per reporter."""
    targets: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    fixed: int = 0  # reporters for whom some workaround worked
    not_fixed: int = 0  # reporters for whom none did
    retried: int = 0  # reporters who reran the failure as is first (its verdict: transient)
    retry_worked: int = 0  # of them, those for whom that rerun worked

    def of(self, kind: str, key: str) -> tuple[int, int]:
        s, f = self.targets.get((kind, key), (0, 0))
        return s, f


class RateLimited(Exception):
    def __init__(self, retry_after: int):
        self.retry_after = retry_after
        super().__init__(f"retry after {retry_after} s")


def _file_identity(path: Path | None) -> tuple[int, int] | None:
    try:
        st = path.stat() if path is not None else None
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if st is not None else None


def _migrate(engine: Engine) -> None:
    try:
        migrate(engine)
    except Exception:  # noqa: BLE001 - another process (a second worker) may be migrating right now
        time.sleep(1.0)
        try:
            migrate(engine)  # by now the schema is at head
        except Exception:  # noqa: BLE001 - e.g. a read-only database made before these tables
            log.warning("cannot bring the report tables up to date; reports cannot be stored", exc_info=True)


class WrittenStore:
    """Tokens, reports and the inbox on one engine (SQLite file or PostgreSQL).

    Opened on a ``target`` (``open()``), the store follows the file: when the SQLite file is replaced
    or re-created (the same check as the KB's, app/service.py), the next use opens the new file, so
    a report is never acknowledged into a deleted inode; while no file is there, every use fails
    (a DBAPIError: 503 for writes).  ``counts_or_none()`` is the read that degrades: while the
    database is unavailable it answers None at once (one log line per change of state)."""

    def __init__(self, engine: Engine, migrate_schema: bool = True, target: str | Path | None = None):
        self._engine = engine
        self._target = str(target) if target is not None else None
        self._path = sqlite_path(self._target) if self._target else None
        self._identity = _file_identity(self._path)
        self._lock = threading.Lock()
        self.available = True  # False from a failed read until one succeeds again
        self._retry_at = 0.0
        self._inbox_writes = 0
        # report counts per entry as last read, with when (time.monotonic()): /match reads the counts of
        # the entries it answers on every request; they are read again after COUNTS_FRESH_S (reports
        # another replica stored), and at once for an entry this process stored a report on
        self._counts_memo: OrderedDict[str, tuple[float, Counts | None]] = OrderedDict()
        self._memo_lock = threading.Lock()
        self.embedded = engine.dialect.name == "sqlite"  # reads never wait (WAL, an unbounded pool)
        if migrate_schema:
            _migrate(engine)

    @classmethod
    def open(cls, target: str | Path) -> "WrittenStore":
        return cls(engine_for(target), target=target)

    @property
    def engine(self) -> Engine:
        """The engine on the file the target names now (see the class)."""
        if self._path is None or _file_identity(self._path) == self._identity:
            return self._engine
        with self._lock:
            identity = _file_identity(self._path)
            if identity == self._identity:
                return self._engine
            if identity is None:
                raise OperationalError("open the report store", None,
                                       FileNotFoundError(f"the database file {self._path} is gone"))
            new = engine_for(self._target)
            _migrate(new)
            old, self._engine, self._identity = self._engine, new, identity
            old.dispose()
            self._forget_counts()
            log.info("the database file %s was replaced: tokens, reports and the inbox now use the new file",
                     display(self._target))
            return new

    def has_tables(self) -> bool:
        return inspect(self.engine).has_table(ReportRow.__tablename__)

    def close(self) -> None:
        self._engine.dispose()

    # --- availability -------------------------------------------------------------------------

    def went_down(self, exc: BaseException) -> None:
        """Note a failed use of the database: logged once, until it works again."""
        self._retry_at = time.monotonic() + RETRY_DOWN_S
        if self.available:
            self.available = False
            orig = getattr(exc, "orig", None) or exc
            first = str(orig).strip().splitlines()[0] if str(orig).strip() else type(orig).__name__
            log.warning("the database is unavailable (%s): answering from the knowledge base in memory, "
                        "without outcome-report counts, until it is back", first[:300])

    @property
    def retry_at(self) -> float:
        """When (time.monotonic()) an unavailable database is tried again."""
        return self._retry_at

    def came_back(self) -> None:
        if not self.available:
            self.available = True
            log.info("the database is available again: outcome-report counts are back")

    def counts_or_none(self, entry_ids: list[str] | None = None) -> dict[str, "Counts"] | None:
        """counts(), or None while the database is unavailable (then tried again every RETRY_DOWN_S).
        The counts of a few entries come from what was read less than COUNTS_FRESH_S ago where all of
        them were (see __init__); those of every entry are always read."""
        now = time.monotonic()
        if not self.available and now < self._retry_at:
            return None
        if entry_ids is not None:
            with self._memo_lock:
                memo = [self._counts_memo.get(e) for e in entry_ids]
            if all(m is not None and now - m[0] < COUNTS_FRESH_S for m in memo):
                return {e: m[1] for e, m in zip(entry_ids, memo) if m[1] is not None}
        try:
            out = self.counts(entry_ids)
        except DBAPIError as exc:
            self.went_down(exc)
            return None
        self.came_back()
        if entry_ids is not None:
            with self._memo_lock:
                for e in entry_ids:
                    self._counts_memo[e] = (now, out.get(e))
                    self._counts_memo.move_to_end(e)
                while len(self._counts_memo) > COUNTS_MEMO_SIZE:
                    self._counts_memo.popitem(last=False)
        return out

    def _forget_counts(self, entry_id: str | None = None) -> None:
        with self._memo_lock:
            if entry_id is None:
                self._counts_memo.clear()
            else:
                self._counts_memo.pop(entry_id, None)

    # --- tokens -------------------------------------------------------------------------------

    def create_token(self, scope: str, name: str | None = None) -> tuple[TokenRow, str]:
        """A new token; the clear text is returned here once and never stored."""
        if scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)}")
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        row = TokenRow(name=name or f"{scope}-token", scope=scope, token_hash=hash_token(token),
                       hint=token[: len(TOKEN_PREFIX) + 6], created=time.time())
        with Session(self.engine, expire_on_commit=False) as s:
            s.add(row)
            s.commit()
            s.refresh(row)
        return row, token

    def tokens(self) -> list[TokenRow]:
        with Session(self.engine, expire_on_commit=False) as s:
            return list(s.exec(select(TokenRow).order_by(TokenRow.id)))

    def revoke(self, ident: str) -> list[TokenRow]:
        """Revoke the token with this id, name or hint; the revoked rows (empty when none matched)."""
        with Session(self.engine, expire_on_commit=False) as s:
            cond = (TokenRow.name == ident) | (TokenRow.hint == ident)
            if ident.isdigit():
                cond = cond | (TokenRow.id == int(ident))
            rows = list(s.exec(select(TokenRow).where(cond, TokenRow.revoked.is_(None))))
            now = time.time()
            for r in rows:
                r.revoked = now
                s.add(r)
            s.commit()
            for r in rows:
                s.refresh(r)
            return rows

    def authenticate(self, token: str) -> TokenRow | None:
        """The live token row for this clear-text token, or None."""
        if not token.startswith(TOKEN_PREFIX) or len(token) > 200:
            return None
        with Session(self.engine, expire_on_commit=False) as s:
            row = s.exec(select(TokenRow).where(TokenRow.token_hash == hash_token(token))).first()
        if row is None or row.revoked is not None:
            return None
        return row

    # --- outcome reports ----------------------------------------------------------------------

    def add_report(self, token_id: int, entry_id: str, kind: str, key: str, index: int, worked: bool,
                   environment: Any = None, note: str | None = None, per_minute: int = 30,
                   retried: bool | None = None, retry_worked: bool | None = None) -> tuple[ReportRow, bool]:
        """Store a report; (row, created).  A repeat within 24 h returns the earlier row, not a new one.

        One transaction: the token's row is updated first (a write lock on SQLite, a row lock on
        PostgreSQL), so concurrent requests of one token are serialised and a repeat is never
        stored twice.  Raises RateLimited beyond ``per_minute`` requests of the token.
        """
        now = time.time()
        with Session(self.engine, expire_on_commit=False) as s:
            fresh = TokenRow.window_start > now - RATE_WINDOW_S
            tok = s.execute(update(TokenRow).where(TokenRow.id == token_id).values(
                window_count=_case(fresh, TokenRow.window_count + 1, 1),
                window_start=_case(fresh, TokenRow.window_start, now),
            ).returning(TokenRow.window_start, TokenRow.window_count)).one()
            if tok.window_count > per_minute:
                s.rollback()
                raise RateLimited(max(1, int(tok.window_start + RATE_WINDOW_S - now + 0.999)))
            earlier = s.exec(select(ReportRow).where(
                ReportRow.token_id == token_id, ReportRow.entry_id == entry_id, ReportRow.target_kind == kind,
                ReportRow.target_key == key, ReportRow.created > now - REPEAT_WINDOW_S,
            ).order_by(ReportRow.id)).first()
            if earlier is not None:
                s.commit()  # the request still counts towards the rate
                return earlier, False
            row = ReportRow(token_id=token_id, entry_id=entry_id, target_kind=kind, target_key=key, target_index=index,
                            worked=worked, note=note, created=now, retried=retried, retry_worked=retry_worked,
                            environment=None if environment is None else json.dumps(environment, ensure_ascii=False))
            s.add(row)
            s.commit()  # the id was fetched by the insert; nothing is expired on commit
        self._forget_counts(entry_id)  # this process's next match counts it
        return row, True

    def counts(self, entry_ids: list[str] | None = None) -> dict[str, Counts]:
        """Report counts per entry (all entries when ``entry_ids`` is None), in one grouped query."""
        out: dict[str, Counts] = {}
        fixed: dict[tuple[str, int], bool] = {}  # (entry, reporter) -> did some workaround work for them
        retries: dict[tuple[str, int], bool] = {}  # (entry, reporter who retried as is) -> did a retry work
        q = select(ReportRow.entry_id, ReportRow.target_kind, ReportRow.target_key, ReportRow.worked,
                   ReportRow.token_id, ReportRow.retried, ReportRow.retry_worked, func.count()).group_by(
            ReportRow.entry_id, ReportRow.target_kind, ReportRow.target_key, ReportRow.worked, ReportRow.token_id,
            ReportRow.retried, ReportRow.retry_worked)
        if entry_ids is not None:
            q = q.where(ReportRow.entry_id.in_(entry_ids))
        try:
            with self.engine.connect() as conn:  # core, no ORM session: this runs on every /match
                rows = list(conn.execute(q))
        except DBAPIError:
            if not self.has_tables():  # a database made before reports existed has none to count
                return {}
            raise
        for eid, kind, key, worked, tok, retried, retry_worked, n in rows:
            c = out.setdefault(eid, Counts())
            if retried:
                retries[(eid, tok)] = retries.get((eid, tok), False) or bool(retry_worked)
            pair = c.targets.setdefault((kind, key), [0, 0])
            pair[0 if worked else 1] += n
            if kind == "workaround":
                fixed[(eid, tok)] = fixed.get((eid, tok), False) or bool(worked)
        for (eid, _tok), ok in fixed.items():
            if ok:
                out[eid].fixed += 1
            else:
                out[eid].not_fixed += 1
        for (eid, _tok), ok in retries.items():
            out[eid].retried += 1
            out[eid].retry_worked += int(ok)
        return out

    def counts_for(self, entry_id: str) -> Counts:
        return self.counts([entry_id]).get(entry_id, Counts())

    def report_ids(self) -> set[int]:
        with Session(self.engine, expire_on_commit=False) as s:
            return set(s.exec(select(ReportRow.id)))

    # --- the inbox ----------------------------------------------------------------------------

    def record_unknown(self, fingerprint: str, sample: str) -> None:
        """Count one more paste of an unknown error (an upsert on the fingerprint)."""
        now = time.time()
        table = InboxRow.__table__
        if self.engine.dialect.name == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        stmt = insert(table).values(fingerprint=fingerprint, sample=sample, count=1, first_seen=now, last_seen=now)
        stmt = stmt.on_conflict_do_update(index_elements=[table.c.fingerprint],
                                          set_={"count": table.c.count + 1, "last_seen": now})
        with self.engine.begin() as conn:
            conn.execute(stmt)
            self._inbox_writes += 1
            if self._inbox_writes % 16 == 1:  # the cap, checked now and then (a count of at most ~10k rows)
                self._cap_inbox(conn)

    def _cap_inbox(self, conn, cap: int | None = None) -> None:
        """Keep at most ``cap`` groups: the oldest groups seen only once go first, then the oldest."""
        cap = cap or MAX_INBOX_GROUPS
        t = InboxRow.__table__
        n = conn.execute(select(func.count()).select_from(t)).scalar_one()
        if n <= cap:
            return
        excess = n - cap + max(1, cap // 20)  # some room, so that this does not run on every write
        for cond in (t.c.count == 1, None):
            q = select(t.c.fingerprint).order_by(t.c.last_seen).limit(excess)
            if cond is not None:
                q = q.where(cond)
            fps = [r[0] for r in conn.execute(q)]
            if fps:
                conn.execute(t.delete().where(t.c.fingerprint.in_(fps)))
                excess -= len(fps)
            if excess <= 0:
                break

    # --- results kept for a link ------------------------------------------------------------------

    def keep(self, payload: bytes, ttl_s: float, cap: int) -> str:
        """Store ``payload`` under a new random id for ``ttl_s`` seconds; expired rows go, and beyond ``cap``
        rows the oldest make room (the store never grows without bound)."""
        now = time.time()
        kid = secrets.token_urlsafe(16)
        t = KeptRow.__table__
        with self.engine.begin() as conn:
            conn.execute(t.delete().where(t.c.expires < now))
            conn.execute(t.insert().values(id=kid, created=now, expires=now + ttl_s, viewed=False, payload=payload))
            n = conn.execute(select(func.count()).select_from(t)).scalar_one()
            if n > cap:
                old = [r[0] for r in conn.execute(select(t.c.id).order_by(t.c.created).limit(n - cap))]
                conn.execute(t.delete().where(t.c.id.in_(old)))
        return kid

    def kept(self, kid: str) -> tuple[bytes, float, bool] | None:
        """(payload, expires, first view) of a kept result; None when it never was or has expired.
        The first call for an id says True once (an atomic update), later calls False."""
        t = KeptRow.__table__
        with self.engine.begin() as conn:
            row = conn.execute(select(t.c.payload, t.c.expires).where(t.c.id == kid)).first()
            if row is None or row.expires < time.time():
                return None
            first = conn.execute(update(t).where(t.c.id == kid, t.c.viewed.is_(False)).values(viewed=True)).rowcount
        return bytes(row.payload), row.expires, bool(first)

    def inbox(self, limit: int = 100) -> list[InboxRow]:
        with Session(self.engine, expire_on_commit=False) as s:
            return list(s.exec(select(InboxRow).order_by(InboxRow.count.desc(), InboxRow.last_seen.desc())
                               .limit(limit)))

    def inbox_group(self, fingerprint: str) -> InboxRow | None:
        with Session(self.engine, expire_on_commit=False) as s:
            return s.get(InboxRow, fingerprint)


def _case(cond, yes, no):
    return case((cond, yes), else_=no)


_STORES_LOCK = threading.Lock()


def store_for_app(app) -> WrittenStore:
    """The app's store, opened on first use on the database the KB service uses."""
    st = getattr(app.state, "written", None)
    if st is not None:
        return st
    with _STORES_LOCK:
        st = getattr(app.state, "written", None)
        if st is None:
            kb = app.state.kb
            target = getattr(kb, "target", None) or kb.db_path
            st = WrittenStore.open(target)
            app.state.written = st
    return st


def close_for_app(app) -> None:
    """Close the app's store (at shutdown); the next use opens it again."""
    st = getattr(app.state, "written", None)
    if st is not None:
        del app.state.written
        st.close()


def read_counts(target: str | Path, entry_ids: list[str] | None = None) -> dict[str, Counts]:
    """Report counts straight from a database, without changing it (for the CLI); {} before any report table."""
    if not target or (not is_url(target) and not Path(target).is_file()):
        return {}
    st = WrittenStore(engine_for(target, readonly=True), migrate_schema=False)
    try:
        return st.counts(entry_ids) if st.has_tables() else {}
    finally:
        st.close()
