"""Indexes for reading across runs (`cryptobench serve`): one case's history finds its rows by
the case's identity instead of reading every case of every run; the runs page counts a page of
runs' cases by status from the index alone; runs filter by machine and library version and
sort by date.

Revision ID: 0010
Revises: 0009
"""

from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index(
        "cases_by_identity", "cases", ["algorithm", "operation", "provider", "variant", "size"]
    )
    op.create_index("cases_by_run_status", "cases", ["run_id", "status"])
    op.create_index("runs_by_started", "runs", ["started_at"])
    op.create_index("machine_by_host", "machine", ["hostname"])
    op.create_index("libraries_by_version", "libraries", ["version"])


def downgrade() -> None:
    op.drop_index("libraries_by_version", "libraries")
    op.drop_index("machine_by_host", "machine")
    op.drop_index("runs_by_started", "runs")
    op.drop_index("cases_by_run_status", "cases")
    op.drop_index("cases_by_identity", "cases")
