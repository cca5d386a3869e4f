"""The papers' claims and their criteria (cryptobench/criteria): for every claim, figures that
agree with the paper make it hold and figures that contradict it make it fail; missing figures
and stand-ins that remove the paper's mechanism make it undecided, never absent."""

import pytest

from cryptobench import papers
from cryptobench.criteria import evaluate, specs_for, tally

MIB = 1 << 20
LIBS000 = ("gcrypt", "openssl", "botan")


def _000(per_value=(0.011, 0.017, 0.038), whole=0.005, heap=(70_000, 64_000), confcrypt=0.02):
    read = dict(zip(LIBS000, per_value, strict=True))
    return {
        "noise": 0.05,
        "per_value_read_s": read,
        "per_value_write_s": read,
        "per_value_n": 100,
        "h_at_n": {
            d: {"n": 100, "wholefile": whole} | {k: v * 100 for k, v in read.items()}
            for d in ("read", "write")
        },
        "wholefile_h_s": {"read": whole, "write": whole * 1.4},
        "heap_overhead_bytes": dict(zip(("openssl", "botan"), heap, strict=True)),
        "read_1000_s": {f"compat/{k}": v * 1000 for k, v in read.items()}
        | {f"confcrypt/{k}": confcrypt for k in LIBS000},
        # each library with its thesis variant's PBKDF2 (Elektra dfa9bb8)
        "compat_kdf": {
            "gcrypt": "pbkdf2-sha512",
            "openssl": "pbkdf2-sha1",
            "botan": "pbkdf2-sha256",
        },
    }


def _001(ratio_large=16.0, pairs=0.9):
    sweeps = [
        {"label": f"p{i}", "n_small": 128 << 10, "t_small": 1e5, "n_large": 2 << 20,
         "t_large": 1e5 * ratio_large}
        for i in range(5)
    ]  # fmt: skip
    pair = {"java": "accp aes-128-cbc encrypt", "native": "aws-lc-rs", "library": "AWS-LC"}
    return {"noise": 0.05, "sweeps": sweeps, "pairs": [pair | {"ratio": pairs}]}


def _002(dd=0.6, block=0.5, refused=True, cryptofs=None):
    data = {
        "noise": 0.05,
        "dd_ratio": {"luks-nbd": dd},
        "block_write_ratio": {"encfs": block, "gocryptfs": block},
        "refused": {"encfs": refused, "luks-nbd": refused, "rclone-crypt": False},
    }
    if cryptofs is not None:
        data["refused"]["cryptofs"] = not cryptofs
    return data


def _003(agree=True, kernel=True, device=True):
    per = {1024: 18.0, 2048: 2.8, 4096: 0.4} if agree else {1024: 100.0, 2048: 245.0, 4096: 130.0}
    ovpn, ipsec = [2.4, 3.1, 6.0, 9.1], [1.6, 2.3, 4.8, 7.9]
    fast, slow = ([8.2, 89.0], [3.9, 76.0]) if agree else ([3.0, 90.0], [9.0, 20.0])
    return {
        "noise": 0.05,
        "per_cpu_soft": per,
        "offload_device": device,
        "conn_hw_soft": {1024: 1.14, 4096: 5.89} if agree else {1024: 1.0, 4096: 1.02},
        "ipsec_kernel": kernel,
        "rtt_x_raw": {"openvpn": [1.43, 1.33, 1.53, 1.42], "ipsec": [1.07, 1.06, 1.07, 1.09]}
        if agree
        else {"openvpn": [1.1, 1.1, 1.1, 1.1], "ipsec": [1.5, 1.5, 1.5, 1.5]},
        "rtt_cbc_sha": {"openvpn": ovpn, "ipsec": ipsec if agree else ovpn},
        "bulk": {
            "scp": {"off": fast, "on": [20.0, 80.0] if agree else [2.0, 90.0]},
            "openvpn": {"off": slow, "on": [3.0, 80.0] if agree else [30.0, 10.0]},
            "ipsec": {"off": [6.5, 74.0], "on": [6.0, 18.0] if agree else [1.0, 90.0]},
        },
        "break_even_bytes": (1 << 20) if agree else 64,
    }


