"""The process scenario's settings and the EvalMe paper's figures (004, section 4.3)."""

# The paper's algorithms, in the catalogue's names, plus today's AEADs. The paper also measured
# 3DES in OFB, CTR and CFB and 128-bit-key Salsa20/ChaCha20, which the catalogue does not have.
PAPER_ALGORITHMS = (
    "aes-192-cbc",
    "aes-192-ofb",
    "aes-192-ctr",
    "aes-192-cfb",
    "des-ede3-cbc",
    "salsa20",
    "chacha20",
)
AEADS = ("aes-256-gcm", "chacha20-poly1305")
ALGORITHMS = PAPER_ALGORITHMS + AEADS
NOT_IN_CATALOGUE = (
    "3DES in OFB, CTR and CFB (only des-ede3-cbc is in the catalogue)",
    "Salsa20 and ChaCha20 with 128-bit keys (the catalogue's use 256-bit keys)",
)
KINDS = ("random", "text", "audio", "video")
SIZES = (128 << 10, 256 << 10, 512 << 10, 1 << 20, 4 << 20, 8 << 20)  # the paper's
RUNS = 20
WARMUP = 2
CHUNK = 64 << 10  # the measured program processes files in 64 KiB records

QUICK_PROVIDERS = ("cryptopp", "botan", "openssl")
QUICK_ALGORITHMS = ("aes-192-cbc", "chacha20", "aes-256-gcm")
QUICK_SIZES = (128 << 10, 1 << 20)
QUICK_RUNS = 5

PAPER_PROVIDERS = ("cryptopp", "botan")
PAPER_MEMORY_MIB = 0.36
# Average MiB/s per library and algorithm that section 4.3 of the paper names (best and worst
# of each group), on a Raspberry Pi 4 (Cortex-A72, 1.5 GHz), Crypto++ 8.4 and Botan 2.17.3.
PAPER_MIB_S: dict[tuple[str, str], float] = {
    ("cryptopp", "des-ede3-cfb"): 6.09,
    ("cryptopp", "des-ede3-ofb"): 5.58,
    ("cryptopp", "aes-192-cbc"): 12.05,
    ("cryptopp", "aes-192-cfb"): 10.92,
    ("botan", "des-ede3-cbc"): 5.18,
    ("botan", "des-ede3-ctr"): 2.94,
    ("botan", "aes-192-cbc"): 6.6,
    ("botan", "aes-192-ctr"): 3.29,
    ("cryptopp", "chacha20-128"): 13.12,
    ("cryptopp", "salsa20-128"): 12.89,
    ("botan", "salsa20-128"): 4.16,
    ("botan", "chacha20-128"): 3.93,
}
PAPER_SOURCE = "EvalMe (2021), section 4.3 (averages over input kinds and sizes, Fig. 1)"
