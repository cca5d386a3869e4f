"""A case's measurement facts the runner reports beyond its samples: buffer layout (in place or
not, distance), the core clock around the case, re-warms, and the whole heap record (anonymous
mmap, minor faults, per-case resident peak).

Revision ID: 0008
Revises: 0007
"""

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.add_column(sa.Column("measurement", sa.Text))


def downgrade() -> None:
    with op.batch_alter_table("cases") as batch:
        batch.drop_column("measurement")
