"""The post-quantum section: ML-KEM beside X25519, ECDH and FFDHE, ML-DSA and SLH-DSA beside
Ed25519, ECDSA and RSA, in operations per second and bytes on the wire, and one plot of time
against bytes (docs/post-quantum.md)."""

from cryptobench import plots
from cryptobench.analysis import CaseResult, RunResults
from cryptobench.gate.vectors import POST_QUANTUM_KEY_TYPES
from cryptobench.report.html import how, html_table, svg_row
from cryptobench.units import format_ops

_KEM_OPS = ("keygen", "encaps", "decaps", "derive")
_SIGNATURE_OPS = ("keygen", "sign", "verify")


def _is_pq(c: CaseResult) -> bool:
    return c.algorithm.startswith(POST_QUANTUM_KEY_TYPES)


def _wire(c: CaseResult) -> dict[str, int]:
    wire = c.gate.get("wire")
    return wire if isinstance(wire, dict) else {}


def post_quantum(r: RunResults) -> str:
    cases = [c for c in r.ok_cases() if c.kind in ("kem", "key-agreement", "signature")]
    if not any(_is_pq(c) for c in cases):
        return "<p>No post-quantum cases in this run.</p>"
    exchange = [c for c in cases if c.kind in ("kem", "key-agreement")]
    signatures = [c for c in cases if c.kind == "signature"]
    parts = [
        _table("Key encapsulation and key agreement", exchange, _KEM_OPS, "ciphertext"),
        _table("Signatures", signatures, _SIGNATURE_OPS, "signature"),
        _plot(cases),
    ]
    return "".join(parts) + how(
        "Operations per second are 10⁹ ÷ the median time per operation of each case, as in the "
        "public-key section; a key agreement's one operation (derive) stands beside a KEM's "
        "encapsulation and decapsulation. Bytes are the catalogue's sizes on the wire, which the "
        "gate checks against every provider's output: the public key (raw, or the SEC1 "
        "uncompressed point, or the RSA modulus), a KEM's ciphertext or a key agreement's public "
        "share, a signature. The plot puts each algorithm's fastest provider per operation at its "
        "public key plus ciphertext, share or signature bytes. Conventions (seed keys, parsing "
        "outside the timed operation, hedged signing): docs/post-quantum.md."
    )


def _table(title: str, cases: list[CaseResult], ops: tuple[str, ...], reply: str) -> str:
    if not cases:
        return ""
    ops = tuple(op for op in ops if any(c.operation == op for c in cases))
    rows: dict[tuple[str, str], dict[str, CaseResult]] = {}
    for c in cases:
        rows.setdefault((c.algorithm, c.label), {})[c.operation] = c
    out = []
    for (algorithm, label), by_op in sorted(
        rows.items(), key=lambda kv: (not _is_pq(next(iter(kv[1].values()))), kv[0])
    ):
        wire = next((_wire(c) for c in by_op.values() if _wire(c)), {})
        out.append(
            (
                algorithm,
                label,
                *(format_ops(by_op[op].ops_per_s) if op in by_op else "" for op in ops),
                str(wire.get("public_key", "")),
                str(wire.get(reply, "")),
            )
        )
    head = ["algorithm", "provider", *(f"{op} ops/s" for op in ops), "public key B", f"{reply} B"]
    numeric = set(range(2, len(head)))
    return f"<h3>{title}</h3>" + html_table(head, out, numeric=numeric)


def _plot(cases: list[CaseResult]) -> str:
    best: dict[tuple[str, str], CaseResult] = {}
    for c in cases:
        if c.operation == "keygen" or not _wire(c) or c.median_ns is None:
            continue
        key = (c.algorithm, c.operation)
        if key not in best or c.median_ns < best[key].median_ns:
            best[key] = c
    points: dict[str, list[tuple[float, float, str]]] = {}
    for (algorithm, operation), c in sorted(best.items()):
        w = _wire(c)
        size = w.get("public_key", 0) + w.get("ciphertext", 0) + w.get("signature", 0)
        points.setdefault(operation, []).append((float(size), float(c.median_ns), algorithm))
    if not points:
        return ""
    return svg_row([plots.time_vs_bytes("Time against bytes on the wire", points)])
