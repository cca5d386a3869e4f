"""A run's identity across stores: `push` copies a run to a team's database once, and knows it
there by this id however many machines push.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(sa.Column("uid", sa.Text))
    op.create_index("runs_by_uid", "runs", ["uid"], unique=True)


def downgrade() -> None:
    op.drop_index("runs_by_uid", "runs")
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("uid")
