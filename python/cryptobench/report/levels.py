"""Results grouped by security level (NIST SP 800-57, BSI TR-02102-1, ECRYPT-CSA)."""

from html import escape

from cryptobench import security
from cryptobench.analysis import PRIMARY_OPERATIONS, CaseResult, RunResults
from cryptobench.report.html import how, html_table
from cryptobench.units import format_ops, format_rate, format_size


def by_level(r: RunResults, size: int | None) -> str:
    levels = security.levels()
    year = security.current_year()
    # Symmetric algorithms are compared at the report's size where they were measured there,
    # else at their largest size.
    sizes: dict[str, set[int]] = {}
    for c in r.symmetric_cases():
        sizes.setdefault(c.algorithm, set()).add(c.size)
    at = {a: size if size in s else max(s) for a, s in sizes.items()}
    # One operation per algorithm: the first of _PREFERRED it was measured with.
    measured_ops: dict[str, set[str]] = {}
    for c in r.ok_cases():
        measured_ops.setdefault(c.algorithm_label, set()).add(c.operation)
    # An operation outside _PREFERRED (an imported whole command, `run`) has no level row.
    shown = {
        label: next((op for op in _PREFERRED if op in ops), None)
        for label, ops in measured_ops.items()
    }
    best: dict[tuple[str, str], CaseResult] = {}
    for c in r.ok_cases():
        if c.operation != shown[c.algorithm_label]:
            continue
        if c.symmetric and c.size != at[c.algorithm]:
            continue
        key = (c.algorithm_label, c.operation)
        if key not in best or _speed(c) > _speed(best[key]):
            best[key] = c
    if not best:
        return "<p>No successful cases.</p>"
    order = {a: i for i, a in enumerate(r.algorithms())}
    rows = []
    for (label, op), c in sorted(
        best.items(),
        key=lambda kv: (-_rating_level(levels, kv[1].algorithm), order[kv[1].algorithm], kv[0]),
    ):
        rating = levels.get(c.algorithm)
        figure = (
            f"{format_rate(c.bytes_per_s)} at {format_size(c.size)}"
            if c.symmetric
            else format_ops(c.ops_per_s)
        )
        verdicts = rating.verdicts if rating else {}
        rows.append(
            (
                _level_name(rating.level) if rating else "?",
                c.kind,
                label,
                str(rating.strength) if rating else "?",
                op,
                c.label,
                ("~" if c.unstable else "") + figure,
                *(verdicts[d].describe(year) if d in verdicts else "?" for d in security.DOCUMENTS),
            )
        )
    docs = "; ".join(
        f"<b>{escape(k)}</b>: {escape(d.citation)}" for k, d in levels.documents.items()
    )
    return html_table(
        [
            "level (bits)",
            "kind",
            "algorithm",
            "strength",
            "operation",
            "fastest",
            "figure",
            "NIST",
            "BSI",
            "ECRYPT-CSA",
        ],
        rows,
        numeric={3},
    ) + how(
        "Each algorithm measured in this run, under the largest of the security levels of NIST "
        "SP 800-57 Part 1 (80, 112, 128, 192, 256 bits) its strength reaches, with its fastest "
        "provider for one operation (the first measured of encrypt, hash, mac, sign, verify, "
        "derive, decrypt, keygen): symmetric algorithms by throughput at the report's size "
        "(else the algorithm's largest size), the others by operations per second. Strengths "
        "and verdicts come from the file <code>cryptobench/data/security_levels.toml</code>, "
        "which cites each document and says "
        "how each family is rated (hashes by collision resistance; KDFs by their PRF, never more "
        "than the password's entropy). Verdicts are for the year "
        f"{year}. Documents: {docs}. <code>cryptobench recommend</code> answers the same "
        "question per kind of primitive."
    )


def _speed(c: CaseResult) -> float:
    return (c.bytes_per_s if c.symmetric else c.ops_per_s) or 0.0


# The operation that stands for an algorithm in the security-level table, in order of preference.
_PREFERRED = (*PRIMARY_OPERATIONS, "sign", "verify", "derive", "decrypt", "keygen")


def _rating_level(levels: security.SecurityLevels, algorithm: str) -> int:
    rating = levels.get(algorithm)
    return rating.level if rating else -1


def _level_name(level: int) -> str:
    return "< 80 (broken)" if level == 0 else str(level)
