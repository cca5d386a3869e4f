"""The configuration scenario's runs become figures like every other scenario's, and the store
loses the two tables only it used (`scenario_samples`, `scenario_heap`).

Each (run, scheme, provider, n, direction) becomes the figure `time` in seconds, one value per
run in run order, and three heap figures of one value (`heap allocations`, `heap bytes`, `peak
live heap`); a scheme/provider the driver skipped becomes a skipped `time` figure with its
reason. The run's settings["scenario"] becomes the driver's spec with `info`, `notes` and
`extrapolate` beside it. This is the shape python/cryptobench/scenarios/config/figures.py writes
(`to_figures`, `stored_settings`); a migration keeps its own copy, since it must convert old
files the same way whatever the scenario's code becomes.

Revision ID: 0009
Revises: 0008
"""

import json
from collections import defaultdict

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_HEAP = (
    ("allocs", "heap allocations", "calls"),
    ("bytes", "heap bytes", "B"),
    ("peak_live_bytes", "peak live heap", "B"),
)


def _key(scheme: str, provider: str, n: int, direction: str) -> str:
    key = {"scheme": scheme, "provider": provider or "", "n": int(n), "direction": direction}
    return json.dumps(key, sort_keys=True)


def _figure(run_id: int, seq: int, key: str, metric: str, unit: str, values: list, **row) -> dict:
    return {
        "run_id": run_id,
        "seq": seq,
        "key": key,
        "metric": metric,
        "unit": unit,
        "better": "lower",
        "status": row.get("status", "ok"),
        "reason": row.get("reason", ""),
        "vals": json.dumps(values),
        "extra": "{}",
    }


def upgrade() -> None:
    conn = op.get_bind()
    times: dict[tuple[int, str], list[float]] = defaultdict(list)
    for r in conn.execute(
        sa.text(
            "SELECT run_id, scheme, provider, n, direction, ns FROM scenario_samples"
            " ORDER BY run_id, run_index"
        )
    ):
        times[(r.run_id, _key(r.scheme, r.provider, r.n, r.direction))].append(r.ns / 1e9)
    heap = conn.execute(
        sa.text(
            "SELECT run_id, scheme, provider, n, direction, allocs, bytes, peak_live_bytes"
            " FROM scenario_heap ORDER BY run_id, scheme, provider, n, direction"
        )
    ).fetchall()
    runs = conn.execute(
        sa.text("SELECT id, settings FROM runs WHERE suite = 'scenario:config'")
    ).fetchall()
    run_ids = sorted({r.id for r in runs} | {k[0] for k in times} | {h.run_id for h in heap})
    rows: list[dict] = []
    seq: dict[int, int] = {}
    for run_id in run_ids:
        (last,) = conn.execute(
            sa.text("SELECT COALESCE(MAX(seq), -1) FROM figures WHERE run_id = :r"), {"r": run_id}
        ).fetchone()
        seq[run_id] = last + 1

    def add(run_id: int, *args, **kw) -> None:
        rows.append(_figure(run_id, seq[run_id], *args, **kw))
        seq[run_id] += 1

    for (run_id, key), values in times.items():
        add(run_id, key, "time", "s", values)
    for h in heap:
        key = _key(h.scheme, h.provider, h.n, h.direction)
        for column, metric, unit in _HEAP:
            add(h.run_id, key, metric, unit, [float(getattr(h, column))])
    for r in runs:
        settings = json.loads(r.settings or "{}")
        old = settings.get("scenario") if isinstance(settings, dict) else None
        if not isinstance(old, dict) or "spec" not in old:
            continue
        for skip in old.get("skipped", []):
            key = json.dumps(
                {"provider": skip.get("provider") or "", "scheme": skip.get("scheme", "")},
                sort_keys=True,
            )
            add(r.id, key, "time", "s", [], status="skipped", reason=skip.get("reason", ""))
        settings["scenario"] = {
            **old["spec"],
            **{k: old.get(k, {}) for k in ("info", "notes", "extrapolate")},
        }
        conn.execute(
            sa.text("UPDATE runs SET settings = :s WHERE id = :r"),
            {"s": json.dumps(settings), "r": r.id},
        )
    if rows:
        conn.execute(
            sa.text(
                "INSERT INTO figures (run_id, seq, key, metric, unit, better, status, reason,"
                " vals, extra) VALUES (:run_id, :seq, :key, :metric, :unit, :better, :status,"
                " :reason, :vals, :extra)"
            ),
            rows,
        )
    op.drop_table("scenario_heap")
    op.drop_table("scenario_samples")


def downgrade() -> None:
    # The tables come back empty: the figures stay where they are, readable by this revision's
    # cryptobench and later ones.
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
            sa.Column(
                "run_id", sa.Integer, sa.ForeignKey("runs.id", ondelete="CASCADE"), primary_key=True
            ),
            sa.Column("scheme", sa.Text, primary_key=True),
            sa.Column("provider", sa.Text, primary_key=True),
            sa.Column("n", sa.Integer, primary_key=True),
            sa.Column("direction", sa.Text, primary_key=True),
            *value_columns,
        )
