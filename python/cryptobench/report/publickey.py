"""The public-key and key-derivation section: ops/s tables, sign/verify and key-agreement bars,
key generation spread, KDFs at their costs, lax verifiers."""

from cryptobench import plots
from cryptobench.analysis import CaseResult, RunResults
from cryptobench.report.html import how, html_table, svg_row
from cryptobench.units import format_kib, format_measured, format_ns, format_ops, format_size

# The signature algorithms of the sign/verify bar chart (issue 5): the first measured scheme of
# each key stands for it.
_SIGNATURE_FIGURE = (
    ("RSA-2048", ("rsa-2048-pkcs1-sha256", "rsa-2048-pss-sha256")),
    ("RSA-4096", ("rsa-4096-pkcs1-sha256", "rsa-4096-pss-sha256")),
    ("ECDSA P-256", ("ecdsa-p256",)),
    ("Ed25519", ("ed25519",)),
)


_PK_OPERATIONS = ("keygen", "sign", "verify", "encrypt", "decrypt", "derive")


def public_key(r: RunResults) -> str:
    cases = [c for c in r.ok_cases() if not c.symmetric]
    if not cases:
        return "<p>No public-key or key-derivation cases in this run.</p>"
    parts = [
        _lax(cases),
        _pk_table(r, [c for c in cases if c.kind != "kdf" and c.operation != "keygen"]),
        _signature_bars(r, cases),
        _key_agreement(r, [c for c in cases if c.kind == "key-agreement"]),
        _keygen(r, [c for c in cases if c.operation == "keygen"]),
        _kdfs(r, [c for c in cases if c.kind == "kdf"]),
    ]
    return "".join(parts) + how(
        "Public-key and key-derivation figures are <b>operations per second</b> (10⁹ ÷ the median "
        "time per operation) and the median time per operation with its bootstrap 95% CI, from "
        "the same sampling as every other case; a throughput in bytes per second would mean "
        "nothing for them. Signing and verifying hash a short message (the size shown, 32 bytes "
        "in the shipped suites) with the key of the runner's fixed test key set; OAEP encrypts "
        "such a message; key agreement derives one shared secret from a fixed key pair and peer "
        "key (no key generation inside); a KDF derives one key from a 16-byte password at the "
        "cost parameters shown. Key generation is sampled one key per sample, so its "
        "distribution is the spread over many keys."
    )


def _lax(cases: list[CaseResult]) -> str:
    """Cases that passed the gate while deviating from a standard's strict rules (docs/protocol.md:
    e.g. a verifier accepting a non-canonical EdDSA signature): right output, worth knowing."""
    rows = [(c.label, c.algorithm, c.operation, c.gate.get("lax", "")) for c in cases]
    rows = [row for row in rows if row[3]]
    if not rows:
        return ""
    return (
        "<h3>Lax verifiers</h3>"
        + html_table(["provider", "algorithm", "operation", "what the gate saw"], rows)
        + how(
            "These providers produced correct output and accept every valid signature, but also "
            "accept a signature only a strict verifier rejects (RFC 8032 requires rejecting "
            "S ≥ L and, for Ed448, a non-zero last byte). That makes their signatures malleable: "
            "a second encoding of the same signature verifies. They are timed; mind this if your "
            "protocol relies on signatures being unique."
        )
    )


