"""The configuration-encryption thesis (000): its claims and their criteria.

Data (all optional; a missing one makes its claim undecided):
  noise                 relative noise threshold of this machine
  per_value_read_s      {library: seconds per value read}, h(n)/n at the largest n measured
  per_value_write_s     the same for writing
  per_value_n           the n those come from
  h_at_n                {"read"|"write": {"n": n, "wholefile": h, library: h}} at one common n
  wholefile_h_s         {"read": h, "write": h}, mean over n (Table 6.2's quantity)
  heap_overhead_bytes   {library: peak live heap above the plain read, same n}
  read_1000_s           {"compat/lib" | "confcrypt/lib": seconds to read 1,000 values}
  compat_kdf            {library: "pbkdf2-sha1" | …}: the KDF each library's thesis scheme ran;
                        when given, the per-value claims (000.1, 000.2) need the thesis's own
                        (THESIS_KDF), else they are undecided
"""

import math

from cryptobench.criteria import Missing, Spec, Verdict, need, noise, ordered, step

LIBS = ("gcrypt", "openssl", "botan")
# Tables A.1-A.4, row n = 1000, the median of 11 runs (the 6th sorted, §4.1.4), in seconds.
THESIS_READ_1000 = {
    "plain": 0.003064,
    "gcrypt": 10.708561,
    "openssl": 16.639539,
    "botan": 38.059056,
}
THESIS_PER_VALUE_S = {
    lib: (THESIS_READ_1000[lib] - THESIS_READ_1000["plain"]) / 1000 for lib in LIBS
}
THESIS_WHOLEFILE_H = {"read": 0.005, "write": 0.007}  # Table 6.2
# The PBKDF2 of each variant at the thesis's commit (Elektra dfa9bb8, src/plugins/crypto/
# gcrypt_operations.c GCRY_MD_SHA512, openssl_operations.c PKCS5_PBKDF2_HMAC_SHA1,
# botan_operations.cpp HMAC(SHA_256)); the thesis text names no hash.
THESIS_KDF = {"gcrypt": "pbkdf2-sha512", "openssl": "pbkdf2-sha1", "botan": "pbkdf2-sha256"}
ORDER = math.sqrt(10)  # "the same order of magnitude": within a factor √10 either way
# Table 4.2: the crypto plugin's heap, OpenSSL 70.0 KiB and Botan 64.0 KiB. Ours is a whole
# process's peak above the plain read, where the plugin is a small part: an order is only told
# when the two differ by at least half the thesis's 6.0 KiB.
THESIS_HEAP_GAP = 6.0 * 1024


def _ms(v: float) -> str:
    return f"{v * 1e3:.2f} ms"


def _other_kdf(d, ours: str) -> Verdict | None:
    """Undecided when a library ran another KDF than its thesis variant's: the per-value cost is
    PBKDF2's, so another hash is another workload."""
    kdfs = d.get("compat_kdf")
    if kdfs is None:
        return None
    wrong = [f"{lib} {kdfs.get(lib, '?')}" for lib in LIBS if kdfs.get(lib) != THESIS_KDF[lib]]
    if not wrong:
        return None
    want = ", ".join(f"{lib} {THESIS_KDF[lib]}" for lib in LIBS)
    return Verdict(None, ours, f"not the thesis's key derivation ({', '.join(wrong)}; the "
                   f"thesis's variants: {want})")  # fmt: skip


def _kdf_note(d) -> str:
    kdfs = d.get("compat_kdf")
    return "" if not kdfs else "; KDF " + ", ".join(f"{lib} {kdfs.get(lib, '?')}" for lib in LIBS)


def ranking(d):
    tol = noise(d)
    parts, verdicts = [], []
    for direction in ("read", "write"):
        v = need(d, f"per_value_{direction}_s")
        parts.append(f"{direction}: " + ", ".join(f"{lib} {_ms(v[lib])}" for lib in LIBS))
        verdicts.append(ordered(v, LIBS, tol, ""))
    ours = "per value, " + "; ".join(parts) + f" (n = {d.get('per_value_n', '?')})" + _kdf_note(d)
    if other := _other_kdf(d, ours):
        return other
    if any(x.holds is False for x in verdicts):
        return Verdict(False, ours)
    if all(x.holds for x in verdicts):
        return Verdict(True, ours)
    return Verdict(None, ours, next(x.reason for x in verdicts if x.holds is None))


def per_value_magnitude(d):
    v = need(d, "per_value_read_s")
    ratios = {lib: v[lib] / THESIS_PER_VALUE_S[lib] for lib in LIBS}
    ours = ", ".join(f"{lib} {_ms(v[lib])} (× thesis {ratios[lib]:.2f})" for lib in LIBS)
    ours += _kdf_note(d)
    if other := _other_kdf(d, ours):
        return other
    return Verdict(all(1 / ORDER <= r <= ORDER for r in ratios.values()), ours)


