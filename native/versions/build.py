#!/usr/bin/env python3
"""Builds other versions of the C libraries from the sources their registry packages carry.

`make versions` runs this (opt-in, never part of `make setup`/`make test`). For each requested
provider (`openssl@3.5`, ...) it

1. fetches the crate that carries the library's source from crates.io with cargo (a throwaway
   Cargo project pinned to that exact crate version, `cargo fetch`) and unpacks the `.crate` file
   from cargo's own cache: no download from anywhere but the registry cargo already uses;
2. builds the library (OpenSSL with its Configure; liboqs, AWS-LC and BoringSSL with CMake),
   static and position-independent, into
   ~/.cache/cryptobench/<lib>-<version>-<flags-hash>/ (CRYPTOBENCH_CACHE overrides the root),
   keyed by version and build flags, so later clones and CI reuse it; each build's wall time is
   measured and written to build.json beside it, with the flags and the compiler;
3. compiles the family's adapter again against it as a provider module `<name>.so`
   (native/versions/CMakeLists.txt), the library linked in with its symbols hidden.

Usage: build.py [--modules DIR] [--jobs N] [--list] PROVIDER...
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("CRYPTOBENCH_CACHE") or Path.home() / ".cache" / "cryptobench")

# The one table of versioned providers, shared with the coordinator (which lists those not built).
TABLE = json.loads((HERE / "versions.json").read_text())["providers"]

# OpenSSL's Configure options: static libraries only, position-independent (they are linked into
# a shared module), no tests, no engines loaded from disk. The same for every version.
OPENSSL_FLAGS = ["no-shared", "no-tests", "no-dso", "-fPIC"]


def log(msg: str) -> None:
    print(f"versions: {msg}", flush=True)


def lock_cache(name: str):
    """Waits for, then takes, the lock of one provider's build (released when the file returned
    is closed or the process ends). The cache is shared by every checkout on the machine: without
    the lock, two `make versions` of the same provider at once unpacked into the same directories
    and each began its build by removing the other's. One lock per provider, not one for the
    cache: builds of different providers share no directory (each its own crate source and
    build home), and one did not wait an hour for another's."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f".versions-{name}.lock"
    lock = path.open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        log(f"{name}: waiting for another checkout's build of it to end ({path})")
        fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


def write_record(record: Path, fields: dict) -> None:
    """build.json, the mark of a finished build that every checkout's native build looks for:
    written whole or not at all, so that no native build reads half of one."""
    partial = record.with_name(record.name + ".partial")
    partial.write_text(json.dumps(fields, indent=2) + "\n")
    partial.replace(record)


