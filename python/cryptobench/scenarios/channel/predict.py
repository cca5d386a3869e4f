"""What the core's own figures predict for the channel: the public-key cost of one handshake
(from a stored `cryptobench run` of OpenSSL, accelerated and not) beside the measured handshake
rate, and the analogue of the thesis's offload break-even from the core's fits t(n) = a + b·n.

Handshake model, per side (keygen counted as one more key-agreement operation, which is what an
ephemeral key costs to within a small factor):
  server: sign + 2 × key agreement        client: verify + 2 × key agreement
The 1024-bit RFC 5114 group is not in the core (it measures the RFC 7919 groups): n/a there.

Break-even: with the accelerated path's per-call overhead a₁ and per-byte costs b₁ (accelerated)
and b₀ (not), the accelerated path gains (b₀ − b₁)·n per message of n bytes; above
n* = a₁ / (b₀ − b₁) that gain exceeds the whole per-call overhead. An offload device (or AF_ALG)
has a much larger a₁ — a system call, a DMA set-up — which is why the thesis found ~1 KiB."""

from dataclasses import dataclass

from cryptobench.analysis import RunResults
from cryptobench.store import Store

CORE_SUITE = "python/cryptobench/scenarios/channel/core_suite.toml"
SIGN = {
    "rsa-1024": "rsa-1024-pss-sha256",
    "rsa-2048": "rsa-2048-pss-sha256",
    "rsa-4096": "rsa-4096-pss-sha256",
    "ecdsa-p256": "ecdsa-p256",
    "ed25519": "ed25519",
}
AGREE = {"ffdhe2048": "ffdhe2048", "ffdhe4096": "ffdhe4096", "X25519": "x25519"}
VARIANT = {"on": "default", "off": "soft"}


def suite_path() -> str:
    from pathlib import Path

    return str(Path(__file__).with_name("core_suite.toml"))


def latest_core_run(db: Store) -> int | None:
    """The newest core run with OpenSSL signature cases (None when there is none)."""
    for info in sorted(db.runs(), key=lambda r: r.id, reverse=True):
        if info.suite.startswith("scenario:"):
            continue
        if any(c["provider"] == "openssl" and c["operation"] == "sign" for c in db.cases(info.id)):
            return info.id
    return None


def _case(results: RunResults, algorithm: str, operation: str, variant: str):
    for c in results.ok_cases():
        if (c.provider, c.variant, c.algorithm, c.operation) == (
            "openssl",
            variant,
            algorithm,
            operation,
        ):
            return c
    return None


def _ns(results: RunResults, algorithm: str, operation: str, variant: str) -> float | None:
    c = _case(results, algorithm, operation, variant)
    return c.summary.median if c else None


@dataclass
class Prediction:
    cert: str
    group: str
    accel: str
    server_ns: float | None  # sign + 2 × agreement
    both_ns: float | None  # + verify + 2 × agreement on the client
    unstable: bool = False  # a core case it rests on has a wide confidence interval

    @property
    def server_per_s(self) -> float | None:
        return 1e9 / self.server_ns if self.server_ns else None


def handshake(results: RunResults, cert: str, group: str, accel: str) -> Prediction:
    variant = VARIANT[accel]
    sign = _ns(results, SIGN.get(cert, ""), "sign", variant)
    verify = _ns(results, SIGN.get(cert, ""), "verify", variant)
    agree = _ns(results, AGREE.get(group, ""), "derive", variant)
    if sign is None or agree is None:
        return Prediction(cert, group, accel, None, None)
    server = sign + 2 * agree
    both = server + (verify + 2 * agree if verify is not None else float("nan"))
    used = [
        _case(results, SIGN[cert], "sign", variant),
        _case(results, AGREE[group], "derive", variant),
    ]
    unstable = any(c.summary.unstable for c in used if c is not None)
    return Prediction(cert, group, accel, server, both, unstable)