def wholefile_faster(d):
    tol = noise(d)
    h = need(d, "h_at_n")
    parts, worst = [], 1
    for direction, at in sorted(h.items()):
        libs = [lib for lib in LIBS if lib in at]
        if "wholefile" not in at or not libs:
            raise Missing(f"h_at_n[{direction}]")
        parts.append(
            f"{direction} at n = {at['n']}: whole file {_ms(at['wholefile'])}, per value "
            + ", ".join(f"{lib} {_ms(at[lib])}" for lib in libs)
        )
        worst = min([worst] + [step(at[lib], at["wholefile"], tol) for lib in libs])
    ours = "; ".join(parts)
    if worst < 0:
        return Verdict(False, ours)
    return Verdict(True, ours) if worst > 0 else Verdict(None, ours, "within noise")


def wholefile_magnitude(d):
    h = need(d, "wholefile_h_s")
    ratios = {k: h[k] / THESIS_WHOLEFILE_H[k] for k in THESIS_WHOLEFILE_H if k in h}
    if not ratios:
        raise Missing("wholefile_h_s")
    ours = ", ".join(f"{k} {_ms(h[k])} (× thesis {r:.1f})" for k, r in ratios.items())
    return Verdict(all(1 / ORDER <= r <= ORDER for r in ratios.values()), ours)


def heap_order(d):
    heap = need(d, "heap_overhead_bytes")
    if "openssl" not in heap or "botan" not in heap:
        raise Missing("heap_overhead_bytes[openssl, botan]")
    gap = heap["openssl"] - heap["botan"]
    ours = (
        f"OpenSSL {heap['openssl'] / 1024:.1f} KiB, Botan {heap['botan'] / 1024:.1f} KiB "
        f"(Botan {gap:+,.0f} B below)"
    )
    if abs(gap) < THESIS_HEAP_GAP / 2:
        return Verdict(None, ours, "the two differ by less than half the thesis's 6.0 KiB")
    return Verdict(gap > 0, ours)


def confcrypt_faster(d):
    r = need(d, "read_1000_s")
    pairs = [
        (lib, r[f"compat/{lib}"], r[f"confcrypt/{lib}"])
        for lib in LIBS
        if f"compat/{lib}" in r and f"confcrypt/{lib}" in r
    ]
    if not pairs:
        raise Missing("read_1000_s")
    ours = "1,000 values: " + ", ".join(
        f"{lib} {_ms(c)} vs {a:.2f} s ({a / c:.0f}×)" for lib, a, c in pairs
    )
    return Verdict(all(c * 10 < a for _, a, c in pairs), ours)


SPECS = (
    Spec(
        "000.1",
        "libgcrypt has the lowest runtime impact; the libraries rank libgcrypt < OpenSSL < Botan",
        "§6.1 (answer to RQ1), Table 6.1",
        "h on reading 1.168 / 1.805 / 4.125 s, on writing 1.171 / 1.808 / 4.124 s (means over "
        "its 40 sizes of n)",
        "per-value cost h(n)/n orders libgcrypt < OpenSSL < Botan on reading and on writing, "
        "each step larger than the machine's noise (an order, as the thesis claims an order), "
        "each library running its thesis variant's PBKDF2 (HMAC-SHA512 / SHA1 / SHA256)",
        ranking,
    ),
    Spec(
        "000.2",
        "Reading a value encrypted per value costs about 11 ms (libgcrypt), 17 ms (OpenSSL) and "
        "38 ms (Botan)",
        "Tables A.1-A.4, n = 1000 (kdb get, median of 11)",
        "10.71 / 16.64 / 38.06 s for 1,000 values, plain 0.003 s",
        "per-value read cost within one order of magnitude (a factor √10 ≈ 3.2 either way) of "
        "the thesis's for every library, each with its variant's PBKDF2 (absolute times move "
        "with the machine, so only the order of magnitude is claimed)",
        per_value_magnitude,
    ),
    Spec(
        "000.3",
        "Whole-file encryption (fcrypt) is faster than per-value encryption (crypto)",
        "abstract; ch. 7; Tables 6.1/6.2",
        "h 0.005 s against 1.168-4.125 s on reading; 0.007 s against 1.171-4.124 s on writing",
        "at the same n, whole-file h is below every library's per-value h, reading and writing, "
        "by more than the machine's noise",
        wholefile_faster,
    ),
    Spec(
        "000.4",
        "Whole-file encryption adds about 5 ms to a read and 7 ms to a write",
        "Table 6.2",
        "h = 0.005 s reading, 0.007 s writing (GnuPG 2.2.4)",
        "our mean h within one order of magnitude (factor √10) of 5 ms and 7 ms",
        wholefile_magnitude,
    ),
    Spec(
        "000.5",
        "Botan allocates less heap than OpenSSL for the crypto plugin",
        "Table 4.2; §6.1 (RQ1: 6.0 KiB less)",
        "OpenSSL 70.0 KiB, Botan 64.0 KiB (Massif; libgcrypt not measurable)",
        "peak live heap above the plain read, same n: Botan's below OpenSSL's by at least half "
        "the thesis's 6.0 KiB (the reverse by as much: does not hold; closer: undecided, as a "
        "whole process's peak cannot tell a smaller order)",
        heap_order,
    ),
    Spec(
        "000.x",
        "confcrypt (one key unwrap per file, AEAD per value) reads 1,000 values at least 10× "
        "faster than the thesis's scheme",
        "ours: docs/confcrypt.md",
        "not in the thesis",
        "confcrypt ×10 below the thesis scheme for every library at n = 1000",
        confcrypt_faster,
        ours_only=True,
    ),
)
