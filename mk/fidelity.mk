# The fidelity check (python/cryptobench/fidelity.py) runs each library's own benchmark tool next
# to cryptobench: `openssl speed` (package openssl, already a core package), `botan speed` and
# Crypto++'s `cryptest b2`.
APT_fidelity := botan libcrypto++-utils
APT_PACKAGES += $(APT_fidelity)
