"""What the 2008 paper (001) measured, in our names: its security levels, its providers and
what stands in for each today, and its grid of algorithm kinds and input lengths."""

KIB = 1 << 10
MIB = 1 << 20

# Its input lengths (section 2.5): random texts of 128 KB … 2 MB; it discusses 1 MB.
SIZES = [128 * KIB, 256 * KIB, 512 * KIB, MIB, 2 * MIB]
QUICK_SIZES = [128 * KIB, 512 * KIB, 2 * MIB]
FOCUS_SIZE = MIB

# Its four security levels (section 2.1) are time frames: 2-3, 10, 20 and 30 years. Table 1 (the
# key lengths) is not in the excerpt; the paper took the maximum of several recommendations, not
# ECRYPT's alone (§2.1). ECRYPT's 2008 levels for those time frames are 80, 96, 112 and 128 bits
# of symmetric strength, our inference (LEVEL_SOURCE says how it differs). We map each
# level to those bits (inferred, and said so in the output) and each algorithm to the highest
# level its strength reaches (cryptobench's security_levels.toml, NIST SP 800-57 ratings).
LEVELS: list[tuple[str, str, int]] = [
    ("1", "2-3 years", 80),
    ("2", "10 years", 96),
    ("3", "20 years", 112),
    ("4", "30 years", 128),
]
LEVEL_SOURCE = (
    "levels inferred, not the paper's: the excerpt lacks Table 1, and the paper did not adopt "
    "ECRYPT's key lengths: it took the maximum of several recommendations (BSI, NIST, DCSSI, "
    "Lenstra, ECRYPT), and for level 4 an average giving 6136-bit asymmetric keys (§2.1). We map "
    "its time frames to ECRYPT 2008's 80, 96, 112 and 128-bit levels, which puts RSA-3072 at "
    "level 4, far below its 6136 bits"
)

# The paper's seven Java providers and one C library (section 2.2), and what stands in here.
PAPER_PROVIDERS: list[tuple[str, str, str]] = [
    ("JCE SUN (JDK 6)", "sunjce", "the same JDK providers, today's JDK (17; 25 as sunjce/jdk25)"),
    ("Bouncy Castle 1.38", "bouncycastle", "the same library, today's release"),
    ("IAIK-JCE 3.16", "", "defunct here: commercial, not on Maven Central; no stand-in"),
    (
        "Cryptix 20050328",
        "bouncycastle",
        "defunct (last snapshot 2005); Bouncy Castle stands in as the pure-Java provider",
    ),
    (
        "GNU Crypto 2.0.1",
        "bouncycastle",
        "defunct (folded into GNU Classpath); Bouncy Castle stands in",
    ),
    ("FlexiProvider 1.5p1", "bouncycastle", "defunct (unmaintained); Bouncy Castle stands in"),
    (
        "RSA JSafe 3.6",
        "accp",
        "defunct (RSA BSAFE was sold and withdrawn); a vendor's provider "
        "backed by native code stands in: ACCP (AWS-LC)",
    ),
    (
        "RSA BSafe 6.3.2 (C/C++)",
        "openssl",
        "defunct; the native comparison is the fastest native library here, OpenSSL",
    ),
]
NEW_PROVIDERS = {
    "conscrypt": "Conscrypt (BoringSSL), new since 2008",
    "nss": "SunPKCS11 on NSS's softoken, new in this comparison",
}
JAVA_PROVIDERS = ["sunjce", "bouncycastle", "accp", "conscrypt", "nss"]
NATIVE = "openssl"
# The paper's language question (JSafe vs BSafe: one vendor's library from Java and from C++),
# asked of pairs that share one library here: Java provider -> (native provider, library).
# ACCP and aws-lc-rs both bind AWS-LC (each bundles its own AWS-LC build, so versions may
# differ). Conscrypt's BoringSSL and NSS's softoken have no native provider here, and OpenSSL is
# not the library behind any Java provider, so those are no pairs.
SAME_LIBRARY = {"accp": ("aws-lc-rs", "AWS-LC")}

# Its algorithm kinds (Tables 2-5) that still exist in the catalogue. Blowfish, DES and RC4 are
# not in it (RC4 is prohibited in TLS by RFC 7465; DES is broken by exhaustive search): ChaCha20
# stands in for the stream cipher.
SYMMETRIC = ["aes-128-cbc", "aes-256-cbc", "des-ede3-cbc", "chacha20"]
HASHES = ["md5", "sha1", "sha256", "sha512", "whirlpool", "ripemd160"]
MACS = ["hmac-sha256", "hmac-sha512"]
SIGNATURES = ["rsa-1024-pkcs1-sha256", "rsa-2048-pkcs1-sha256", "rsa-3072-pkcs1-sha256"]
PK_ENCRYPTION = ["rsa-1024-oaep-sha256", "rsa-2048-oaep-sha256", "rsa-3072-oaep-sha256"]
KEYGEN = ["rsa-1024", "rsa-2048"]
KEY_SETUP = ["aes-128-cbc", "aes-256-cbc", "des-ede3-cbc"]

QUICK_SYMMETRIC = ["aes-128-cbc", "chacha20"]
QUICK_HASHES = ["md5", "sha256"]
QUICK_MACS = ["hmac-sha256"]
QUICK_SIGNATURES = ["rsa-2048-pkcs1-sha256"]
QUICK_PK_ENCRYPTION = ["rsa-2048-oaep-sha256"]
QUICK_KEY_SETUP = ["aes-128-cbc", "aes-256-cbc"]

NOT_IN_CATALOGUE = [
    "DES, Blowfish and RC4 (Tables 2-3): not in cryptobench's catalogue (broken or prohibited); "
    "ChaCha20 stands in for the stream cipher",
    "the paper's figures (its Figures 1-33) are plots, not in the excerpt: only its method and "
    "its claims can be compared",
    "Windows Vista vs Ubuntu 7.10 (its OS comparison): one OS here",
]
