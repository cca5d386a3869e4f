"""The store's schema: MIGRATIONS[i] takes a database from version i to i + 1.

The SQL is SQLite's; every table a part of cryptobench keeps (runs and cases of the core, the
figures of a scenario) is created here, so the whole schema is read in one place.
"""

MIGRATIONS: list[str] = [
    # 0 -> 1: the first schema.
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        started_at TEXT NOT NULL,
        finished_at TEXT,
        status TEXT NOT NULL,              -- running, complete, interrupted
        suite TEXT NOT NULL,
        settings TEXT NOT NULL,            -- JSON: timeout, skipped combinations, ...
        argv TEXT NOT NULL,                -- JSON: the command line
        cryptobench_version TEXT NOT NULL,
        runner TEXT NOT NULL,
        runner_version TEXT NOT NULL,
        runner_path TEXT NOT NULL,
        pid INTEGER                        -- of the cryptobench process measuring the run
    );
    CREATE TABLE machine (
        run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        hostname TEXT,
        cpu_model TEXT,
        cores INTEGER,
        kernel TEXT,
        os TEXT,
        compiler TEXT,
        tsc_hz REAL,
        tsc_invariant INTEGER,
        governor TEXT,
        cpu_flags TEXT,                    -- JSON array
        record TEXT NOT NULL               -- JSON: the runner's whole machine record
    );
    CREATE TABLE libraries (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        provider TEXT NOT NULL,
        variant TEXT NOT NULL,
        version TEXT NOT NULL,
        description TEXT NOT NULL,         -- of the variant
        code_path TEXT NOT NULL,           -- JSON: what the library reports about its code path
        PRIMARY KEY (run_id, provider, variant)
    );
    CREATE TABLE cases (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,              -- order in the plan
        provider TEXT NOT NULL,
        variant TEXT NOT NULL,
        operation TEXT NOT NULL,
        algorithm TEXT NOT NULL,
        size INTEGER NOT NULL,
        input TEXT NOT NULL,
        align_offset INTEGER NOT NULL,
        aad_bytes INTEGER NOT NULL,
        spec TEXT NOT NULL,                -- JSON: the whole case specification
        status TEXT NOT NULL,              -- pending, ok, failed, unsupported
        reason TEXT NOT NULL DEFAULT '',
        gate TEXT,                         -- JSON: kat, roundtrip, agreement
        iterations INTEGER,
        calibration_ns INTEGER,
        heap_allocs_per_op REAL,
        heap_frees_per_op REAL,
        heap_bytes_per_op REAL,
        heap_peak_live_bytes INTEGER,
        heap_prepare_allocs INTEGER,
        heap_prepare_bytes INTEGER,
        max_rss_kb INTEGER,
        runner_summary TEXT,               -- JSON: the runner's own summary, for cross-checks
        completed_at TEXT,
        UNIQUE (run_id, provider, variant, operation, algorithm, size, input, align_offset,
                aad_bytes)
    );
    CREATE INDEX cases_by_run ON cases(run_id, seq);
    CREATE TABLE samples (
        case_id INTEGER NOT NULL REFERENCES cases(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        iterations INTEGER NOT NULL,
        ns INTEGER NOT NULL,               -- CLOCK_MONOTONIC for the whole sample
        ticks INTEGER NOT NULL,            -- TSC ticks for the whole sample
        PRIMARY KEY (case_id, idx)
    ) WITHOUT ROWID;
    CREATE TABLE failures (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        case_id INTEGER REFERENCES cases(id) ON DELETE CASCADE,
        kind TEXT NOT NULL,                -- gate, library, crash, timeout, protocol, start
        message TEXT NOT NULL,
        detail TEXT NOT NULL DEFAULT '',   -- e.g. the end of the runner's stderr
        at TEXT NOT NULL
    );
    """,
    # 1 -> 2: a free-text note per run (`run --note`), shown by `runs` and in reports.
    """
    ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT '';
    """,
    # 2 -> 3: a key derivation case's cost parameters (canonical JSON, '{}' for every other case)
    # join the case's identity. SQLite cannot change a table's UNIQUE constraint in place, so the
    # table is rebuilt (the procedure of https://sqlite.org/lang_altertable.html, section 7); ids
    # are kept, so samples and failures still point at their cases. migrate() turns foreign keys
    # off around it: with them on, dropping the old table would delete every sample.
    """
    CREATE TABLE cases_v3 (
        id INTEGER PRIMARY KEY,
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        provider TEXT NOT NULL,
        variant TEXT NOT NULL,
        operation TEXT NOT NULL,
        algorithm TEXT NOT NULL,
        size INTEGER NOT NULL,
        input TEXT NOT NULL,
        align_offset INTEGER NOT NULL,
        aad_bytes INTEGER NOT NULL,
        cost TEXT NOT NULL DEFAULT '{}',   -- JSON: KDF cost parameters, e.g. {"iterations":10000}
        spec TEXT NOT NULL,
        status TEXT NOT NULL,
        reason TEXT NOT NULL DEFAULT '',
        gate TEXT,
        iterations INTEGER,
        calibration_ns INTEGER,
        heap_allocs_per_op REAL,
        heap_frees_per_op REAL,
        heap_bytes_per_op REAL,
        heap_peak_live_bytes INTEGER,
        heap_prepare_allocs INTEGER,
        heap_prepare_bytes INTEGER,
        max_rss_kb INTEGER,
        runner_summary TEXT,
        completed_at TEXT,
        UNIQUE (run_id, provider, variant, operation, algorithm, size, input, align_offset,
                aad_bytes, cost)
    );
    INSERT INTO cases_v3 (id, run_id, seq, provider, variant, operation, algorithm, size, input,
        align_offset, aad_bytes, spec, status, reason, gate, iterations, calibration_ns,
        heap_allocs_per_op, heap_frees_per_op, heap_bytes_per_op, heap_peak_live_bytes,
        heap_prepare_allocs, heap_prepare_bytes, max_rss_kb, runner_summary, completed_at)
    SELECT id, run_id, seq, provider, variant, operation, algorithm, size, input,
        align_offset, aad_bytes, spec, status, reason, gate, iterations, calibration_ns,
        heap_allocs_per_op, heap_frees_per_op, heap_bytes_per_op, heap_peak_live_bytes,
        heap_prepare_allocs, heap_prepare_bytes, max_rss_kb, runner_summary, completed_at
    FROM cases;
    DROP TABLE cases;
    ALTER TABLE cases_v3 RENAME TO cases;
    CREATE INDEX cases_by_run ON cases(run_id, seq);
    """,
    # 3 -> 4: the `config` scenario (python/cryptobench/scenarios/config.py). A scenario run is a
    # row of runs (suite 'scenario:config', driver facts in settings["scenario"]) with no cases;
    # its timings and heap figures are here.
    """
    CREATE TABLE scenario_samples (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        scheme TEXT NOT NULL, provider TEXT NOT NULL, n INTEGER NOT NULL, direction TEXT NOT NULL,
        run_index INTEGER NOT NULL, ns INTEGER NOT NULL,
        PRIMARY KEY (run_id, scheme, provider, n, direction, run_index)
    ) WITHOUT ROWID;
    CREATE TABLE scenario_heap (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        scheme TEXT NOT NULL, provider TEXT NOT NULL, n INTEGER NOT NULL, direction TEXT NOT NULL,
        allocs INTEGER NOT NULL, bytes INTEGER NOT NULL, peak_live_bytes INTEGER NOT NULL,
        PRIMARY KEY (run_id, scheme, provider, n, direction)
    ) WITHOUT ROWID;
    """,
    # 4 -> 5: the figures of every scenario but `config` (storage, channel, process, …): one row
    # per measured figure, its identity as a JSON object (e.g. {"system": "gocryptfs",
    # "workload": "dd-write"}) and one value per repetition (cryptobench/figures.py).
    """
    CREATE TABLE figures (
        run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,              -- order in which the figures were stored
        key TEXT NOT NULL,                 -- JSON object, keys sorted
        metric TEXT NOT NULL,              -- e.g. throughput, handshakes, latency
        unit TEXT NOT NULL,                -- e.g. MB/s, 1/min, ms
        better TEXT NOT NULL,              -- higher or lower
        status TEXT NOT NULL,              -- ok, failed, skipped
        reason TEXT NOT NULL DEFAULT '',
        vals TEXT NOT NULL,                -- JSON array: one value per repetition
        extra TEXT NOT NULL DEFAULT '{}',  -- JSON object: anything else worth keeping
        PRIMARY KEY (run_id, seq)
    ) WITHOUT ROWID;
    """,
    # 5 -> 6: the machine's run-to-run noise, measured by `cryptobench calibrate` from two
    # identical runs (A/A); `compare`, the unstable flag and `recommend` read it (noise.py).
    """
    CREATE TABLE calibrations (
        id INTEGER PRIMARY KEY,
        created_at TEXT NOT NULL,
        hostname TEXT,
        cpu_model TEXT,
        run_a INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        run_b INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        noise REAL NOT NULL,               -- p90 of |median B / median A - 1| over the cases
        figures TEXT NOT NULL              -- JSON: every precision figure calibrate printed
    );
    """,
]
SCHEMA_VERSION = len(MIGRATIONS)
