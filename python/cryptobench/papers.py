"""The five evaluations cryptobench repeats (../shared/papers/ in the project's workspace): what
each asked and claimed, in our words. The figures we compare with are quoted, with their table
numbers, by the scenario that repeats each paper; never the papers' prose."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Paper:
    number: str
    title: str
    year: int
    repeated_by: str  # the cryptobench command that repeats it
    questions: tuple[str, ...]  # its research questions, paraphrased
    headline: str  # its headline result, paraphrased, with its figures


PAPERS: dict[str, Paper] = {
    p.number: p
    for p in (
        Paper(
            "000",
            "Transparent encryption of configuration values and files (master's thesis)",
            2018,
            "cryptobench scenario config",
            (
                "What does per-value encryption of configuration values cost, by crypto library?",
                "What does whole-file OpenPGP encryption of a configuration file cost?",
            ),
            "Per-value encryption multiplies the time to read a configuration by three to four "
            "orders of magnitude (Table 6.1: f = 1838 for libgcrypt, 2835 for OpenSSL, 6459 for "
            "Botan on reading); whole-file encryption costs milliseconds (Table 6.2).",
        ),
        Paper(
            "001",
            "Benchmarking of Java crypto algorithms: seven JCA providers and one C library",
            2008,
            "a core run over the JVM runner's providers and OpenSSL",
            (
                "Which Java provider is fastest, per security level and kind of primitive?",
                "How far behind a C/C++ library are the Java providers?",
            ),
            "Rankings of the Java providers per security level, and a comparison with C++ "
            "(the result tables are not in the excerpt).",
        ),
        Paper(
            "002",
            "Comparative testing of crypto containers and encrypted file systems",
            2009,
            "cryptobench storage",
            (
                "How much throughput do encrypted containers and file systems lose against the "
                "clean file system (dd, bonnie)?",
                "What does each do with a wrong password?",
            ),
            "Encrypted containers and file systems run at a fraction of the clean file "
            "system's throughput, varying widely between systems.",
        ),
        Paper(
            "003",
            "Hardware offload of cryptography for TLS, SSH and IPsec on an SoC (thesis)",
            2015,
            "cryptobench channel",
            (
                "How many TLS handshakes per minute, by key size, in software and with "
                "hardware offload?",
                "What latency and bulk throughput do VPN tunnels and scp/FTP reach, and at "
                "what CPU cost?",
            ),
            "Hardware offload pays above about 1 KiB per operation; below it the per-call "
            "overhead dominates (Tables 5.1–5.8).",
        ),
        Paper(
            "004",
            "EvalMe: CPU and memory of Crypto++ and Botan ciphers on four input kinds",
            2021,
            "cryptobench process",
            (
                "Which cryptographic primitive suits resource-constrained devices best?",
                "Does the kind of input (random, text, audio, video) affect performance?",
            ),
            "Crypto++ beats Botan, ChaCha20 is the best choice, memory use is flat, and the "
            "input kind does not matter.",
        ),
    )
}


def parse(names: list[str]) -> list[str]:
    """`000`, `4`, `all` → paper numbers, in order."""
    from cryptobench.errors import UserError

    out: list[str] = []
    for name in names:
        if name == "all":
            out += [p for p in PAPERS if p not in out]
            continue
        number = name.zfill(3) if name.isdigit() else name
        if number not in PAPERS:
            raise UserError(f"unknown paper '{name}' (papers: {', '.join(PAPERS)}, all)")
        if number not in out:
            out.append(number)
    return out
