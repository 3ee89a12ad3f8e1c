"""outcome reports say whether the failure was retried as is, and whether that retry worked

Revision ID: c3f81a2d9e47
Revises: 7b1e4c9a2f10
Create Date: 2026-12-04 02:40:00
"""
from alembic import op
import sqlalchemy as sa


revision = "c3f81a2d9e47"
down_revision = "7b1e4c9a2f10"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # nullable: reports sent before (and reports that do not say) leave both unknown
    op.add_column("outcome_report", sa.Column("retried", sa.Boolean(), nullable=True))
    op.add_column("outcome_report", sa.Column("retry_worked", sa.Boolean(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outcome_report") as batch:
        batch.drop_column("retry_worked")
        batch.drop_column("retried")
