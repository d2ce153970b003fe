"""apt-get steps of a Dockerfile: packages the host has need nothing; missing ones come from a
cached layer (apt-get download + dpkg -x) that really runs in the sandbox."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.checktask import validate_task
from harnesspro.tasks.dockerfile import parse_dockerfile
from harnesspro.tasks.environment import Environment
from harnesspro.tasks.loader import load_task
from harnesspro.tasks.ospackages import ensure_layer, missing
from harnesspro.tasks.verify import prepare
from tests.conftest import harbor_task

HAS_APT = shutil.which("apt-get") is not None and shutil.which("dpkg-query") is not None
HAS_LISTS = any(Path("/var/lib/apt/lists").glob("*Packages*"))
needs_apt = pytest.mark.skipif(
    not (HAS_APT and HAS_LISTS), reason="needs apt-get with package lists (Debian/Ubuntu)"
)


def dpkg_says_installed(package: str) -> bool:
    """An independent check: `dpkg -s` reports the status of an installed package."""
    done = subprocess.run(["dpkg", "-s", package], capture_output=True, text=True)
    return done.returncode == 0 and "Status: install ok installed" in done.stdout


def test_apt_steps_become_data_without_the_interpreters_own_packages() -> None:
    env = parse_dockerfile(
        "FROM ubuntu:22.04\nRUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get "
        "install -y --no-install-recommends python3-pip jq=1.6-2 curl && rm -rf "
        "/var/lib/apt/lists/*\nRUN apt install -y jq bc\n"
    )
    assert isinstance(env, Environment)
    assert env.os_packages == ("jq", "curl", "bc")


@needs_apt
def test_missing_agrees_with_dpkg() -> None:
    packages = ["bash", "coreutils", "nano", "samtools", "no-such-package-hp13"]
    expected = tuple(p for p in packages if not dpkg_says_installed(p))
    assert missing(packages) == expected
    assert "bash" not in expected and "no-such-package-hp13" in expected


def provided_names(status: Path = Path("/var/lib/dpkg/status")) -> set[str]:
    """Independently of dpkg-query: names the `Provides:` fields of installed packages list,
    read from dpkg's status file."""
    names: set[str] = set()
    for stanza in status.read_text(errors="replace").split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in stanza.splitlines() if ": " in line and line[0] != " "
        )
        if fields.get("Status", "").endswith(" ok installed") and "Provides" in fields:
            names.update(p.split()[0] for p in fields["Provides"].split(","))
    return names


@needs_apt
def test_a_name_an_installed_package_provides_is_not_missing() -> None:
    # A virtual name only: a real package of the same name would be installed or not itself.
    virtual = sorted(n for n in provided_names() if not dpkg_says_installed(n))
    if not virtual:
        pytest.skip("no installed package here provides another name")
    assert missing(virtual[:20]) == ()


@needs_apt
@pytest.mark.slow
def test_a_layer_provides_missing_tools_and_their_libraries(tmp_path: Path) -> None:
    # samtools links against libhts, which the host lacks too: the layer's libraries must be
    # found through LD_LIBRARY_PATH, not only its executables through PATH.
    wanted = [p for p in ("nano", "samtools") if not dpkg_says_installed(p)]
    if not wanted:
        pytest.skip("nano and samtools are both installed here: nothing for a layer to add")
    folder = harbor_task(
        tmp_path, f"FROM ubuntu:22.04\nWORKDIR /app\nRUN apt-get install -y {' '.join(wanted)}\n"
    )
    task = load_task(folder)
    layer = ensure_layer(wanted, tmp_path / "cache")
    assert layer is not None and layer.packages == tuple(wanted)
    env = parse_dockerfile((folder / "environment" / "Dockerfile").read_text())
    assert isinstance(env, Environment)
    layout = prepare(task, env, tmp_path / "run", tmp_path / "cache")
    script = " && ".join(f"{p} --version | head -n 1" for p in wanted)
    result = Bubblewrap().run(["bash", "-c", script], layout.mounts(), dict(layout.env), "/app", 60)
    assert result.exit_code == 0, result.stderr
    if "nano" in wanted:
        assert "GNU nano" in result.stdout
    if "samtools" in wanted:
        assert "samtools 1." in result.stdout
    # Built once: a second request reuses the cached layer.
    assert ensure_layer(wanted, tmp_path / "cache") == layer
    verdict = validate_task(task, Bubblewrap(), tmp_path / "cache")
    assert verdict.status == "unproven" and verdict.idle and verdict.idle.reward == 0.0


@needs_apt
def test_a_package_apt_cannot_provide_needs_a_container(tmp_path: Path) -> None:
    folder = harbor_task(tmp_path, "FROM ubuntu:22.04\nRUN apt-get install -y no-such-pkg-hp13\n")
    verdict = validate_task(load_task(folder), Bubblewrap(), tmp_path / "cache")
    assert verdict.status == "needs container"
    assert "no-such-pkg-hp13" in verdict.reason and "Unable to locate package" in verdict.reason
