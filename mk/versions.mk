# Versioned providers (docs/versions.md): other versions of the C libraries, built from the
# sources their crates.io packages carry into ~/.cache/cryptobench/ (CRYPTOBENCH_CACHE), keyed by
# version and flags, then the native build again so it compiles their adapters. Opt-in: never
# part of `make setup` or `make test`; a clone or CI whose cache holds a build reuses it (the
# native build compiles the adapter of every version it finds there, which takes seconds).
#   make versions                      the OpenSSL versions (VERSIONS= to choose)
#   make versions VERSIONS=openssl@3.5
#   make versions VERSIONS=aws-lc       AWS-LC (CMake; not in the default list)
#   make versions VERSIONS=boringssl    BoringSSL (CMake; not in the default list)
#   make versions VERSIONS=botan@3      Botan 3.13 (configure.py, minimized; not in the default list)
VERSIONS ?= openssl@1.1.1 openssl@3.5 openssl@4.0

.PHONY: versions versions-list

versions:
	nice python3 native/versions/build.py --jobs $(JOBS) $(VERSIONS)
	$(MAKE) native
	@[ ! -x $(PY) ] || cmake --install $(BUILD) --prefix $(VENV) >/dev/null

versions-list:
	@python3 native/versions/build.py --list