@dataclass
class BreakEven:
    algorithm: str
    overhead_ns: float  # a₁, accelerated
    ns_per_byte_accel: float  # b₁
    ns_per_byte_soft: float  # b₀

    @property
    def size(self) -> float | None:
        gain = self.ns_per_byte_soft - self.ns_per_byte_accel
        return self.overhead_ns / gain if gain > 0 and self.overhead_ns > 0 else None


def break_even(results: RunResults) -> list[BreakEven]:
    fits = {
        (f.algorithm, f.variant): f
        for f in results.fits
        if f.provider == "openssl" and f.operation == "encrypt" and f.input in ("random", "")
    }
    if not fits:
        fits = {
            (f.algorithm, f.variant): f
            for f in results.fits
            if f.provider == "openssl" and f.operation == "encrypt"
        }
    out = []
    for algorithm in sorted({a for a, _ in fits}):
        acc, soft = fits.get((algorithm, "default")), fits.get((algorithm, "soft"))
        if acc and soft:
            out.append(BreakEven(algorithm, acc.overhead_ns, acc.ns_per_byte, soft.ns_per_byte))
    return out


# The handshakes the OpenSSL core's figures predict: OpenSSL's TLS on loopback and OpenVPN's (both
# OpenSSL underneath, accelerated or not). The Go crypto/tls handshakes (`tls-kex`) are another
# library's and carry no `accel`; nothing here predicts them.
PREDICTED_PARTS = ("tls", "handshake")


def figures(db: Store, measured: list) -> list:
    """Prediction and break-even figures for the handshake configurations in `measured` (this
    run's figures), from the newest stored core run with OpenSSL's public-key cases."""
    from cryptobench import analysis
    from cryptobench.figures import Figure, skipped

    run_id = latest_core_run(db)
    if run_id is None:
        why = (
            "no stored core run with OpenSSL's public-key cases in this database; make one "
            f"with `cryptobench run --suite {suite_path()}` (seconds) and run again"
        )
        return [skipped({"part": "predict"}, "predicted handshakes per server CPU-s", "1/s", why)]
    results = analysis.load(db, run_id)
    out = []
    seen = set()
    for f in measured:
        if f.metric != "handshakes per server CPU-s" or f.status != "ok":
            continue
        if f.key.get("part") not in PREDICTED_PARTS:  # another stack's (Go's crypto/tls)
            continue
        k = f.key
        group = k.get("group") or k.get("dh")
        ident = (k["part"], k.get("protocol", "TLS 1.2 DHE-RSA"), k["cert"], group, k["accel"])
        if ident in seen:
            continue
        seen.add(ident)
        p = handshake(results, k["cert"], group, k["accel"])
        key = {
            "part": "predict",
            "of": k["part"],
            "protocol": ident[1],
            "cert": k["cert"],
            "group": group,
            "accel": k["accel"],
        }
        if p.server_per_s is None:
            why = f"the core has no {k['cert']} sign or {group} agreement case (core run {run_id})"
            out.append(skipped(key, "predicted handshakes per server CPU-s", "1/s", why))
            continue
        extra = {
            "core_run": run_id,
            "server_ns": p.server_ns,
            "both_ns": p.both_ns,
            "unstable": p.unstable,
        }
        out.append(
            Figure(
                key, "predicted handshakes per server CPU-s", "1/s", [p.server_per_s], extra=extra
            )
        )
    for b in break_even(results):
        if b.size is None:
            continue
        extra = {
            "core_run": run_id,
            "overhead_ns": b.overhead_ns,
            "ns_per_byte_accel": b.ns_per_byte_accel,
            "ns_per_byte_soft": b.ns_per_byte_soft,
        }
        out.append(
            Figure(
                {"part": "break-even", "algorithm": b.algorithm},
                "break-even size",
                "B",
                [b.size],
                "lower",
                extra=extra,
            )
        )
    return out
