"""`cryptobench reproduce openssl3`: OpenSSL 3's published regressions against 1.1.1, measured
on the versions `make versions` built (docs/versions.md)."""