def _004(agree=True, fixed=False):
    aes = {"cbc": 12.05, "ofb": 11.5, "ctr": 11.2, "cfb": 10.92}
    botan_aes = {"cbc": 6.6, "ofb": 5.0, "cfb": 4.5, "ctr": 3.29}
    mib = {("cryptopp", f"aes-192-{m}"): v for m, v in aes.items()}
    mib |= {("botan", f"aes-192-{m}"): v for m, v in botan_aes.items()}
    mib |= {("cryptopp", "des-ede3-cbc"): 5.8, ("botan", "des-ede3-cbc"): 5.18,
            ("cryptopp", "salsa20"): 12.89, ("cryptopp", "chacha20"): 13.8,
            ("botan", "salsa20"): 4.16, ("botan", "chacha20"): 3.93}  # fmt: skip
    if not agree:  # the reverse of every finding
        mib = {(lib, a): 20.0 - v for (lib, a), v in mib.items()}
        mib[("cryptopp", "chacha20")] = 1.0
    by_size = {
        cell: {128 << 10: v, 8 * MIB: v * (1.5 if cell[0] == "botan" else 1.02)}
        if agree
        else {128 << 10: v, 8 * MIB: v * (0.5 if cell[0] == "botan" else 2.0)}
        for cell, v in mib.items()
    }
    spread = 1.02 if agree else 1.5
    by_kind = {cell: {"random": v, "text": v * spread, "audio": v, "video": v}
               for cell, v in mib.items()}  # fmt: skip
    rss = [0.36, 0.37, 0.36] if agree else [0.36, 2.0]
    return {"noise": 0.05, "mib_s": mib, "by_size": by_size, "by_kind": by_kind,
            "rss_mib": rss, "fixed_records": fixed}  # fmt: skip


def _openssl3(agree=True):
    if agree:  # the threads' own figures
        sha = {"1.1.1": {16: 70.30, 16384: 531.8}, "3.0": {16: 31.55, 16384: 526.4}}
        pem = {"1.1.1": 0.7e-5, "3.x": 7e-5, "3.0": 40e-5}
        ratio, hs = {"cert": 3.5, "key": 6.0}, {"3.0": 1333.5, "1.1.1": 1773.9, "aws-lc": 2478.9}
    else:
        sha = {"1.1.1": {16: 30.0, 16384: 300.0}, "3.0": {16: 31.0, 16384: 530.0}}
        pem = {"1.1.1": 7e-5, "3.x": 40e-5, "3.0": 0.7e-5}
        ratio, hs = {"cert": 6.0, "key": 1.0}, {"3.0": 2478.9, "1.1.1": 1773.9, "aws-lc": 1333.5}
    return {"noise": 0.05, "sha256_mb_s": sha, "pem_rsa_load_s": pem, "load_ratio": ratio,
            "handshakes_s": hs}  # fmt: skip


AGREE = {"000": _000(), "001": _001(), "002": _002(cryptofs=True), "003": _003(), "004": _004(),
         "openssl3": _openssl3()}  # fmt: skip
CONTRADICT = {
    "000": _000(per_value=(0.2, 0.01, 0.005), whole=5.0, heap=(60_000, 70_000), confcrypt=9.0),
    "001": _001(ratio_large=8.0, pairs=0.1),
    "002": _002(dd=0.99, block=1.0, refused=False, cryptofs=False),
    "003": _003(agree=False),
    "004": _004(agree=False),
    "openssl3": _openssl3(agree=False),
}


def _all_specs():
    return [(p, s) for p in papers.PAPERS for s in specs_for(p)]


@pytest.mark.parametrize(("paper", "spec"), _all_specs(), ids=lambda x: getattr(x, "key", x))
def test_agreeing_figures_hold(paper, spec):
    [claim] = evaluate([spec], AGREE[paper])
    assert claim.holds is True, (claim.ours, claim.reason)