def _pk_table(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    rows = [
        (
            c.label,
            c.algorithm,
            c.operation,
            format_size(c.size) if c.size else "-",
            format_ops(c.ops_per_s),
            format_ns(c.median_ns),
            _ci(c),
            str(c.summary.n) if c.summary else "-",
            format_measured(c.heap_figure("bytes_per_op")),
        )
        for c in _pk_order(r, cases)
    ]
    table = html_table(
        [
            "provider",
            "algorithm",
            "operation",
            "message",
            "ops/s",
            "median/op",
            "95% CI of the median",
            "samples",
            "heap B/op",
        ],
        rows,
        numeric={4, 5, 6, 7, 8},
    )
    return f"<h3>Signatures, public-key encryption, key agreement</h3>{table}"


def _signature_bars(r: RunResults, cases: list[CaseResult]) -> str:
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for title, names in _SIGNATURE_FIGURE:
        measured = [n for n in names if any(c.algorithm == n for c in cases)]
        if not measured:
            continue
        for op in ("sign", "verify"):
            key = f"{title} {op}" + (f" ({measured[0]})" if title.startswith("RSA") else "")
            for c in cases:
                if c.algorithm == measured[0] and c.operation == op and c.ops_per_s:
                    groups.setdefault(key, {})[c.label] = c.ops_per_s
                    errors.setdefault(key, {})[c.label] = _ops_ci(c)
    if not groups:
        return ""
    svg = plots.ops_bars("sign and verify", _ordered(r, groups), errors, palette=r.labels())
    return "<h3>Sign and verify</h3>" + svg_row([svg])


def _key_agreement(r: RunResults, cases: list[CaseResult]) -> str:
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for c in _pk_order(r, cases):
        if c.ops_per_s:
            groups.setdefault(c.algorithm, {})[c.label] = c.ops_per_s
            errors.setdefault(c.algorithm, {})[c.label] = _ops_ci(c)
    if not groups:
        return ""
    svg = plots.ops_bars(
        "key agreement: shared secrets per second",
        _ordered(r, groups),
        errors,
        palette=r.labels(),
    )
    return "<h3>Key agreement</h3>" + svg_row([svg])


def _keygen(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    figs = []
    for algorithm in r.algorithms():
        groups = {c.label: c.ns for c in cases if c.algorithm == algorithm and c.ns.size}
        if groups:
            ordered = {lb: groups[lb] for lb in r.labels() if lb in groups}
            figs.append(plots.spread_box(f"{algorithm} key generation", ordered, "ms per key"))
    rows = []
    for c in _pk_order(r, cases):
        s = c.summary
        if not s:
            continue
        rows.append(
            (
                c.label,
                c.algorithm,
                str(s.n),
                format_ns(s.median),
                f"{format_ns(s.q1)} – {format_ns(s.q3)}",
                f"{format_ns(s.min)} – {format_ns(s.max)}",
                format_ops(c.ops_per_s),
                _ci(c),
            )
        )
    table = html_table(
        [
            "provider",
            "key type",
            "keys",
            "median per key",
            "quartiles",
            "min – max",
            "keys/s (from the median)",
            "95% CI of the median",
        ],
        rows,
        numeric={2, 3, 6},
    )
    return (
        "<h3>Key generation</h3>"
        + svg_row(figs)
        + table
        + how(
            "Each sample generates one key pair (the runner fixes one operation per sample for "
            "key generation), so every box is the distribution over that many fresh keys, on a "
            "logarithmic axis. RSA key generation searches for random primes and varies by an "
            "order of magnitude from key to key: read its median with the quartiles and the "
            "range, not alone."
        )
    )


def _kdfs(r: RunResults, cases: list[CaseResult]) -> str:
    if not cases:
        return ""
    rows = [
        (
            c.label,
            c.algorithm,
            _cost_text(c),
            format_ns(c.median_ns),
            _ci(c),
            format_ops(c.ops_per_s),
            str(c.summary.n) if c.summary else "-",
            format_measured(c.heap_figure("peak_live_bytes")),
            format_kib(c.rss_rise_kb),
        )
        for c in _pk_order(r, cases)
    ]
    groups: dict[str, dict[str, float]] = {}
    errors: dict[str, dict[str, tuple[float, float]]] = {}
    for c in cases:
        if c.ops_per_s:
            groups.setdefault(c.algorithm_label, {})[c.label] = c.ops_per_s
            errors.setdefault(c.algorithm_label, {})[c.label] = _ops_ci(c)
    svg = plots.ops_bars(
        "key derivations per second", _ordered(r, groups), errors, palette=r.labels()
    )
    table = html_table(
        [
            "provider",
            "KDF",
            "cost parameters",
            "median per derivation",
            "95% CI",
            "derivations/s",
            "samples",
            "peak live heap (B)",
            "peak RSS rise",
        ],
        rows,
        numeric={3, 5, 6, 7, 8},
    )
    return (
        "<h3>Key derivation</h3>"
        + svg_row([svg])
        + table
        + how(
            "Each figure holds only for its cost parameters (PBKDF2: iterations; scrypt: N, r, p; "
            "Argon2id: t passes over m KiB with p lanes): a password KDF is meant to be slow, so "
            "compare providers at equal cost, not KDFs with each other. Peak live heap is what "
            "the runner's heap counter saw (the Python runner's sees only the Python heap, the "
            "JVM runner's none: 'not measured'); peak RSS rise is how far the process's resident "
            "peak rose while the untimed derivations ran, so a memory-hard KDF's m shows there "
            "in every runner, whoever allocated it."
        )
    )


def _cost_text(c: CaseResult) -> str:
    return " ".join(f"{k}={v}" for k, v in c.cost.items()) or "-"


def _pk_order(r: RunResults, cases: list[CaseResult]) -> list[CaseResult]:
    order = {a: i for i, a in enumerate(r.algorithms())}
    labels = {lb: i for i, lb in enumerate(r.labels())}
    ops = {op: i for i, op in enumerate(_PK_OPERATIONS)}
    return sorted(
        cases,
        key=lambda c: (
            order.get(c.algorithm, 0),
            _cost_text(c),
            ops.get(c.operation, 9),
            labels.get(c.label, 0),
        ),
    )


def _ordered(r: RunResults, groups: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """Each group's bars in the run's provider order, so colours and positions agree."""
    labels = r.labels()
    return {name: {lb: bars[lb] for lb in labels if lb in bars} for name, bars in groups.items()}


def _ci(c: CaseResult) -> str:
    s = c.summary
    return f"{format_ns(s.ci_low)} – {format_ns(s.ci_high)}" if s else "-"


def _ops_ci(c: CaseResult) -> tuple[float, float]:
    """The CI of the median time, as operations per second (the bounds swap)."""
    s = c.summary
    if not s or s.ci_low <= 0 or s.ci_high <= 0:
        value = c.ops_per_s or 0.0
        return value, value
    return 1e9 / s.ci_high, 1e9 / s.ci_low
