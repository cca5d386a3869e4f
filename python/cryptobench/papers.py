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
    machine: str  # the machine and software it measured on, as it states them


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
            "Intel Core i7-4771 (4 cores, 8 threads, 3.5 GHz), 16 GB RAM, Samsung SSD 840, "
            "Fedora 27; Elektra 0.8.21 at dfa9bb8, clang 5.0.1, Botan 1.10.17, OpenSSL 1.1.0g, "
            "libgcrypt 1.8.2, GnuPG 2.2.4 (§4.1)",
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
            "Intel Core 2 Duo at 2 GHz, 2048 MB DDR2-667 RAM, Windows Vista and Ubuntu; JDK 6, "
            "Bouncy Castle 1.38, IAIK 3.16, Cryptix 20050328, GNU Crypto 2.0.1, FlexiProvider "
            "1.5p1, JSafe 3.6, BSafe 6.3.2 (§2.2, §2.3)",
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
            "Pentium 4 2.8 GHz with Hyper-Threading, 1 GB RAM, 40 GB IDE disk, FreeBSD 7.2",
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
            "The offload multiplies handshakes per minute by 1.14 to 5.89 (Table 5.2); IPsec "
            "is 13–32% faster than OpenVPN (§5.2.3); OpenSSH has the best throughput, IPsec the "
            "best efficiency and OpenVPN loses on all fronts (§5.3.4); offload's break-even is "
            "'around 1024kB' (§6.1, Fig. 5.11).",
            "target: Altera SoCFPGA, dual-core ARM Cortex-A9 800 MHz, 1 GB, Cyclone V FPGA with "
            "the BA411E/BA414E offload IP, Yocto, kernel 3.14; host: Core i5 M560 VM (2 logical "
            "cores), Ubuntu 12.04, kernel 3.16; 100 Mbit/s switches; OpenVPN 2.3.6 (§4.1)",
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
            "Crypto++ outperforms Botan, ChaCha20 is the best algorithm, memory use is the same "
            "everywhere (0.36 MiB), and the input type has no impact with few exceptions (§5).",
            "Raspberry Pi 4 Model B (32-bit ARM Cortex-A72, 1.5 GHz, no AES instructions), 4 GiB "
            "RAM, Raspbian 10; Crypto++ 8.4, Botan 2.17.3, g++ 8.3.0 (§4.2)",
        ),
        Paper(
            "openssl3",
            "OpenSSL 3's performance regressions against 1.1.1 (openssl/openssl issue threads)",
            2023,
            "a core run over openssl@1.1.1, the system openssl (3.0) and openssl@3.5 (make "
            "versions)",
            (
                "Should a platform on OpenSSL 3.0 go back to 1.1.1, or on to 3.5?",
                "Is OpenSSL 3's cost per call (small messages, key loading) or per byte?",
            ),
            "`openssl speed` SHA-256 at 16 B fell from 70.3 MB/s (1.1.1t) to 31.5 MB/s (3.1.0) "
            "and was equal at 16 KiB (#20998); 100,000 PEM RSA key loads took 0.7 s with 1.1.1, "
            "40 s with 3.0 and 7 s with 3.1 (#15199); certificates ×3.5 and private keys ×6 "
            "slower to load since 3.0 (#18814).",
            "#20998: x86-64 Linux, OpenSSL 1.1.1t and 3.1.0 built by the reporter; #15199: an "
            "x86-64 laptop; #18814: Debian, the 1.1.1 branch and 3.x master (2022)",
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
