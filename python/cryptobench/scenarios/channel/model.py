"""The channel scenario's settings, the channels and grids it measures, and the 2015 thesis's
figures (003, Tables 5.1–5.7), copied as numbers."""

PARTS = ("handshake", "latency", "bulk")
RUNS = 1
QUICK_RUNS = 1
# The thesis repeated each handshake test case five times "to ensure stable results" (§4.3):
# reproduce 003 does the same (`--handshake-runs`), quick or not.
THESIS_HANDSHAKE_RUNS = 5

# Accelerated (OpenSSL picks AES-NI, PCLMULQDQ, AVX…) or not: the core's `openssl/soft` mask.
SOFT_IA32CAP = "~0x200000200000000"
ACCEL = ("on", "off")

# ---- handshakes ------------------------------------------------------------------------------
RSA_BITS = (1024, 2048, 4096)
DH_GROUPS = ("rfc5114-1024", "ffdhe2048", "ffdhe4096")
OVPN_CLIENTS = 10
HANDSHAKE_WINDOW_S = 30.0
QUICK_HANDSHAKE_WINDOW_S = 6.0
TLS_WINDOW_S = 5
QUICK_TLS_WINDOW_S = 2
# Today's defaults beside the paper's DHE-RSA: TLS 1.3 (X25519) with three certificate kinds.
TLS13_CERTS = ("rsa-2048", "ecdsa-p256", "ed25519")

# ---- latency ---------------------------------------------------------------------------------
PAYLOADS = (56, 512, 1000, 1400, 4000, 8000, 16000)
QUICK_PAYLOADS = (56, 1000, 8000, 16000)
ECHOES = 500
QUICK_ECHOES = 50

# ---- bulk ------------------------------------------------------------------------------------
BULK_BYTES = 128 << 20
QUICK_BULK_BYTES = 32 << 20
SSH_CIPHERS = (
    ("aes128-ctr", None),
    ("aes256-gcm@openssh.com", None),
    ("chacha20-poly1305@openssh.com", None),
    ("aes256-cbc", "hmac-sha2-256"),  # the paper's aes256cbc:sha256
)
QUICK_SSH_CIPHERS = (SSH_CIPHERS[1], SSH_CIPHERS[3])  # today's default beside the paper's
IPERF_S = 5
QUICK_IPERF_S = 2

# ---- channels (latency and bulk) -------------------------------------------------------------
# name -> (kind, data-channel settings). OpenVPN: (cipher, auth); IPsec: ESP proposal.
OPENVPN_VARIANTS = {
    "openvpn none/none": ("none", "none"),
    "openvpn AES-256-CBC/none": ("AES-256-CBC", "none"),
    "openvpn AES-256-CBC/SHA-256": ("AES-256-CBC", "SHA256"),
    "openvpn AES-256-GCM": ("AES-256-GCM", "SHA256"),
}
IPSEC_VARIANTS = {
    "ipsec NULL/SHA-256": "null-sha256",
    "ipsec AES-256-CBC/SHA-256": "aes256-sha256",
    "ipsec AES-256-GCM": "aes256gcm16",
}
# Tried, and shown as not possible when strongSwan refuses it (it does: encryption without
# integrity is not an ESP proposal strongSwan 5.9 accepts; the paper's kernel set-up allowed it).
IPSEC_IMPOSSIBLE = {"ipsec AES-256-CBC/none": "aes256"}
IPSEC_IMPOSSIBLE_WHY = (
    "not possible: strongSwan refuses an ESP proposal with encryption and no integrity"
)
WIREGUARD = "wireguard-go"
RAW = "raw veth"
QUICK_CHANNELS = (
    RAW,
    "openvpn none/none",
    "openvpn AES-256-GCM",
    "ipsec AES-256-CBC/none",
    "ipsec AES-256-GCM",
    WIREGUARD,
)


def all_channels() -> list[str]:
    ipsec = list(IPSEC_VARIANTS)
    return [RAW, *OPENVPN_VARIANTS, ipsec[0], *IPSEC_IMPOSSIBLE, *ipsec[1:], WIREGUARD]


