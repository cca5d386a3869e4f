"""Test-session cache of the runners' `list` replies, for every Python the tests start.

Every `cryptobench` command discovers the runners (cryptobench.runner.discovery.discover), which
runs each one's `list`; the JVM runner's probes every algorithm of five providers and costs about
10 s of CPU each time, paid again by every test that runs a command. conftest.py puts this
directory on PYTHONPATH and names a cache directory in CRYPTOBENCH_TEST_LIST_CACHE for the session:
the first `list` of a runner is run for real, and later ones with the same executable (path, size,
mtime, inode), the same arguments and the same environment read the reply the runner gave then.
A changed runner, another variant or another environment is listed again; a failing `list` is
never cached. The runners' own `list` is tested directly, uncached (test_runner_protocol.py,
test_catalogue.py, test_runner_<name>.py)."""

import os

if os.environ.get("CRYPTOBENCH_TEST_LIST_CACHE"):
    try:
        from cryptobench.runner import discovery
    except ImportError:  # a Python without cryptobench (the Python runner's own venv)
        discovery = None
    if discovery is not None:
        import hashlib
        import json
        import pickle
        from pathlib import Path

        # Per-test paths that do not change what a runner lists (CRYPTOBENCH_RUNNERS: which
        # runners are found, not what one lists).
        _IGNORED = {"CRYPTOBENCH_DB", "XDG_DATA_HOME", "PYTEST_CURRENT_TEST", "CRYPTOBENCH_RUNNERS"}
        _real = discovery.list_capabilities

        def _key(exe, variants) -> str:
            st = os.stat(exe)
            env = sorted((k, v) for k, v in os.environ.items() if k not in _IGNORED)
            ident = [str(Path(exe).resolve()), st.st_size, st.st_mtime_ns, st.st_ino]
            blob = json.dumps([ident, sorted((variants or {}).items()), env])
            return hashlib.sha256(blob.encode()).hexdigest()

        def list_capabilities(exe, variants=None, timeout=120):
            try:
                path = Path(os.environ["CRYPTOBENCH_TEST_LIST_CACHE"]) / _key(exe, variants)
            except OSError:
                return _real(exe, variants, timeout)
            if path.is_file():
                return pickle.loads(path.read_bytes())
            caps = _real(exe, variants, timeout)
            tmp = path.with_suffix(f".{os.getpid()}")
            tmp.write_bytes(pickle.dumps(caps))
            tmp.replace(path)
            return caps

        discovery.list_capabilities = list_capabilities
