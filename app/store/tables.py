"""SQLite tables (SQLModel). The schema itself is created by Alembic (migrations/)."""
from __future__ import annotations

from typing import Optional

from sqlmodel import Field, SQLModel


class EntryRow(SQLModel, table=True):
    __tablename__ = "entry"
    id: str = Field(primary_key=True)
    domain: str = Field(index=True)
    category: str
    title_en: str
    title_zh: str
    search_text: str  # lowercased text for ?q= search
    document: str  # the validated entry as JSON (app.entry.Entry)
    source_file: str


class EntryTagRow(SQLModel, table=True):
    __tablename__ = "entry_tag"
    entry_id: str = Field(foreign_key="entry.id", primary_key=True)
    tag: str = Field(primary_key=True, index=True)


class SignatureRow(SQLModel, table=True):
    __tablename__ = "signature"
    id: Optional[int] = Field(default=None, primary_key=True)
    entry_id: str = Field(foreign_key="entry.id", index=True)
    name: str
    pattern: str


class GuideRow(SQLModel, table=True):
    __tablename__ = "guide"
    id: str = Field(primary_key=True)
    title_en: str
    title_zh: str
    document: str


class MetaRow(SQLModel, table=True):
    __tablename__ = "kb_meta"
    key: str = Field(primary_key=True)
    value: str