# ---- the paper's figures (003) ---------------------------------------------------------------
PAPER_SOURCE = "the 2015 offload thesis (003), Tables 5.1–5.7: software (soft) and BA41xE hardware"
# Table 5.1: time to establish an aes-256-cbc connection with DHE, seconds.
PAPER_CONNECT_S = {
    ("rsa-1024", "soft"): 0.041921,
    ("rsa-1024", "hw"): 0.020312,
    ("rsa-2048", "soft"): 0.202945,
    ("rsa-2048", "hw"): 0.039965,
    ("rsa-4096", "soft"): 1.436743,
    ("rsa-4096", "hw"): 0.183533,
}
# Table 5.2: TLS connections per minute with ten clients, and the server's CPU %.
PAPER_CONN_PER_MIN = {
    ("rsa-1024", "soft"): (445.4, 40.32),
    ("rsa-1024", "hw"): (509.3, 13.29),
    ("rsa-2048", "soft"): (155.6, 92.14),
    ("rsa-2048", "hw"): (420.9, 4.82),
    ("rsa-4096", "soft"): (19.6, 81.97),
    ("rsa-4096", "hw"): (115.5, 4.34),
}
PAPER_PAYLOADS = (56, 1000, 8000, 16000)
# Table 5.3 (OpenVPN) and 5.4 (IPsec): average ping rtt in ms at 56/1000/8000/16000 bytes.
PAPER_PING_OPENVPN = {
    "raw": (1.444, 1.929, 2.811, 4.322),
    "none-none": (2.066, 2.561, 4.293, 6.117),
    "soft-cbc256-none": (2.044, 2.760, 5.092, 7.166),
    "ba411e-cbc256-none": (2.301, 2.783, 5.377, 8.009),
    "soft-cbc256-sha256": (2.415, 3.061, 5.997, 9.135),
    "ba411e-cbc256-sha256": (2.416, 3.052, 5.963, 9.207),
}
PAPER_PING_IPSEC = {
    "raw": (1.444, 1.929, 2.811, 4.322),
    "none-none": (1.545, 2.045, 2.997, 4.703),
    "soft-cbc256-none": (1.581, 2.134, 3.910, 6.426),
    "ba411e-cbc256-none": (1.639, 2.080, 3.445, 5.345),
    "soft-cbc256-sha256": (1.645, 2.322, 4.762, 7.975),
    "ba411e-cbc256-sha256": (1.635, 2.246, 4.170, 6.929),
    "soft-gcm256": (1.651, 2.388, 5.383, 9.241),
}
# Which of our channels stands for each paper row (software rows only; hardware has no twin).
PAPER_PING_OURS = {
    "raw": RAW,
    "none-none": {"openvpn": "openvpn none/none", "ipsec": "ipsec NULL/SHA-256"},
    "soft-cbc256-none": {"openvpn": "openvpn AES-256-CBC/none", "ipsec": None},
    "soft-cbc256-sha256": {
        "openvpn": "openvpn AES-256-CBC/SHA-256",
        "ipsec": "ipsec AES-256-CBC/SHA-256",
    },
    "soft-gcm256": {"openvpn": None, "ipsec": "ipsec AES-256-GCM"},
}
# Tables 5.5–5.7: 128 MB transfers, (MB/s, CPU %).
PAPER_SCP = {
    "out of tunnel none:none": (11.39, 7.16),
    "soft aes256cbc:none": (10.89, 96.26),
    "soft aes256cbc:sha256": (8.19, 89.29),
    "BA414E aes256cbc:none": (10.67, 46.01),
    "BA414E aes256cbc:sha256": (10.39, 68.19),
}
PAPER_FTP_OPENVPN = {
    "out of tunnel": (11.39, 7.16),
    "inside tunnel none:none": (5.18, 42.60),
    "soft aes256cbc:none": (4.78, 76.60),
    "soft aes256cbc:sha256": (3.87, 76.03),
    "BA414E aes256cbc:none": (3.35, 83.74),
    "BA414E aes256cbc:sha256": (2.84, 80.89),
}
PAPER_FTP_IPSEC = {
    "out of tunnel": (11.39, 7.16),
    "inside tunnel none:none": (10.21, 14.68),
    "soft aes256cbc:none": (8.83, 63.74),
    "soft aes256cbc:sha256": (6.47, 74.64),
    "soft aes256gcm": (5.09, 89.66),
    "BA414E aes256cbc:none": (8.52, 14.87),
    "BA414E aes256cbc:sha256": (5.80, 17.25),
}
STAND_INS = {
    "BA411E/BA414E offload IP on an ARM SoC": "no offload device here: OpenSSL with and without "
    "AES-NI/PCLMULQDQ/AVX (OPENSSL_ia32cap), the accelerated path standing for the hardware",
    "kernel IPsec (ESP)": "strongSwan 5.9 with kernel-libipsec: ESP in user space over a TUN "
    "device (this kernel has no ESP); a structural cost kernel ESP does not have",
    "two hosts on a network": "two network namespaces joined by a veth pair on one 2-core VM: "
    "both ends share the CPUs",
    "OpenVPN 2.3.6 with DHE-RSA": "OpenVPN 2.6 with TLS 1.2 DHE-RSA (same handshake family)",
    "(not in the paper)": "TLS 1.3 with X25519 and RSA/ECDSA/Ed25519 certificates; WireGuard "
    "(wireguard-go, user space: no kernel WireGuard here); iperf3",
}
