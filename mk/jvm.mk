# The JVM runner (runners/jvm): JCA providers `sunjce`, `bouncycastle`, `accp`, `conscrypt` and
# `nss` (SunPKCS11 on NSS's softoken). `make setup` builds it with Maven (pinned versions, resolved
# into ~/.m2 once) and writes .venv/bin/cryptobench-runner-jvm; without a JDK, Maven or Maven
# Central it prints why and the JVM providers are absent (runners/jvm/build.sh never fails setup).
# Its tests (python/tests/test_runner_protocol.py, test_runner_jvm.py) run with the other Python tests.
SETUP_TARGETS += runner-jvm

.PHONY: runner-jvm bench-jvm

runner-jvm: apt-build
	@$(PHASE) runner-jvm bash runners/jvm/build.sh $(abspath $(VENV))/bin

# Fidelity: the engine's loop against JMH on the reference cases (ratio 0.9-1.1).
bench-jvm:
	$(VENV)/bin/python -m cryptobench.runner_fidelity $(VENV)/bin/cryptobench-runner-jvm