@pytest.mark.parametrize(("paper", "spec"), _all_specs(), ids=lambda x: getattr(x, "key", x))
def test_contradicting_figures_do_not_hold(paper, spec):
    [claim] = evaluate([spec], CONTRADICT[paper])
    assert claim.holds is False, (claim.ours, claim.reason)


@pytest.mark.parametrize(("paper", "spec"), _all_specs(), ids=lambda x: getattr(x, "key", x))
def test_every_claim_has_a_source_a_criterion_and_the_papers_figures(paper, spec):
    assert spec.source and spec.criterion and spec.paper
    assert spec.key.startswith(paper)
    assert spec.ours_only == spec.key.endswith(".x") or spec.source.startswith("ours")


def test_missing_data_leave_every_claim_undecided_and_the_tally_fixed():
    for paper in papers.PAPERS:
        claims = evaluate(specs_for(paper), {})
        assert all(c.holds is None and c.reason for c in claims)
        assert any(c.reason.startswith("missing data") for c in claims)
        counts = tally(claims)
        assert sum(counts.values()) == sum(1 for s in specs_for(paper) if not s.ours_only)
        assert counts["undecided"] == sum(counts.values())


def test_stand_ins_that_remove_the_papers_mechanism_are_undecided():
    by_key = {s.key: s for s in specs_for("003")}
    data = _003(kernel=False, device=False)
    for key in ("003.2", "003.3", "003.4", "003.6", "003.8"):
        [claim] = evaluate([by_key[key]], data)
        assert claim.holds is None and claim.reason, key
    [memory] = evaluate([s for s in specs_for("004") if s.key == "004.7"], _004(fixed=True))
    assert memory.holds is None and "by construction" in memory.reason
    [cryptofs] = evaluate([s for s in specs_for("002") if s.key == "002.4"], _002())
    assert cryptofs.holds is None and "rclone-crypt" in cryptofs.ours


def test_a_difference_within_the_noise_decides_nothing():
    """003's RSA step of 238 vs 245 per CPU-second (the run the old criterion passed) neither
    holds nor is hidden: with 4096 clearly slower and 1024 ≈ 2048 it is undecided at 5% noise
    and fails when 1024 is clearly the dearer."""
    spec = next(s for s in specs_for("003") if s.key == "003.1")
    near = {"noise": 0.05, "per_cpu_soft": {1024: 240.0, 2048: 245.0, 4096: 130.0}}
    assert evaluate([spec], near)[0].holds is None
    dearer = {"noise": 0.01, "per_cpu_soft": {1024: 238.0, 2048: 245.0, 4096: 130.0}}
    assert evaluate([spec], dearer)[0].holds is False


def test_000_per_value_claims_need_each_librarys_own_kdf():
    """The thesis's variants ran PBKDF2 with SHA-512 (libgcrypt), SHA-1 (OpenSSL) and SHA-256
    (Botan); per-value costs measured with one KDF for all are another workload: undecided,
    whichever way the figures point. The claims that do not rest on PBKDF2 are unaffected."""
    one_kdf = dict.fromkeys(LIBS000, "pbkdf2-sha512")
    for data in (_000(), CONTRADICT["000"]):
        for spec in specs_for("000"):
            [claim] = evaluate([spec], data | {"compat_kdf": one_kdf})
            if spec.key in ("000.1", "000.2"):
                assert claim.holds is None, spec.key
                assert "openssl pbkdf2-sha512" in claim.reason, claim.reason
                assert "openssl pbkdf2-sha1" in claim.reason, claim.reason
            else:
                assert claim.holds is evaluate([spec], data)[0].holds, spec.key


def test_000_heap_order_needs_a_gap_of_half_the_thesiss_six_kib():
    """Table 4.2's plugin heaps differ by 6.0 KiB; ours is a whole process's peak, so a gap under
    half of that tells no order (a full run measured 32 bytes in 1.7 MiB): undecided."""
    spec = next(s for s in specs_for("000") if s.key == "000.5")
    for heap, holds in (
        ((1_778_080, 1_778_048), None),
        ((1_778_080, 1_778_080 - 3_200), True),
        ((1_778_080 - 3_200, 1_778_080), False),
    ):
        [claim] = evaluate([spec], _000(heap=heap))
        assert claim.holds is holds, (heap, claim)
    assert "half the thesis's 6.0 KiB" in evaluate([spec], _000(heap=(100, 68)))[0].reason


