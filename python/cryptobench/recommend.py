"""`cryptobench recommend`: for each kind of primitive, the fastest measured provider and algorithm
that reaches a security strength and that none of the cited documents disallows.

Figures come from one stored run. Symmetric kinds are ranked by throughput at one message size
(the requested one, else the nearest size measured for that kind), the others by operations per
second. Password-based KDFs are slow on purpose and their speed depends on the cost parameters,
so KDFs are never ranked against each other: each KDF at each cost gets its fastest provider.
"""

import math
from dataclasses import dataclass, field
from typing import Any

from cryptobench import security, versions
from cryptobench.analysis import CaseResult, RunResults, is_baseline
from cryptobench.errors import UserError
from cryptobench.leakverdicts import Checks, Verdicts
from cryptobench.noise import DEFAULT_NOISE
from cryptobench.plan import format_cost
from cryptobench.units import format_ns, format_ops, format_rate, format_size

DEFAULT_LEVEL = 128
DEFAULT_SIZE = 16 * 1024

# (what the row is called, the algorithms' kind, the operation ranked)
KINDS: tuple[tuple[str, str | None, str], ...] = (
    ("cipher", "cipher", "encrypt"),
    ("aead", "aead", "encrypt"),
    ("hash", "hash", "hash"),
    ("mac", "mac", "mac"),
    ("signature sign", "signature", "sign"),
    ("signature verify", "signature", "verify"),
    ("key agreement", "key-agreement", "derive"),
    ("kem encapsulation", "kem", "encaps"),
    ("kem decapsulation", "kem", "decaps"),
    ("public-key encryption", "pk-encryption", "encrypt"),
    ("public-key decryption", "pk-encryption", "decrypt"),
    ("key generation", None, "keygen"),  # any key type
    ("kdf", "kdf", "derive"),
)
SYMMETRIC = ("cipher", "aead", "hash", "mac")


@dataclass
class Choice:
    kind: str  # a KINDS name
    case: CaseResult | None  # the fastest qualifying case; None when nothing qualifies
    rating: security.Rating | None = None
    size: int | None = None  # symmetric kinds: the message size compared
    candidates: int = 0  # qualifying (provider, variant, algorithm) cases compared
    note: str = ""  # why nothing qualifies, or what to read the figure with
    tied: list[CaseResult] = field(default_factory=list)  # as fast, within the noise
    runner_up: CaseResult | None = None  # the next fastest qualifying case
    # The chosen case's constant-time verdicts (leakverdicts.py); None when no leaks run was read.
    constant_time: Verdicts | None = None

    @property
    def figure(self) -> float | None:
        if not self.case:
            return None
        return self.case.bytes_per_s if self.kind in SYMMETRIC else self.case.ops_per_s


@dataclass
class Recommendation:
    run: RunResults
    level: int
    year: int
    requested_size: int
    choices: list[Choice] = field(default_factory=list)
    checks: Checks = field(default_factory=Checks)


