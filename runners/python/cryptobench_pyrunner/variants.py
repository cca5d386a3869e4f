"""Variants: the same library with some of its CPU-specific code switched off.

* pyca's bundled OpenSSL reads `OPENSSL_ia32cap` when it loads, so its variant is a property of
  the process: selecting one re-executes the runner with the variable set (or removed), before
  `cryptography` is imported, as the native runner does for its library switches.
* PyCryptodome chooses AES-NI per cipher object: `AES.new(..., use_aesni=False)` is its own
  documented switch, so its variant is applied by the provider, no environment needed.

The OpenSSL mask that keeps SHA-NI and AVX but drops AES-NI (`~0x200000200000000:~0`, the native
openssl provider's `noaesni`) does not drop AES-NI in the OpenSSL 4 that pyca bundles (measured:
AES-256-GCM at 16 KiB stayed above 5 GB/s), so pyca offers only `soft`."""

import os
import sys

# provider -> [(variant, description, environment it needs)]
VARIANTS: dict[str, list[tuple[str, str, dict[str, str]]]] = {
    "pyca": [
        ("default", "the library as installed, every CPU feature its OpenSSL detects", {}),
        (
            "soft",
            "no AES-NI, PCLMULQDQ, SHA-NI, AVX2/AVX-512 or VAES in pyca's OpenSSL "
            "(OPENSSL_ia32cap=~0x200000200000000)",
            {"OPENSSL_ia32cap": "~0x200000200000000"},
        ),
    ],
    "pycryptodome": [
        ("default", "the library as installed (AES-NI where the CPU has it)", {}),
        ("noaesni", "AES without AES-NI: AES.new(..., use_aesni=False)", {}),
    ],
}
ENV_KEYS = {key for vs in VARIANTS.values() for _, _, env in vs for key in env}

# provider -> the variant this process runs (set by select() before any provider is used)
CURRENT: dict[str, str] = dict.fromkeys(VARIANTS, "default")


def names(provider: str) -> list[str]:
    return [name for name, _, _ in VARIANTS[provider]]


def listing(provider: str) -> list[dict]:
    return [{"name": n, "description": d, "env": env} for n, d, env in VARIANTS[provider]]


def select(chosen: dict[str, str], argv: list[str]) -> None:
    """Makes the process run the chosen variants (others: default); re-executes the runner when
    the environment has to change. Returns only in a process that runs them."""
    CURRENT.update(dict.fromkeys(VARIANTS, "default"))
    CURRENT.update(chosen)
    wanted: dict[str, str] = {}
    for provider, variant in CURRENT.items():
        wanted.update(next(env for name, _, env in VARIANTS[provider] if name == variant))
    env = {k: v for k, v in os.environ.items() if k not in ENV_KEYS}
    env.update(wanted)
    if all(os.environ.get(k) == env.get(k) for k in ENV_KEYS):
        os.environ.pop("CRYPTOBENCH_REEXEC", None)
        return
    if os.environ.get("CRYPTOBENCH_REEXEC"):
        raise RuntimeError("the variant's environment did not stick after re-executing")
    env["CRYPTOBENCH_REEXEC"] = "1"
    sys.stdout.flush()
    os.execve(sys.executable, [sys.executable, "-m", "cryptobench_pyrunner", *argv], env)