def test_003_rsa_steps_must_exceed_the_handshake_runs_own_spread():
    """Five handshake runs per cell, as the thesis: a step smaller than their spread decides
    nothing, however quiet the machine's calibration says it is."""
    spec = next(s for s in specs_for("003") if s.key == "003.1")
    steps = {"noise": 0.05, "per_cpu_soft": {1024: 300.0, 2048: 240.0, 4096: 100.0}}
    [claim] = evaluate([spec], steps | {"handshake_runs": 5, "handshake_spread": 0.08})
    assert claim.holds is True and "median of 5 runs, runs' spread 8%" in claim.ours
    [claim] = evaluate([spec], steps | {"handshake_runs": 5, "handshake_spread": 0.4})
    assert claim.holds is None and "40%" in claim.reason


def test_the_papers_own_figures_pass_004s_criteria():
    """A criterion that fails on the paper's own figures is mis-formalised (the old 'ChaCha20 is
    best in both libraries' failed on Botan's AES-CBC 6.6 > Salsa20 4.16)."""
    paper = {("cryptopp", "aes-192-cbc"): 12.05, ("cryptopp", "aes-192-cfb"): 10.92,
             ("cryptopp", "chacha20"): 13.12, ("cryptopp", "salsa20"): 12.89,
             ("botan", "aes-192-cbc"): 6.6, ("botan", "aes-192-ctr"): 3.29,
             ("botan", "des-ede3-cbc"): 5.18, ("botan", "salsa20"): 4.16,
             ("botan", "chacha20"): 3.93}  # fmt: skip
    for key in ("004.3", "004.2"):
        spec = next(s for s in specs_for("004") if s.key == key)
        data = {"noise": 0.01, "mib_s": paper | {("cryptopp", "des-ede3-cbc"): 5.8}}
        assert evaluate([spec], data)[0].holds is True, key


def test_a_run_is_judged_by_the_noise_it_had_and_start_up_decides_no_size_effect():
    spec = next(s for s in specs_for("004") if s.key == "004.1")
    quiet = _004()
    assert evaluate([spec], quiet)[0].holds is True
    loaded = quiet | {"run_spread": 0.9}  # Crypto++ ahead by less than the run's own spread
    [claim] = evaluate([spec], loaded)
    assert claim.holds is None and "90%" in claim.reason
    for key in ("004.4", "004.5"):
        size = next(s for s in specs_for("004") if s.key == key)
        [claim] = evaluate(
            [size], _004(agree=False) | {"startup_share": {"botan": 0.9, "cryptopp": 0.9}}
        )
        assert claim.holds is None and "start-up" in claim.reason, key


def test_003_efficiency_uses_the_busiest_process_like_the_theses_loaded_core():
    """Our CPU figure sums every process at both ends; the thesis reports its one loaded core.
    The claims' efficiency takes the busiest process, so 003.7 sees OpenVPN's own daemon."""
    from cryptobench.figures import Figure
    from cryptobench.scenarios.channel import model
    from cryptobench.scenarios.channel.reproduce import busiest_cpu, criteria_data

    def transfer(channel, name, mbs, cpu_s):
        key = {"part": "bulk", "channel": channel, "transfer": name, "accel": "off"}
        return [
            Figure(key, "throughput", "MB/s", (mbs,), extra={"wall_s": 2.0, "cpu_s": cpu_s}),
            Figure(key, "cpu", "%", (100.0 * sum(cpu_s.values()) / 2.0,), "lower"),
        ]

    figures = transfer("openvpn AES-256-CBC/SHA-256", "ftp", 40.0, {"openvpn": 1.6, "ftp": 0.4})
    figures += transfer(model.RAW, "scp aes256-cbc+hmac-sha2-256", 90.0, {"sshd": 1.0, "scp": 0.9})
    key = {"part": "bulk", "channel": model.RAW, "transfer": "scp aes256-cbc+hmac-sha2-256"}
    assert busiest_cpu(figures, key) == pytest.approx(50.0)
    bulk = criteria_data(figures, 0.05)["bulk"]
    assert bulk["openvpn"]["off"] == [40.0, pytest.approx(80.0)]
    assert bulk["scp"]["off"] == [90.0, pytest.approx(50.0)]