def recommend(
    results: RunResults,
    level: int = DEFAULT_LEVEL,
    size: int = DEFAULT_SIZE,
    year: int | None = None,
    noise: float = DEFAULT_NOISE,
    checks: Checks | None = None,
    avoid_leaky: bool = False,
) -> Recommendation:
    """`noise`: the machine's run-to-run noise (noise.py); two providers whose confidence
    intervals overlap or whose medians differ by less than it are tied, not ranked. `checks`:
    the constant-time verdicts of the store's leaks runs (leakverdicts.load), shown beside each
    choice; `avoid_leaky` passes over every case they found leaky, by timing or by taint."""
    checks = checks or Checks()
    year = year or security.current_year()
    check_level(level)
    levels = security.levels()
    rec = Recommendation(results, level, year, size, checks=checks)
    # What a user can deploy: a library's own configuration, not a variant with acceleration
    # switched off (a noise win of `botan/noaesni` is no recommendation); never the null
    # provider, which measures the harness, not a library.
    ok = [c for c in results.ok_cases() if c.variant == "default" and not is_baseline(c)]
    for name, kind, operation in KINDS:
        measured = [c for c in ok if c.operation == operation and (kind is None or c.kind == kind)]
        if kind == "kdf":
            rec.choices += _kdf_choices(measured, level, year)
            continue
        qualifying, why = _qualifying(measured, level, year, name, results.run.id)
        if not qualifying:
            rec.choices.append(Choice(name, None, note=why))
            continue
        passed_over = []
        if avoid_leaky:
            passed_over = [c for c in qualifying if checks.of(c.label, c.algorithm).leaky]
            qualifying = [c for c in qualifying if c not in passed_over]
            if not qualifying:
                rec.choices.append(Choice(name, None, note="every qualifying case was found leaky"))
                continue
        at = None
        if name in SYMMETRIC:
            at = _nearest(sorted({c.size for c in qualifying}), size)
            qualifying = [c for c in qualifying if c.size == at]
        # A strict verifier beats a faster lax one (which accepts malleable signatures).
        strict = [c for c in qualifying if not c.gate.get("lax")]
        ranked = strict or qualifying
        ordered = sorted(ranked, key=lambda c: _figure(name, c), reverse=True)
        best, runner_up = ordered[0], (ordered[1] if len(ordered) > 1 else None)
        tied = [c for c in ranked if c is not best and _tied(best, c, noise)]
        notes = []
        if at is not None and at != size:
            notes.append(f"at {format_size(at)}, the measured size nearest to {format_size(size)}")
        if best.gate.get("lax"):
            # Right output, but a verifier that accepts non-canonical signatures (malleable).
            notes.append(f"lax verifier: {best.gate['lax']}")
        elif len(strict) < len(qualifying):
            notes.append("faster lax verifiers passed over (they accept malleable signatures)")
        if tied:
            notes.append(
                "tied with "
                + ", ".join(f"{c.label} {c.algorithm_label}" for c in tied)
                + f" (intervals overlap or within the {noise:.0%} noise)"
            )
        versus = _against_system(best, ranked, name, noise)
        if versus:
            notes.append(versus)
        if passed_over:
            leaky = sorted({f"{c.label} {c.algorithm_label}" for c in passed_over})
            notes.append("passed over as leaky: " + ", ".join(leaky))
        note = "; ".join(notes)
        rec.choices.append(
            Choice(name, best, levels.get(best.algorithm), at, len(qualifying), note, tied,
                   runner_up)
        )  # fmt: skip
    if checks:
        for ch in rec.choices:
            if ch.case is not None:
                ch.constant_time = checks.of(ch.case.label, ch.case.algorithm)
    return rec


def _against_system(best: CaseResult, ranked: list[CaseResult], name: str, noise: float) -> str:
    """For a versioned provider (openssl@3.5, aws-lc; docs/versions.md): how it compares with
    its family's system library on the same case, "aws-lc 1.4× openssl", or that they are tied
    by the same noise rule."""
    family = versions.table().get(best.provider, {}).get("family")
    system = next(
        (c for c in ranked if c.provider == family and c.algorithm == best.algorithm), None
    )
    if not family or system is None or _figure(name, system) <= 0:
        return ""
    ratio = _figure(name, best) / _figure(name, system)
    if _tied(best, system, noise):
        return f"tied with the system {family} ({ratio:.2f}×, within the noise)"
    return f"{best.label} {ratio:.1f}× the system {family}"


def check_level(level: int) -> None:
    strongest = security.levels().strongest()
    if level > strongest:
        raise UserError(
            f"--level {level}: no algorithm reaches {level} bits (the strongest in the catalogue "
            f"has {strongest})"
        )


def _qualifying(
    measured: list[CaseResult], level: int, year: int, name: str, run_id: int
) -> tuple[list[CaseResult], str]:
    """The cases strong enough and not disallowed, or none and a one-line reason."""
    if not measured:
        return [], f"no successful {name} case in run {run_id}"
    levels = security.levels()
    strong, weak, banned = [], set(), set()
    for c in measured:
        rating = levels.get(c.algorithm)
        if rating is None or rating.strength < level:
            weak.add(f"{c.algorithm} ({rating.strength if rating else '?'} bits)")
        elif rating.disallowed_by(year):
            banned.add(f"{c.algorithm} ({', '.join(rating.disallowed_by(year))})")
        else:
            strong.append(c)
    if strong:
        return strong, ""
    parts = []
    if weak:
        parts.append("below the level: " + ", ".join(sorted(weak)))
    if banned:
        parts.append("disallowed: " + ", ".join(sorted(banned)))
    return [], f"nothing measured reaches {level} bits ({'; '.join(parts)})"


def _kdf_choices(measured: list[CaseResult], level: int, year: int) -> list[Choice]:
    groups: dict[tuple[str, str], list[CaseResult]] = {}
    for c in measured:
        groups.setdefault((c.algorithm, format_cost(c.cost)), []).append(c)
    if not groups:
        return [Choice("kdf", None, note="no successful kdf case in this run")]
    out = []
    levels = security.levels()
    for (algorithm, _), cases in sorted(groups.items()):
        qualifying, _ = _qualifying(cases, level, year, "kdf", 0)
        if not qualifying:
            continue
        best = max(qualifying, key=lambda c: c.ops_per_s or 0)
        out.append(
            Choice(
                "kdf",
                best,
                levels.get(algorithm),
                candidates=len(qualifying),
                note="the fastest provider at this cost; KDFs are not compared with each other",
            )
        )
    if not out:
        return [Choice("kdf", None, note=f"no KDF measured reaches {level} bits")]
    return out


