"""The schema as SQLite's PRAGMA-numbered migrations left it at version 6 (store/schema.py):
runs, machine records, libraries, cases, raw samples, failures, the config scenario's rows,
scenario figures and calibrations. A new database of either engine starts here; an SQLite file
of an older cryptobench is first brought to version 6 by the legacy chain, then stamped here.

Revision ID: 0006
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = None
branch_labels = None
depends_on = None


def _run_fk() -> sa.ForeignKey:
    return sa.ForeignKey("runs.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "runs",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("started_at", sa.Text, nullable=False),
        sa.Column("finished_at", sa.Text),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("suite", sa.Text, nullable=False),
        sa.Column("settings", sa.Text, nullable=False),
        sa.Column("argv", sa.Text, nullable=False),
        sa.Column("cryptobench_version", sa.Text, nullable=False),
        sa.Column("runner", sa.Text, nullable=False),
        sa.Column("runner_version", sa.Text, nullable=False),
        sa.Column("runner_path", sa.Text, nullable=False),
        sa.Column("pid", sa.Integer),
        sa.Column("note", sa.Text, nullable=False, server_default=""),
    )
    op.create_table(
        "machine",
        sa.Column("run_id", sa.Integer, _run_fk(), primary_key=True),
        sa.Column("hostname", sa.Text),
        sa.Column("cpu_model", sa.Text),
        sa.Column("cores", sa.Integer),
        sa.Column("kernel", sa.Text),
        sa.Column("os", sa.Text),
        sa.Column("compiler", sa.Text),
        sa.Column("tsc_hz", sa.Float),
        sa.Column("tsc_invariant", sa.Integer),
        sa.Column("governor", sa.Text),
        sa.Column("cpu_flags", sa.Text),
        sa.Column("record", sa.Text, nullable=False),
    )
    op.create_table(
        "libraries",
        sa.Column("run_id", sa.Integer, _run_fk(), primary_key=True),
        sa.Column("provider", sa.Text, primary_key=True),
        sa.Column("variant", sa.Text, primary_key=True),
        sa.Column("version", sa.Text, nullable=False),
        sa.Column("description", sa.Text, nullable=False),
        sa.Column("code_path", sa.Text, nullable=False),
    )
    op.create_table(
        "cases",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, _run_fk(), nullable=False),
        sa.Column("seq", sa.Integer, nullable=False),
        sa.Column("provider", sa.Text, nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("operation", sa.Text, nullable=False),
        sa.Column("algorithm", sa.Text, nullable=False),
        sa.Column("size", sa.BigInteger, nullable=False),
        sa.Column("input", sa.Text, nullable=False),
        sa.Column("align_offset", sa.Integer, nullable=False),
        sa.Column("aad_bytes", sa.Integer, nullable=False),
        sa.Column("cost", sa.Text, nullable=False, server_default="{}"),
        sa.Column("spec", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("gate", sa.Text),
        sa.Column("iterations", sa.BigInteger),
        sa.Column("calibration_ns", sa.BigInteger),
        sa.Column("heap_allocs_per_op", sa.Float),
        sa.Column("heap_frees_per_op", sa.Float),
        sa.Column("heap_bytes_per_op", sa.Float),
        sa.Column("heap_peak_live_bytes", sa.BigInteger),
        sa.Column("heap_prepare_allocs", sa.BigInteger),
        sa.Column("heap_prepare_bytes", sa.BigInteger),
        sa.Column("max_rss_kb", sa.BigInteger),
        sa.Column("runner_summary", sa.Text),
        sa.Column("completed_at", sa.Text),
        sa.UniqueConstraint(
            "run_id",
            "provider",
            "variant",
            "operation",
            "algorithm",
            "size",
            "input",
            "align_offset",
            "aad_bytes",
            "cost",
        ),
    )
    op.create_index("cases_by_run", "cases", ["run_id", "seq"])
    op.create_table(
        "samples",
        sa.Column(
            "case_id", sa.Integer, sa.ForeignKey("cases.id", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("iterations", sa.BigInteger, nullable=False),
        sa.Column("ns", sa.BigInteger, nullable=False),
        sa.Column("ticks", sa.BigInteger, nullable=False),
    )
    op.create_table(
        "failures",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("run_id", sa.Integer, _run_fk(), nullable=False),
        sa.Column("case_id", sa.Integer, sa.ForeignKey("cases.id", ondelete="CASCADE")),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("message", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False, server_default=""),
        sa.Column("at", sa.Text, nullable=False),
    )
    for name, value_columns in (
        (
            "scenario_samples",
            [
                sa.Column("run_index", sa.Integer, primary_key=True),
                sa.Column("ns", sa.BigInteger, nullable=False),
            ],
        ),
        (
            "scenario_heap",
            [
                sa.Column("allocs", sa.BigInteger, nullable=False),
                sa.Column("bytes", sa.BigInteger, nullable=False),
                sa.Column("peak_live_bytes", sa.BigInteger, nullable=False),
            ],
        ),
    ):
        op.create_table(
            name,
            sa.Column("run_id", sa.Integer, _run_fk(), primary_key=True),
            sa.Column("scheme", sa.Text, primary_key=True),
            sa.Column("provider", sa.Text, primary_key=True),
            sa.Column("n", sa.Integer, primary_key=True),
            sa.Column("direction", sa.Text, primary_key=True),
            *value_columns,
        )
    op.create_table(
        "figures",
        sa.Column("run_id", sa.Integer, _run_fk(), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("key", sa.Text, nullable=False),
        sa.Column("metric", sa.Text, nullable=False),
        sa.Column("unit", sa.Text, nullable=False),
        sa.Column("better", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("reason", sa.Text, nullable=False, server_default=""),
        sa.Column("vals", sa.Text, nullable=False),
        sa.Column("extra", sa.Text, nullable=False, server_default="{}"),
    )
    op.create_table(
        "calibrations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("created_at", sa.Text, nullable=False),
        sa.Column("hostname", sa.Text),
        sa.Column("cpu_model", sa.Text),
        sa.Column("run_a", sa.Integer, _run_fk(), nullable=False),
        sa.Column("run_b", sa.Integer, _run_fk(), nullable=False),
        sa.Column("noise", sa.Float, nullable=False),
        sa.Column("figures", sa.Text, nullable=False),
    )


def downgrade() -> None:
    for name in (
        "calibrations",
        "figures",
        "scenario_heap",
        "scenario_samples",
        "failures",
        "samples",
        "cases",
        "libraries",
        "machine",
        "runs",
    ):
        op.drop_table(name)