def test_openssl3_handshake_drop_decides_without_aws_lc_and_is_undecided_only_at_25_percent():
    """The 1.1.1 -> 3.0 drop (openssl3.4) is judged on the two OpenSSLs alone; AWS-LC's lead
    (openssl3.5) stays undecided until an aws-lc provider is measured."""
    drop, lead = (next(s for s in specs_for("openssl3") if s.key == k)
                  for k in ("openssl3.4", "openssl3.5"))  # fmt: skip
    published = {"1.1.1": 1773.9, "3.0": 1333.5}
    [held] = evaluate([drop], {"noise": 0.05, "handshakes_s": published})
    assert held.holds is True and "0.75" in held.ours
    same = {"1.1.1": 1500.0, "3.0": 1480.0}
    [quiet] = evaluate([drop], {"noise": 0.05, "handshakes_s": same})
    [loud] = evaluate([drop], {"noise": 0.3, "handshakes_s": same})
    assert quiet.holds is False and loud.holds is None and "30%" in loud.reason
    [missing] = evaluate([lead], {"noise": 0.05, "handshakes_s": published})
    assert missing.holds is None and missing.reason == "missing data: aws-lc"


def test_openssl3_small_messages_undecided_only_when_the_noise_hides_a_55_percent_drop():
    spec = next(s for s in specs_for("openssl3") if s.key == "openssl3.1")
    same = {"1.1.1": {16: 70.0, 16384: 530.0}, "3.0": {16: 69.0, 16384: 529.0}}
    [quiet] = evaluate([spec], {"noise": 0.05, "sha256_mb_s": same})
    [loud] = evaluate([spec], {"noise": 0.6, "sha256_mb_s": same})
    assert quiet.holds is False  # no drop where a 55% one would show
    assert loud.holds is None and "noise" in loud.reason


def test_003_five_handshake_runs_give_the_median_and_the_runs_spread():
    """reproduce 003 runs each handshake cell five times (the thesis's §4.3); the store pools them
    into one figure, and the RSA claim gets their median and their spread (relative IQR)."""
    from cryptobench.figures import Figure, pool
    from cryptobench.scenarios.channel.figures import handshake_rows
    from cryptobench.scenarios.channel.reproduce import criteria_data

    runs = {1024: [100.0, 120.0, 125.0, 130.0, 150.0], 2048: [90, 100, 105, 110, 120],
            4096: [40, 45, 48, 50, 60]}  # fmt: skip
    figures = []
    for bits, values in runs.items():
        key = {"part": "handshake", "channel": "openvpn", "cert": f"rsa-{bits}",
               "dh": "ffdhe2048", "accel": "off"}  # fmt: skip
        for v in values:  # one figure per run, as handshake.measure stores them
            figures += [Figure(key, "handshakes/min", "1/min", [v * 2]),
                        Figure(key, "handshakes per server CPU-s", "1/s", [v])]  # fmt: skip
    data = criteria_data(pool(figures), 0.05)
    assert data["per_cpu_soft"] == {1024: 125.0, 2048: 105.0, 4096: 48.0}
    assert data["handshake_runs"] == 5
    # relative IQRs 0.24, 0.19, 0.26 (statistics.quantiles): their median
    assert data["handshake_spread"] == pytest.approx(0.24)
    row = next(r for r in handshake_rows(pool(figures)) if r[0] == "rsa-1024")
    assert row[-2:] == ["5", "100.0-150.0"]
