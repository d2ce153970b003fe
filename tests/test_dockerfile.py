"""Interpreting Dockerfiles, cached tool environments, and laying task files out in bubblewrap."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from harnesspro.core.records import Task
from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks import toolenv
from harnesspro.tasks.dockerfile import logical_lines, parse_dockerfile
from harnesspro.tasks.environment import Copy, Environment, NeedsContainer
from harnesspro.tasks.layout import lay_out
from harnesspro.tasks.loader import TaskError, load_task
from harnesspro.tasks.run_commands import effective_requirements
from harnesspro.tasks.toolenv import ToolEnv, ToolEnvError, ensure_toolenv, env_key, normalise

TERMIGEN_STYLE = """\
FROM ghcr.io/laude-institute/t-bench/ubuntu-24-04:20250624

ENV DEBIAN_FRONTEND=noninteractive

# Install python3-pip and create python symlink
RUN apt-get update && \\
    apt-get install -y python3-pip && \\
    ln -s /usr/bin/python3 /usr/bin/python && \\
    rm -rf /var/lib/apt/lists/*

RUN pip3 install --no-cache-dir --break-system-packages pytest==8.4.1 pandas==2.3.2
RUN pip3 install --no-cache-dir --break-system-packages \\
    pandas \\
    # a comment inside a continued instruction
    numpy
RUN mkdir -p /workspace/data /output
COPY data/map.txt /workspace/data/map.txt
COPY run.sh /usr/local/bin/run.sh
RUN chmod +x /usr/local/bin/run.sh
WORKDIR /workspace
ENV TEST_DIR=/tests MODE="fast mode"
"""


def env_of(text: str) -> Environment:
    result = parse_dockerfile(text)
    assert isinstance(result, Environment), result
    return result


def needs(text: str) -> NeedsContainer:
    result = parse_dockerfile(text)
    assert isinstance(result, NeedsContainer), result
    return result


def test_termigen_style_dockerfile_is_interpreted() -> None:
    env = env_of(TERMIGEN_STYLE)
    assert env.base_image.startswith("ghcr.io/laude-institute/t-bench/ubuntu-24-04")
    assert env.workdir == "/workspace"
    assert dict(env.env) == {
        "DEBIAN_FRONTEND": "noninteractive",
        "TEST_DIR": "/tests",
        "MODE": "fast mode",
    }
    assert env.copies == (
        Copy("data/map.txt", "/workspace/data/map.txt"),
        Copy("run.sh", "/usr/local/bin/run.sh"),
    )
    assert env.mkdirs == ("/workspace/data", "/output")
    assert env.chmods == (("+x", "/usr/local/bin/run.sh"),)
    # The bare `pandas` after the pinned one is a no-op for pip; numpy is new.
    assert env.requirements == ("pytest==8.4.1", "pandas==2.3.2", "numpy")


def test_logical_lines_join_continuations_and_drop_comments() -> None:
    lines = logical_lines("RUN a && \\\n  # note\n  b\n# top comment\nWORKDIR /x\n")
    assert lines == ["RUN a && b", "WORKDIR /x"]


@pytest.mark.parametrize(
    ("text", "offending"),
    [
        ("FROM node:20\n", "FROM node:20"),
        ("FROM python:3.11\nRUN apt-get upgrade -y\n", "RUN apt-get upgrade -y"),
        ("FROM python:3.11\nCOPY --from=build /a /b\n", "COPY --from=build /a /b"),
        ("FROM python:3.11\nADD https://x/y.txt /y\n", "ADD https://x/y.txt /y"),
        ("FROM python:3.11\nUSER agent\n", "USER agent"),
        ("FROM python:3.11\nRUN pip install -e .\n", "RUN pip install -e ."),
        ("FROM python:3.11\nRUN pip install --index-url http://x y\n", None),
        ("FROM python:3.11 AS a\nFROM python:3.11\n", "FROM python:3.11"),
        ("FROM python:3.11\nVOLUME /data\n", "VOLUME /data"),
        ("FROM python:3.11\nCOPY x /proc/x\n", "COPY x /proc/x"),
        ('FROM python:3.11\nENV A="unclosed\n', 'ENV A="unclosed'),
        ('FROM python:3.11\nCOPY ["a", \n', 'COPY ["a",'),
    ],
)
def test_anything_else_needs_a_container_and_names_the_instruction(
    text: str, offending: str | None
) -> None:
    result = needs(text)
    assert result.reason
    if offending:
        assert result.instruction == offending


def test_no_from_needs_a_container() -> None:
    assert needs("WORKDIR /x\n").reason == "no FROM instruction"


def test_relative_paths_env_substitution_and_legacy_env() -> None:
    env = env_of(
        "FROM python:3.11-slim\nARG ROOT=/srv\nENV APP $ROOT/app\nWORKDIR ${APP}\n"
        "WORKDIR sub\nCOPY a.txt b/\nRUN mkdir -m 755 -p out && true\n"
        "RUN python3 -m pip install -q 'requests>=2'\nCMD [\"python\"]\n"
    )
    assert env.workdir == "/srv/app/sub"
    assert dict(env.env) == {"APP": "/srv/app"}
    assert env.copies == (Copy("a.txt", "/srv/app/sub/b/"),)
    assert env.mkdirs == ("/srv/app/sub/out",)
    assert env.requirements == ("requests>=2",)


def test_effective_requirements_drop_bare_duplicates_only() -> None:
    assert effective_requirements(["scipy", "scipy==1.16.1", "numpy", "numpy"]) == (
        "scipy==1.16.1",
        "numpy",
    )


def test_toolenv_key_is_order_and_spelling_insensitive() -> None:
    assert normalise(["PyYAML", "numpy ==2.0"]) == ("numpy==2.0", "pyyaml")
    assert env_key(["b", "a"]) == env_key(["a", "b"]) != env_key(["a"])


def test_toolenv_build_is_atomic_and_shared(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    builds: list[Path] = []
    build = toolenv._build

    def counted(reqs: tuple[str, ...], final: Path) -> None:
        builds.append(final)
        build(reqs, final)

    monkeypatch.setattr(toolenv, "_build", counted)
    envs: list[ToolEnv] = []
    threads = [
        threading.Thread(target=lambda: envs.append(ensure_toolenv([], tmp_path))) for _ in range(3)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(envs) == 3 and len({e.root for e in envs}) == 1
    assert len(builds) == 1  # the other two waited for it instead of building their own
    # Only the published environment remains: no temporary build folders.
    assert [p.name for p in (tmp_path / "toolenvs").iterdir()] == [env_key([])]


def test_failed_toolenv_build_leaves_nothing(tmp_path: Path) -> None:
    # An invalid version specifier fails inside pip before any download.
    with pytest.raises(ToolEnvError, match="pytest==not-a-version"):
        ensure_toolenv(["pytest==not-a-version"], tmp_path)
    assert list((tmp_path / "toolenvs").iterdir()) == []


def make_task(root: Path, dockerfile: str, files: dict[str, str]) -> Task:
    folder = root / "task"
    (folder / "tests").mkdir(parents=True)
    (folder / "task.toml").write_text('version = "1.0"\n')
    (folder / "instruction.md").write_text("Do the thing.\n")
    (folder / "tests" / "test.sh").write_text("#!/bin/bash\necho 0 > /logs/verifier/reward.txt\n")
    (folder / "environment").mkdir()
    (folder / "environment" / "Dockerfile").write_text(dockerfile)
    for rel, text in files.items():
        path = folder / "environment" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return load_task(folder)


def run_in_layout(tmp_path: Path, dockerfile: str, files: dict[str, str], script: str) -> str:
    task = make_task(tmp_path, dockerfile, files)
    layout = lay_out(task, env_of(dockerfile), tmp_path / "run", None)
    result = Bubblewrap().run(["bash", "-c", script], layout.mounts(), dict(layout.env), "/", 30)
    layout.tidy()
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_files_land_at_container_paths_including_read_only_system_folders(
    tmp_path: Path,
) -> None:
    dockerfile = (
        "FROM ubuntu:24.04\nRUN mkdir -p /etc/myapp/conf.d /var/log/app\n"
        "COPY conf/ /etc/myapp/conf.d/\nCOPY tool.sh /usr/local/bin/tool.sh\n"
        "RUN chmod +x /usr/local/bin/tool.sh\nCOPY note.txt /tmp\nCOPY note.txt /root/\n"
        "WORKDIR /app\nENV GREETING=hello\n"
    )
    files = {"conf/a.yaml": "a: 1\n", "tool.sh": "#!/bin/sh\necho tool-ran\n", "note.txt": "n\n"}
    out = run_in_layout(
        tmp_path,
        dockerfile,
        files,
        "cat /etc/myapp/conf.d/a.yaml; tool.sh; cat /tmp/note.txt /root/note.txt; "
        "test -f /etc/passwd && echo system-intact; echo $GREETING $HOME; "
        "echo made > /app/out.txt; echo log > /var/log/app/x.log; test -d /tests || echo no-tests",
    )
    assert out.split("\n")[:7] == [
        "a: 1",
        "tool-ran",
        "n",
        "n",
        "system-intact",
        "hello /root",
        "no-tests",
    ]
    # Writes land in the staged file system, which is the task's working state.
    assert (tmp_path / "run" / "fs" / "app" / "out.txt").read_text() == "made\n"
    assert (tmp_path / "run" / "fs" / "var" / "log" / "app" / "x.log").is_file()


def test_read_only_sources_are_writable_once_staged(tmp_path: Path) -> None:
    task = make_task(tmp_path, "FROM python:3.11\nCOPY data /workspace/data\n", {"data/x": "1"})
    for path in (task.path / "environment" / "data", task.path / "environment" / "data" / "x"):
        path.chmod(0o555 if path.is_dir() else 0o444)
    layout = lay_out(
        task, env_of("FROM python:3.11\nCOPY data /workspace/data\n"), tmp_path / "r", None
    )
    script = "echo 2 > /workspace/data/x && touch /workspace/data/y && cat /workspace/data/x"
    result = Bubblewrap().run(["bash", "-c", script], layout.mounts(), {}, "/workspace", 30)
    assert result.stdout == "2\n", result.stderr


def test_missing_copy_source_is_a_task_error(tmp_path: Path) -> None:
    dockerfile = "FROM python:3.11\nCOPY absent.txt /workspace/\n"
    task = make_task(tmp_path, dockerfile, {})
    with pytest.raises(TaskError, match="absent.txt"):
        lay_out(task, env_of(dockerfile), tmp_path / "run", None)