def _tied(best: CaseResult, other: CaseResult, noise: float) -> bool:
    """In time per operation: the other's interval reaches the best's, or the medians are
    closer than the noise."""
    b, o = best.summary, other.summary
    if not b or not o:
        return False
    return o.ci_low <= b.ci_high or (o.median - b.median) / b.median < noise


def _figure(name: str, c: CaseResult) -> float:
    value = c.bytes_per_s if name in SYMMETRIC else c.ops_per_s
    return value if value is not None and math.isfinite(value) else 0.0


def _nearest(sizes: list[int], wanted: int) -> int:
    """The size closest to `wanted` on a log scale; the larger one on a tie."""
    positive = [s for s in sizes if s > 0] or sizes
    return min(positive, key=lambda s: (abs(math.log2(max(s, 1) / max(wanted, 1))), -s))


# ---- output ----------------------------------------------------------------------------------


def statuses(rating: security.Rating | None, year: int) -> dict[str, str]:
    if not rating:
        return {}
    return {doc: v.describe(year) for doc, v in rating.verdicts.items()}


def to_json(rec: Recommendation) -> dict[str, Any]:
    levels = security.levels()
    run = rec.run.run
    rows = []
    for ch in rec.choices:
        c = ch.case
        row: dict[str, Any] = {"kind": ch.kind, "found": c is not None, "note": ch.note}
        if c:
            s = c.summary
            row |= {
                "provider": c.provider,
                "variant": c.variant,
                "algorithm": c.algorithm,
                "operation": c.operation,
                "cost": dict(c.cost),
                "size": c.size,
                "strength_bits": ch.rating.strength if ch.rating else None,
                "median_ns": s.median if s else None,
                "ci_low_ns": s.ci_low if s else None,
                "ci_high_ns": s.ci_high if s else None,
                "unstable": c.unstable,
                "ops_per_s": c.ops_per_s,
                "bytes_per_s": c.bytes_per_s if ch.kind in SYMMETRIC else None,
                "candidates": ch.candidates,
                "tied_with": [
                    {"provider": t.provider, "variant": t.variant, "algorithm": t.algorithm}
                    for t in ch.tied
                ],
                "documents": statuses(ch.rating, rec.year),
                "constant_time": ch.constant_time.to_json() if ch.constant_time else None,
            }
        rows.append(row)
    return {
        "run": run.id,
        "suite": run.suite,
        "level_bits": rec.level,
        "year": rec.year,
        "size": rec.requested_size,
        "documents": {k: d.citation for k, d in levels.documents.items()},
        "recommendations": rows,
    }


def figure_text(kind: str, c: CaseResult) -> str:
    if kind in SYMMETRIC:
        text = f"{format_rate(c.bytes_per_s)} at {format_size(c.size)}"
    else:
        text = f"{format_ops(c.ops_per_s)} ({format_ns(c.median_ns)}/op)"
    return ("~" if c.unstable else "") + text


# The report's answer table (report.answer) and, without the note, the one `run` prints.
ANSWER_COLUMNS = ("kind", "choice", "figure", "runner-up", "note")


def answer_rows(rec: Recommendation) -> list[list[str]]:
    rows = []
    for ch in rec.choices:
        c, up = ch.case, ch.runner_up
        rows.append(
            [
                ch.kind,
                f"{c.algorithm_label}, {c.label}" if c else "-",
                figure_text(ch.kind, c) if c else "-",
                f"{up.algorithm_label}, {up.label}: {figure_text(ch.kind, up)}" if up else "-",
                ch.note,
            ]
        )
    return rows


def text_rows(rec: Recommendation) -> list[list[str]]:
    rows = []
    for ch in rec.choices:
        c = ch.case
        timing = [ch.constant_time.text(c.operation)] if c and ch.constant_time else []
        if c is None:
            rows.append([ch.kind, "-", "-", "-", "-", "-", *(["-"] if rec.checks else []), ch.note])
            continue
        figure = figure_text(ch.kind, c)
        st = statuses(ch.rating, rec.year)
        docs = " / ".join(st.get(d, "?") for d in security.DOCUMENTS)
        rows.append(
            [
                ch.kind,
                c.algorithm_label,
                c.label,
                figure,
                str(ch.rating.strength) if ch.rating else "?",
                docs,
                *timing,
                ch.note,
            ]
        )
    return rows