def record_build(record: Path, name: str, fields: dict, done: dict, seconds: float | None = None):
    """Writes a finished build's build.json: `fields` (provider-specific: library, version,
    crate, flags, adapter, libraries, …) with what every record carries (compiler, time, load,
    date), the time summed from `done`'s finished steps unless given, and logs it."""
    if seconds is None:
        seconds = sum(v for k, v in done.items() if "(interrupted)" not in k)
    common = {"compiler": compiler_id(), "seconds": round(seconds, 1)}
    if done:
        common["steps"] = done
    common["load"] = os.getloadavg()[0]
    common["built"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    write_record(record, {"provider": name, **fields, **common})
    steps = f" ({', '.join(f'{k} {v} s' for k, v in done.items())})" if done else ""
    log(f"{name}: built in {seconds:.0f} s{steps}")


def compiler_id() -> str:
    out = subprocess.run(["cc", "--version"], capture_output=True, text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else "cc"


def flags_hash(flags: list[str]) -> str:
    return hashlib.sha256(json.dumps([flags, compiler_id()]).encode()).hexdigest()[:10]


def cargo() -> str:
    found = shutil.which("cargo") or str(Path.home() / ".cargo" / "bin" / "cargo")
    if not Path(found).exists():
        sys.exit("versions: cargo not found: the sources come from crates.io through cargo")
    return found


def crate_source(crate: str, version: str) -> Path:
    """The crate's unpacked source, fetched with cargo once and kept under the cache."""
    dest = CACHE / "src" / f"{crate}-{version}"
    if (dest / "Cargo.toml").exists():
        return dest
    home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    # A crate cargo already has (aws-lc-sys: the Rust runner depends on it) needs no fetch.
    crates = sorted(home.glob(f"registry/cache/*/{crate}-{version}.crate"))
    project = CACHE / "src" / f".fetch-{crate}-{version}"
    if not crates:
        (project / "src").mkdir(parents=True, exist_ok=True)
        (project / "src" / "lib.rs").write_text("")
        (project / "Cargo.toml").write_text(
            f'[package]\nname = "fetch"\nversion = "0.0.0"\nedition = "2021"\n\n'
            f'[dependencies]\n{crate} = "={version}"\n'
        )
        log(f"fetching {crate} {version} from crates.io (cargo fetch)")
        subprocess.run([cargo(), "fetch", "-q"], cwd=project, check=True)
        crates = sorted(home.glob(f"registry/cache/*/{crate}-{version}.crate"))
    if not crates:
        sys.exit(f"versions: cargo fetched {crate} {version} but its .crate file is not in {home}")
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tarfile.open(crates[0]) as tar:
        tar.extractall(partial, filter="data")
    (partial / f"{crate}-{version}").rename(dest)
    shutil.rmtree(partial)
    shutil.rmtree(project, ignore_errors=True)
    return dest


def run_timed(cmd: list[str], cwd: Path, logfile: Path) -> float:
    start = time.monotonic()
    with logfile.open("a") as out:
        out.write(f"$ {' '.join(cmd)}\n")
        out.flush()
        done = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        sys.exit(f"versions: {' '.join(cmd[:2])} failed (exit {done.returncode}); see {logfile}")
    return time.monotonic() - start


def timed_steps(home: Path) -> dict:
    """The steps of an interrupted build already done and their seconds (timing.json): a build
    stopped half way resumes where make left it, and its time adds up."""
    try:
        return json.loads((home / "timing.json").read_text())
    except (OSError, ValueError):
        return {}


def resume_or_start(home: Path, workdir: Path) -> dict:
    """The steps an interrupted build already finished (timed_steps), or, when it never got past
    configure, a clean home with an empty work directory: there is nothing to resume."""
    done = timed_steps(home)
    if "configure" not in done:
        shutil.rmtree(home, ignore_errors=True)
        workdir.mkdir(parents=True)
    return done


def step(home: Path, done: dict, name: str, cmd: list[str], cwd: Path) -> None:
    if name in done:
        return
    seconds = run_timed(cmd, cwd, home / "build.log")
    done[name] = round(done.get(f"{name} (interrupted)", 0) + seconds, 1)
    (home / "timing.json").write_text(json.dumps(done, indent=2) + "\n")


# The static libraries of an OpenSSL build, in link order: libssl (the in-memory handshake,
# native/src/providers/openssl_tls.hpp) needs libcrypto after it.
OPENSSL_LIBRARIES = ["prefix/lib/libssl.a", "prefix/lib/libcrypto.a"]


def install_openssl(src: Path, build: Path, prefix: Path) -> None:
    """libcrypto.a, libssl.a and the headers (the source's and the generated ones): all the
    adapters need."""
    (prefix / "lib").mkdir(parents=True, exist_ok=True)
    for lib in ("libcrypto.a", "libssl.a"):
        shutil.copy2(build / lib, prefix / "lib" / lib)
    headers = prefix / "include" / "openssl"
    headers.mkdir(parents=True, exist_ok=True)
    for d in (src / "include" / "openssl", build / "include" / "openssl"):
        for h in d.glob("*.h"):
            shutil.copy2(h, headers / h.name)


def configure_openssl(src: Path, prefix: Path) -> list[str]:
    return ["perl", str(src / "Configure"), "linux-x86_64", f"--prefix={prefix}",
            f"--openssldir={prefix / 'ssl'}", "--libdir=lib", *OPENSSL_FLAGS]  # fmt: skip


def add_libssl(name: str, home: Path, jobs: int) -> None:
    """libssl.a for a build made before libssl was part of the recipe (libcrypto.a only). It is
    not a flag: the same Configure options and compiler, so the flags hash and the cached
    libcrypto.a stay, and only libssl's objects are compiled (in a build tree of their own,
    Configure and the generated headers first). Its time goes into build.json as `libssl`."""
    entry = TABLE[name]
    record = home / "build.json"
    data = json.loads(record.read_text())
    src = crate_source(entry["crate"], entry["crate_version"]) / entry["subdir"]
    build, prefix = home / "build-libssl", home / "prefix"
    done = {k: v for k, v in timed_steps(home).items() if k.startswith("libssl ")}
    if "libssl configure" not in done:
        shutil.rmtree(build, ignore_errors=True)
        build.mkdir(parents=True)
    log(f"{name}: adding libssl.a to the build in {home} (log: {home / 'build.log'})")
    all_steps = timed_steps(home)
    for step_name, cmd in (
        ("libssl configure", configure_openssl(src, prefix)),
        ("libssl generate", ["make", "build_generated"]),
        ("libssl make", ["make", f"-j{jobs}", "libssl.a"]),
    ):
        step(home, all_steps, step_name, cmd, build)
        done[step_name] = all_steps[step_name]
    shutil.copy2(build / "libssl.a", prefix / "lib" / "libssl.a")
    shutil.rmtree(build)
    seconds = round(sum(done.values()), 1)
    data["libraries"] = OPENSSL_LIBRARIES
    data["libssl"] = {
        "seconds": seconds,
        "steps": done,
        "jobs": jobs,
        "load": os.getloadavg()[0],
        "built": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    write_record(record, data)
    steps = ", ".join(f"{k} {v} s" for k, v in done.items())
    log(f"{name}: libssl.a added in {seconds:.0f} s ({steps})")


def build_openssl(name: str, jobs: int) -> Path:
    entry = TABLE[name]
    crate, crate_version, version = entry["crate"], entry["crate_version"], entry["version"]
    key = f"openssl-{version}-{flags_hash(OPENSSL_FLAGS)}"
    home = CACHE / key
    record = home / "build.json"
    if record.exists():
        cached = json.loads(record.read_text())
        log(f"{name}: cached in {home} (built in {cached['seconds']} s)")
        if "prefix/lib/libssl.a" not in cached["libraries"]:
            add_libssl(name, home, jobs)
        return home
    src = crate_source(crate, crate_version) / entry["subdir"]
    build, prefix = home / "build", home / "prefix"
    done = resume_or_start(home, build)
    log(f"{name}: building OpenSSL {version} in {home} (log: {home / 'build.log'})")
    step(home, done, "configure", configure_openssl(src, prefix), build)
    step(home, done, "generate", ["make", "build_generated"], build)
    step(home, done, "make", ["make", f"-j{jobs}", "libcrypto.a", "libssl.a"], build)
    install_openssl(src, build, prefix)
    shutil.rmtree(build)
    record_build(
        record,
        name,
        {
            "library": "openssl",
            "version": version,
            "crate": f"{crate} {crate_version}",
            "flags": OPENSSL_FLAGS,
            "adapter": entry["adapter"],
            "libraries": OPENSSL_LIBRARIES,
            "jobs": jobs,
        },
        done,
    )
    return home


# liboqs (from the oqs-sys crate): static, position-independent, ML-KEM and ML-DSA only
# (OQS_MINIMAL_BUILD), AVX2 code chosen at run time (OQS_DIST_BUILD, liboqs's default), and no
# OpenSSL (ML-KEM and ML-DSA use only liboqs's own SHA-3/SHAKE anyway; without it the library
# is self-contained). Its own benchmarks speed_kem and speed_sig are built too, for the fidelity
# check (mk/liboqs.mk).
LIBOQS_ALGS = [
    f"{kind}_{alg}"
    for kind, algs in (
        ("KEM", ("ml_kem_512", "ml_kem_768", "ml_kem_1024")),
        ("SIG", ("ml_dsa_44", "ml_dsa_65", "ml_dsa_87")),
    )
    for alg in algs
]
LIBOQS_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
    "-DOQS_DIST_BUILD=ON",
    "-DOQS_USE_OPENSSL=OFF",
    f"-DOQS_MINIMAL_BUILD={';'.join(LIBOQS_ALGS)}",
]


def build_liboqs(name: str, jobs: int) -> Path:
    entry = TABLE[name]
    crate, crate_version, version = entry["crate"], entry["crate_version"], entry["version"]
    home = CACHE / f"liboqs-{version}-{flags_hash(LIBOQS_FLAGS)}"
    record = home / "build.json"
    if record.exists():
        log(f"{name}: cached in {home} (built in {json.loads(record.read_text())['seconds']} s)")
        return home
    src = crate_source(crate, crate_version) / entry["subdir"]
    build, prefix = home / "build", home / "prefix"
    shutil.rmtree(home, ignore_errors=True)
    build.mkdir(parents=True)
    logfile = home / "build.log"
    log(f"{name}: building liboqs {version} in {home} (log: {logfile})")
    configure = ["cmake", "-S", str(src), "-B", str(build), f"-DCMAKE_INSTALL_PREFIX={prefix}"]
    seconds = run_timed([*configure, *LIBOQS_FLAGS], build, logfile)
    targets = ["--target", "oqs", "speed_kem", "speed_sig"]
    seconds += run_timed(["cmake", "--build", str(build), f"-j{jobs}", *targets], build, logfile)
    seconds += run_timed(["cmake", "--install", str(build)], build, logfile)
    (prefix / "bin").mkdir(exist_ok=True)
    for tool in ("speed_kem", "speed_sig"):
        shutil.copy2(build / "tests" / tool, prefix / "bin" / tool)
    shutil.rmtree(build)
    record_build(
        record,
        name,
        {
            "library": "liboqs",
            "version": version,
            "crate": f"{crate} {crate_version}",
            "flags": LIBOQS_FLAGS,
            "adapter": entry["adapter"],
            "libraries": ["prefix/lib/liboqs.a"],
            "jobs": jobs,
        },
        {},
        seconds,
    )
    return home


# AWS-LC (aws-lc-sys): a CMake build of libcrypto.a and libssl.a (the handshake,
# openssl_tls.hpp), static and position-independent, in Release (-O3), no tests and no tools, from
# the assembly and tables the crate ships pre-generated (no Go or Perl then), with the options
# aws-lc-sys's own CMake builder sets (builder/cmake_builder.rs: tests, the bssl tool and the
# CPU-jitter entropy source off, DISABLE_GO and DISABLE_PERL on, the source tree left as it is).
# BoringSSL (boring-sys, deps/boringssl: upstream's tree at the commit boring-sys pins, without
# the patches boring-sys applies) takes the common options alone: its assembly and source lists
# ship pre-generated (gen/), Go is only looked for (tests and FIPS need it), and libdecrepit (its
# CFB, RIPEMD-160, ...) is not built, as boring-sys does not.
CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release",
    "-DBUILD_SHARED_LIBS=OFF",
    "-DCMAKE_POSITION_INDEPENDENT_CODE=ON",
    "-DBUILD_TESTING=OFF",
]
SSL_LIBRARY_FLAGS = {
    "aws-lc": [
        *CMAKE_FLAGS,
        "-DBUILD_TOOL=OFF",
        "-DBUILD_LIBSSL=ON",
        "-DDISABLE_GO=ON",
        "-DDISABLE_PERL=ON",
        "-DDISABLE_CPU_JITTER_ENTROPY=ON",
        "-DENABLE_SOURCE_MODIFICATION=OFF",
    ],
    "boringssl": CMAKE_FLAGS,
}


def cache_home(library: str, entry: dict, flags: list[str]) -> Path:
    """~/.cache/cryptobench/<library>-<version>-<flags-hash>; a version that is not one word
    (BoringSSL's: it has no releases) is named by the crate that carries it."""
    version = entry["version"]
    if not version.replace(".", "").replace("-", "").isalnum():
        version = f"{entry['crate']}-{entry['crate_version']}"
    return CACHE / f"{library}-{version}-{flags_hash(flags)}"


def configure_cmake(src: Path, build: Path, flags: list[str]) -> list[str]:
    # The generator changes no output: Ninja where it is installed (make setup's apt-build has it).
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    return ["cmake", "-S", str(src), "-B", str(build), *generator, *flags]


def install_ssl_library(src: Path, build: Path, prefix: Path) -> None:
    """libcrypto.a, libssl.a and the headers (AWS-LC, like BoringSSL, keeps them all in
    include/openssl; nothing is generated into the build tree)."""
    (prefix / "lib").mkdir(parents=True, exist_ok=True)
    for lib in ("libcrypto.a", "libssl.a"):
        found = sorted(build.rglob(lib), key=lambda p: len(p.parts))
        if not found:
            sys.exit(f"versions: the build in {build} made no {lib}")
        shutil.copy2(found[0], prefix / "lib" / lib)
    headers = prefix / "include" / "openssl"
    shutil.copytree(src / "include" / "openssl", headers, dirs_exist_ok=True)


def build_ssl_library(name: str, jobs: int) -> Path:
    """A CMake build of an OpenSSL fork (the recipe names which: aws-lc, boringssl): configure,
    libcrypto, libssl, each a step of timing.json, so a stopped build resumes where ninja left
    it."""
    entry = TABLE[name]
    library, crate, crate_version = entry["recipe"], entry["crate"], entry["crate_version"]
    flags = SSL_LIBRARY_FLAGS[library]
    home = cache_home(library, entry, flags)
    record = home / "build.json"
    if record.exists():
        log(f"{name}: cached in {home} (built in {json.loads(record.read_text())['seconds']} s)")
        return home
    src = crate_source(crate, crate_version) / entry["subdir"]
    build, prefix = home / "build", home / "prefix"
    done = resume_or_start(home, build)
    log(f"{name}: building {library} {entry['version']} in {home} (log: {home / 'build.log'})")
    step(home, done, "configure", configure_cmake(src, build, flags), build)
    for target in ("crypto", "ssl"):
        cmd = ["cmake", "--build", str(build), f"-j{jobs}", "--target", target]
        step(home, done, f"lib{target}", cmd, build)
    install_ssl_library(src, build, prefix)
    shutil.rmtree(build)
    record_build(
        record,
        name,
        {
            "library": library,
            "version": entry["version"],
            "crate": f"{crate} {crate_version}",
            "flags": flags,
            "adapter": entry["adapter"],
            "libraries": OPENSSL_LIBRARIES,
            "jobs": jobs,
        },
        done,
    )
    return home


RECIPES = {
    "openssl": build_openssl,
    "liboqs": build_liboqs,
    "aws-lc": build_ssl_library,
    "boringssl": build_ssl_library,
}


# Botan 3 (from the botan-src crate, which carries the release tarball): static (always -fPIC in
# Botan's build), minimized to the modules botan.cpp uses, each with its x86 implementations,
# which a minimized build leaves out unless named (AES-NI, VAES, CLMUL GHASH, SHA-NI, AVX2/512
# ChaCha, ...), so it dispatches as a default build does. thread_utils is left out on purpose:
# with it Botan 3 computes Argon2's lanes in a thread pool, Botan 2.19 (Debian's, beside it) in
# the calling thread; without it both do the same work.
BOTAN_MODULES = [
    # block ciphers, modes, stream ciphers
    *("aes", "aes_ni", "aes_vperm", "aes_vaes", "des", "cbc", "cfb", "ofb", "xts"),
    *("xts_avx512_clmul", "ctr", "ctr_simd32", "ctr_avx2", "gcm", "ghash_cpu", "ghash_vperm"),
    *("ghash_avx512_clmul", "chacha", "chacha_simd32", "chacha_avx2", "chacha_avx512"),
    *("salsa20", "salsa20_simd32", "salsa20_avx2", "salsa20_avx512", "chacha20poly1305"),
    *("poly1305", "poly1305_avx2", "poly1305_avx512"),
    # hashes and MACs
    *("md5", "sha1", "sha1_simd", "sha1_avx2", "sha1_x86", "sha2_32", "sha2_32_simd"),
    *("sha2_32_avx2", "sha2_32_x86", "sha2_64", "sha2_64_avx2", "sha2_64_avx512", "sha2_64_x86"),
    *("sha3", "keccak_perm_bmi2", "keccak_perm_avx512", "blake2", "whirlpool", "whirlpool_avx2"),
    *("whirlpool_avx512", "rmd160", "hmac", "cmac"),
    # KDFs
    *("hkdf", "pbkdf2", "scrypt", "argon2", "argon2_simd64", "argon2_avx2", "argon2_avx512"),
    # public key, key and certificate decoding, randomness, memory
    *("rsa", "emsa_pkcs1", "emsa_pssr", "eme_oaep", "eme_pkcs1", "ecdsa", "ecdh", "rfc6979"),
    *("pcurves_secp256r1", "pcurves_secp384r1", "pcurves_secp521r1", "ed25519", "x25519", "dh"),
    *("x509", "pem", "system_rng", "cpuid", "os_utils", "locking_allocator"),
]
BOTAN_FLAGS = [
    "--build-targets=static",
    "--minimized-build",
    f"--enable-modules={','.join(BOTAN_MODULES)}",
    "--cc=gcc",
    "--cpu=x86_64",
    "--os=linux",
    "--without-documentation",
    "--no-install-python-module",
]
# Botan 3's headers need C++20: the adapter module is compiled so (native/cmake/versions.cmake).
BOTAN_CXX_STANDARD = 20


def botan_source(entry: dict) -> Path:
    """The release tarball inside the crate (vendor/Botan-X.Y.Z.tar.xz), checked against the
    SHA-256 the crate pins in release.toml and unpacked once beside it (entry["subdir"])."""
    crate = crate_source(entry["crate"], entry["crate_version"])
    dest = crate / entry["subdir"]
    if (dest / "configure.py").exists():
        return dest
    tarball = crate / entry["tarball"]
    pinned = next(
        line.split("=", 1)[1].strip().strip('"')
        for line in (crate / "release.toml").read_text().splitlines()
        if line.split("=", 1)[0].strip() == "sha256"
    )
    if hashlib.sha256(tarball.read_bytes()).hexdigest() != pinned:
        sys.exit(f"versions: {tarball} does not match the SHA-256 in release.toml ({pinned})")
    partial = dest.with_name(dest.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    with tarfile.open(tarball) as tar:
        tar.extractall(partial, filter="data")
    (partial / dest.name).rename(dest)
    shutil.rmtree(partial)
    return dest


def install_botan(tree: Path, prefix: Path) -> None:
    """libbotan-3.a and the headers under prefix/include/botan/ (the layout botan.cpp includes),
    the internal ones too: Botan 3 made the CPUID switch and the mlock pool internal
    (botan/internal/cpuid.h, locking_allocator.h), which the adapter's variants and code path
    use. The tree links its headers to the sources; the copies are the files."""
    (prefix / "lib").mkdir(parents=True, exist_ok=True)
    shutil.copy2(tree / "libbotan-3.a", prefix / "lib" / "libbotan-3.a")
    headers = tree / "build" / "include"
    for sub, dest in (("public/botan", "botan"), ("internal/botan/internal", "botan/internal")):
        (prefix / "include" / dest).mkdir(parents=True, exist_ok=True)
        for h in (headers / sub).glob("*.h"):
            shutil.copy2(h, prefix / "include" / dest / h.name)


def build_botan(name: str, jobs: int) -> Path:
    entry = TABLE[name]
    crate, crate_version, version = entry["crate"], entry["crate_version"], entry["version"]
    home = CACHE / f"botan-{version}-{flags_hash(BOTAN_FLAGS)}"
    record = home / "build.json"
    if record.exists():
        log(f"{name}: cached in {home} (built in {json.loads(record.read_text())['seconds']} s)")
        return home
    src = botan_source(entry)
    tree, prefix = home / "build", home / "prefix"
    done = resume_or_start(home, tree)
    log(f"{name}: building Botan {version} in {home} (log: {home / 'build.log'})")
    configure = ["python3", str(src / "configure.py"), f"--with-build-dir={tree}", *BOTAN_FLAGS]
    step(home, done, "configure", configure, tree)
    step(home, done, "make", ["make", "-f", str(tree / "Makefile"), f"-j{jobs}", "libs"], tree)
    install_botan(tree, prefix)
    shutil.rmtree(tree)
    record_build(
        record,
        name,
        {
            "library": "botan",
            "version": version,
            "crate": f"{crate} {crate_version}",
            "flags": BOTAN_FLAGS,
            "adapter": entry["adapter"],
            "libraries": ["prefix/lib/libbotan-3.a"],
            "cxx_standard": BOTAN_CXX_STANDARD,
            "jobs": jobs,
        },
        done,
    )
    return home


RECIPES["botan"] = build_botan


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("providers", nargs="*")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--list", action="store_true", help="print the versions this builds")
    args = parser.parse_args()
    if args.list or not args.providers:
        for name, e in TABLE.items():
            how = "" if e["recipe"] else "  (no build recipe yet)"
            print(f"{name:16} {e['version']:16} from {e['crate']} {e['crate_version']}{how}")
        return 0
    for name in args.providers:
        if name not in TABLE:
            sys.exit(f"versions: unknown provider {name!r}; known: {', '.join(TABLE)}")
        if not TABLE[name]["recipe"]:
            sys.exit(f"versions: {name}: no build recipe yet (docs/versions.md)")
    for name in args.providers:
        lock = lock_cache(name)
        RECIPES[TABLE[name]["recipe"]](name, args.jobs)
        lock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
