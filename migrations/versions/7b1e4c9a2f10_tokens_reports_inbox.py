"""tokens, outcome reports and the inbox of unknown errors (never touched by a reload of kb/)

Revision ID: 7b1e4c9a2f10
Revises: 32d548686628
Create Date: 2026-12-02 17:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = "7b1e4c9a2f10"
down_revision = "32d548686628"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "api_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("scope", sa.String(), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False),
        sa.Column("hint", sa.String(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("revoked", sa.Float(), nullable=True),
        sa.Column("window_start", sa.Float(), nullable=False, server_default="0"),
        sa.Column("window_count", sa.Integer(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("token_hash"),
    )
    op.create_table(
        "outcome_report",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("token_id", sa.Integer(), nullable=False),
        sa.Column("entry_id", sa.String(), nullable=False),
        sa.Column("target_kind", sa.String(), nullable=False),
        sa.Column("target_key", sa.String(), nullable=False),
        sa.Column("target_index", sa.Integer(), nullable=False),
        sa.Column("worked", sa.Boolean(), nullable=False),
        sa.Column("environment", sa.String(), nullable=True),
        sa.Column("note", sa.String(), nullable=True),
        sa.Column("created", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["token_id"], ["api_token.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_outcome_report_entry_id", "outcome_report", ["entry_id"])
    op.create_index("ix_outcome_report_repeat", "outcome_report", ["token_id", "entry_id", "target_kind", "target_key"])
    op.create_table(
        "inbox_group",
        sa.Column("fingerprint", sa.String(), nullable=False),
        sa.Column("sample", sa.String(), nullable=False),
        sa.Column("count", sa.Integer(), nullable=False),
        sa.Column("first_seen", sa.Float(), nullable=False),
        sa.Column("last_seen", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("fingerprint"),
    )


def downgrade() -> None:
    op.drop_table("inbox_group")
    op.drop_index("ix_outcome_report_repeat", table_name="outcome_report")
    op.drop_index("ix_outcome_report_entry_id", table_name="outcome_report")
    op.drop_table("outcome_report")
    op.drop_table("api_token")
