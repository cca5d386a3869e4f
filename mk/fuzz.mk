# Fuzzing confcrypt (docs/confcrypt.md, "Fuzzing"): libFuzzer targets for the INI, JSON and dotenv
# parsers, the header, the token and the decrypt path, built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into native/build-fuzz. `make test` runs each for FUZZ_SECONDS on a
# copy of its seed corpus (about a minute in all); `make fuzz-long` for as long as you like.
APT_fuzz := clang libclang-rt-14-dev
APT_PACKAGES += $(APT_fuzz)
TEST_TARGETS += fuzz-short

FUZZ_BUILD ?= native/build-fuzz
FUZZ_CORPUS := native/confcrypt/fuzz/corpus
FUZZ_TARGETS := ini json dotenv header token decrypt
FUZZ_SECONDS ?= 10
FUZZ_LONG_SECONDS ?= 3600
# The decrypt target loads OpenSSL: full stacks for allocations there (libcrypto has no frame
# pointers), so that the suppression of its one-time provider load sees its frame. The parser
# targets keep the fast unwinder (ten times the executions per second).
FUZZ_ENV = LSAN_OPTIONS=suppressions=$(CURDIR)/native/confcrypt/fuzz/lsan.supp \
  ASAN_OPTIONS=fast_unwind_on_malloc=$$([ $$t = decrypt ] && echo 0 || echo 1)

.PHONY: fuzz-build fuzz-short fuzz-long

# Without clang (or its libFuzzer runtime) the fuzz targets are absent, with the reason printed.
fuzz-build:
	@if ! command -v clang++ >/dev/null 2>&1; then \
	  echo "fuzz: clang++ not found (apt: clang libclang-rt-14-dev): fuzz targets skipped"; \
	else \
	  cmake -S native/confcrypt/fuzz -B $(FUZZ_BUILD) -G Ninja -DCMAKE_CXX_COMPILER=clang++ \
	    -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CCACHE) >/dev/null && \
	  cmake --build $(FUZZ_BUILD) -j $(JOBS); \
	fi

# Each target on a scratch copy of its seeds (the corpus in git stays small); a crash fails the
# run and leaves its input as $(FUZZ_BUILD)/crash-* for a regression test.
fuzz-short: fuzz-build
	@[ -x $(FUZZ_BUILD)/fuzz_ini ] || exit 0; \
	work=$$(mktemp -d /tmp/confcrypt-fuzz-XXXXXX); trap 'rm -rf "$$work"' EXIT; \
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p "$$work/$$t" && cp $(FUZZ_CORPUS)/$$t/* "$$work/$$t/"; \
	  echo "fuzz: $$t for $(FUZZ_SECONDS) s"; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/ -print_final_stats=1 \
	    "$$work/$$t" 2>"$$work/$$t.log" || { tail -40 "$$work/$$t.log"; exit 1; }; \
	  grep -E "stat::number_of_executed_units" "$$work/$$t.log" | sed "s/^/fuzz: $$t /"; \
	done

# A long run grows the corpus in $(FUZZ_BUILD)/corpus-<target> (kept between runs).
fuzz-long: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$t; \
	  $(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t -max_total_time=$(FUZZ_LONG_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 -artifact_prefix=$(FUZZ_BUILD)/ \
	    $(FUZZ_BUILD)/corpus-$$t $(FUZZ_CORPUS)/$$t || exit 1; \
	done
