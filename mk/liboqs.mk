# liboqs (docs/versions.md, "liboqs"): the native provider `liboqs` (ML-KEM, ML-DSA; src/providers/
# liboqs.cpp), built from the liboqs source inside the oqs-sys crate by native/versions/build.py
# (recipe "liboqs") into ~/.cache/cryptobench/liboqs-<version>-<flags-hash>/ (CRYPTOBENCH_CACHE
# moves it), then the native build again, which compiles the adapter against it as the module
# cryptobench-providers/liboqs.so. Opt-in: never part of `make setup` or `make test`; without it
# `cryptobench list` names liboqs as an absent provider with the reason.
#   make liboqs                 build (or reuse the cached build) and compile the provider
#   make bench-fidelity-pq      liboqs's speed_sig/speed_kem beside our liboqs provider, and testing.B for
#                               Go's crypto/mlkem beside the go provider, alternated (a benchmark)
.PHONY: liboqs bench-fidelity-pq

liboqs:
	$(MAKE) versions VERSIONS=liboqs

bench-fidelity-pq:
	$(PY) -m cryptobench.pq_fidelity
