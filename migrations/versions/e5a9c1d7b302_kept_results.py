"""results kept for a shareable link (/results/<id>): the page's input, compressed, with an expiry

Revision ID: e5a9c1d7b302
Revises: c3f81a2d9e47
Create Date: 2026-12-04 19:45:00
"""
from alembic import op
import sqlalchemy as sa


revision = "e5a9c1d7b302"
down_revision = "c3f81a2d9e47"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "kept_result",
        sa.Column("id", sa.String(), nullable=False),
        sa.Column("created", sa.Float(), nullable=False),
        sa.Column("expires", sa.Float(), nullable=False),
        sa.Column("viewed", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("payload", sa.LargeBinary(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_kept_result_created", "kept_result", ["created"])


def downgrade() -> None:
    op.drop_index("ix_kept_result_created", table_name="kept_result")
    op.drop_table("kept_result")
