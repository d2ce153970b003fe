"""OS packages a task's Dockerfile installs with apt-get, without a container.

A package the host has (its package database says it is installed, or an installed package
provides it) needs nothing: the sandbox binds the host system read-only. The missing ones come
from a cached layer built once per package set: `apt-get install --simulate` against the
host's database lists what a real install would add (the dependencies the host lacks
included), `apt-get download` fetches those .debs and `dpkg -x` unpacks them into
`<cache>/oslayers/<key>/root`, in a temporary sibling renamed into place. The sandbox binds
the layer read-only under `/.harnesspro/oslayers/<key>` (no task folder covers it, so the
verifier may use it), with its bin folders on PATH and its library folders on LD_LIBRARY_PATH.

What a layer cannot do: maintainer scripts do not run (no users, services or generated config),
and programs that look for data at absolute /usr/share or /etc paths do not see the layer's
copies. It serves command-line tools and libraries, not services.
"""

from __future__ import annotations

import functools
import hashlib
import platform
import re
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from harnesspro.sandbox.contract import Mount
from harnesspro.tasks.toolenv import RUNNER_ROOT, cache_root

APT_TIMEOUT_S = 900.0
BIN_DIRS = ("usr/local/bin", "usr/bin", "bin", "usr/sbin", "sbin")
_ARCH = f"{platform.machine()}-linux-gnu"
LIB_DIRS = (f"usr/lib/{_ARCH}", f"lib/{_ARCH}", "usr/lib", "lib")


class PackageError(RuntimeError):
    """apt could not provide the packages; the message names them and apt's reason."""


@dataclass(frozen=True)
class PackageLayer:
    """Unpacked packages the host lacks, exposed read-only in the sandbox."""

    root: Path
    packages: tuple[str, ...]
    """What the Dockerfile asked for and the host lacked."""
    unpacked: tuple[str, ...]
    """What was unpacked: those packages and the dependencies the host lacked."""

    @property
    def target(self) -> str:
        """Where the sandbox sees the layer."""
        return f"{RUNNER_ROOT}/oslayers/{self.root.parent.name}"

    def mounts(self) -> list[Mount]:
        return [Mount(self.root, self.target)]

    def bin_path(self) -> str:
        return ":".join(f"{self.target}/{d}" for d in BIN_DIRS if (self.root / d).is_dir())

    def lib_path(self) -> str:
        return ":".join(f"{self.target}/{d}" for d in LIB_DIRS if (self.root / d).is_dir())


def installed(packages: Sequence[str]) -> set[str]:
    """The packages the host's package database lists as installed, or that an installed
    package provides (nodesource's `nodejs` provides `npm`, as dpkg counts a dependency)."""
    if not packages or shutil.which("dpkg-query") is None:
        return set()
    return {p for p in packages if p in _host_packages()}


@functools.cache
def _host_packages() -> frozenset[str]:
    """Names of installed packages and of what they provide, read once per process."""
    query = ["dpkg-query", "-W", "-f", "${Package}\t${Status}\t${Provides}\n"]
    done = subprocess.run(query, capture_output=True, text=True, timeout=60)
    names: set[str] = set()
    for line in done.stdout.splitlines():
        package, status, provides = (line.split("\t") + ["", ""])[:3]
        if status.endswith(" ok installed"):  # `install` or `hold`
            names.add(package.split(":")[0])  # `libc6:amd64` is `libc6` to apt-get install
            names.update(p.split()[0] for p in provides.split(",") if p.strip())
    return frozenset(names)


def missing(packages: Sequence[str]) -> tuple[str, ...]:
    """The packages the host lacks, in the Dockerfile's order."""
    have = installed(packages)
    return tuple(p for p in dict.fromkeys(packages) if p not in have)


def layer_key(packages: Sequence[str]) -> str:
    """Cache key: the missing package set, the machine and the host's release."""
    release = Path("/etc/os-release").read_text() if Path("/etc/os-release").is_file() else ""
    text = "\n".join([platform.machine(), release, *sorted(packages)])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def ensure_layer(packages: Sequence[str], cache: Path | None = None) -> PackageLayer | None:
    """None when the host has every package, else the layer of the missing ones (built now
    if the cache lacks it; raises PackageError when apt cannot provide them)."""
    lacking = missing(packages)
    if not lacking:
        return None
    final = (cache or cache_root()) / "oslayers" / layer_key(lacking)
    if not (final / "packages.txt").is_file():
        final.parent.mkdir(parents=True, exist_ok=True)
        _build(lacking, final)
    unpacked = tuple((final / "packages.txt").read_text().split())
    return PackageLayer(final / "root", lacking, unpacked)


def plan(packages: Sequence[str]) -> list[str]:
    """`name=version` of every package a real install would add to this host."""
    if shutil.which("apt-get") is None:
        raise PackageError(f"OS packages {' '.join(packages)} are missing and there is no apt-get")
    argv = ["apt-get", "install", "--simulate", "--no-install-recommends", *packages]
    done = _apt(argv, None, packages)
    return [f"{m[1]}={m[2]}" for m in re.finditer(r"^Inst (\S+) \((\S+)", done, re.MULTILINE)]


def _build(packages: tuple[str, ...], final: Path) -> None:
    tmp = Path(tempfile.mkdtemp(prefix=f".{final.name}-", dir=final.parent))
    try:
        wanted = plan(packages)
        debs, root = tmp / "debs", tmp / "root"
        debs.mkdir()
        root.mkdir()
        _apt(["apt-get", "download", *wanted], debs, packages)
        for deb in sorted(debs.glob("*.deb")):
            _apt(["dpkg", "-x", str(deb), str(root)], None, packages)
        shutil.rmtree(debs)
        (tmp / "packages.txt").write_text("\n".join(wanted) + "\n")
        try:
            tmp.rename(final)
        except OSError:
            if not (final / "packages.txt").is_file():
                raise
            # A concurrent build of the same set won the race; its layer is equivalent.
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _apt(argv: list[str], cwd: Path | None, packages: Sequence[str]) -> str:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=APT_TIMEOUT_S, cwd=cwd)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise PackageError(f"{argv[0]} failed for {' '.join(packages)}: {exc}") from None
    if done.returncode != 0:
        errors = [line for line in done.stderr.splitlines() if line.startswith("E:")]
        last = (errors or done.stderr.strip().splitlines() or ["no output"])[0]
        raise PackageError(f"apt cannot provide {' '.join(packages)}: {last}")
    return done.stdout
