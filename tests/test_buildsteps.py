"""Shell RUN steps of a Dockerfile: parsed into build steps (package installs stay data), run
once per task in bubblewrap without network, and their files seen by agent and verifier."""

from __future__ import annotations

from pathlib import Path

import pytest

from harnesspro.sandbox.bubblewrap import Bubblewrap
from harnesspro.tasks.buildsteps import BuildError, ensure_build
from harnesspro.tasks.dockerfile import parse_dockerfile
from harnesspro.tasks.environment import BuildStep, Environment
from harnesspro.tasks.run_commands import chain_segments
from harnesspro.tasks.runtime import open_task, unrunnable_reason
from tests.test_dockerfile import make_task


def env_of(text: str) -> Environment:
    result = parse_dockerfile(text)
    assert isinstance(result, Environment), result
    return result


def test_chain_segments_split_only_at_top_level_separators() -> None:
    script = """cd /x && echo 'a && b; c' ; python3 -c "print(1); print(2)" && (d && e)"""
    assert chain_segments(script) == [
        ("cd /x", "&&"),
        ("echo 'a && b; c'", ";"),
        ('python3 -c "print(1); print(2)"', "&&"),
        ("(d && e)", ""),
    ]


def test_an_unquoted_version_is_a_redirect_as_in_the_shell() -> None:
    # `pip install a>=1.0 b` in sh is `pip install a b` with stdout written to a file `=1.0`.
    env = env_of("FROM python:3.11\nRUN pip install --no-cache-dir scikit-learn>=1.0 numpy\n")
    assert env.requirements == ("scikit-learn", "numpy")
    assert env.build_steps == ()


def test_installs_stay_data_and_the_rest_is_one_step_per_run_in_its_workdir() -> None:
    env = env_of(
        "FROM ubuntu:24.04\nARG LEVEL=3\nWORKDIR /srv/app\n"
        "RUN apt-get update && apt-get install -y jq && mkdir -p /srv/app/db && "
        "cd db && python3 -c \"open('x', 'w').write('1')\" ; pip install flask\n"
        "RUN chmod +x /srv/app/db/x\nRUN echo '{}' > /etc/app.json\n"
    )
    assert env.os_packages == ("jq",) and env.requirements == ("flask",)
    assert "/srv/app/db" in env.mkdirs and env.chmods == ()
    assert env.build_steps == (
        BuildStep(
            "cd db && python3 -c \"open('x', 'w').write('1')\"", "/srv/app", args=(("LEVEL", "3"),)
        ),
        BuildStep("chmod +x /srv/app/db/x", "/srv/app", args=(("LEVEL", "3"),)),
        BuildStep("echo '{}' > /etc/app.json", "/srv/app", args=(("LEVEL", "3"),)),
    )


def test_a_compound_command_stays_one_step_with_its_installs() -> None:
    run = "for f in a b; do mkdir -p /data/$f; done && pip install flask"
    env = env_of(f"FROM python:3.11\nRUN {run}\n")
    assert env.build_steps == (BuildStep(run, "/"),)
    assert env.requirements == () and env.mkdirs == ()


DOCKERFILE = """\
FROM ubuntu:24.04
ARG GREETING=hi
RUN mkdir -p /etc/newapp /data
COPY app.conf /etc/newapp/app.conf
WORKDIR /data
RUN python3 -c "import sqlite3; c = sqlite3.connect('db.sqlite'); \\
    c.execute('create table t (v)'); c.execute('insert into t values (42)'); c.commit()"
RUN echo "$GREETING $(cat /etc/newapp/app.conf)" > /etc/newapp/made.txt && \\
    echo fresh > /etc/other.conf && date +%s%N > stamp
"""


def test_build_steps_run_once_and_their_files_are_in_every_layout(tmp_path: Path) -> None:
    task = make_task(tmp_path, DOCKERFILE, {"app.conf": "conf-v1"})
    cache = tmp_path / "cache"
    layouts = [open_task(task, tmp_path / f"run{i}", cache) for i in range(2)]
    script = (
        "python3 -c \"import sqlite3; print(sqlite3.connect('/data/db.sqlite')"
        ".execute('select v from t').fetchone()[0])\"; cat /etc/newapp/made.txt /etc/other.conf"
    )
    for layout in layouts:
        result = Bubblewrap().run(
            ["bash", "-c", script], layout.mounts(), dict(layout.env), "/data", 30
        )
        layout.tidy()
        assert result.stdout.split("\n")[:3] == ["42", "hi conf-v1", "fresh"], result.stderr
    # The steps ran once: both layouts hold the same time stamp, copied from the one build.
    stamps = {(layout.host("/data/stamp")).read_text() for layout in layouts}
    assert len(stamps) == 1
    assert len(list((cache / "builds").iterdir())) == 1
    # A changed build context is a new build.
    (task.path / "environment" / "app.conf").write_text("conf-v2")
    layout = open_task(task, tmp_path / "run3", cache)
    assert layout.host("/etc/newapp/made.txt").read_text() == "hi conf-v2\n"
    assert len(list((cache / "builds").iterdir())) == 2


@pytest.mark.parametrize(
    ("step", "why"),
    [
        ("curl -fsS https://example.com/install.sh | sh", "curl"),
        ("echo x > /usr/local/bin/newtool", "Read-only file system"),
    ],
)
def test_a_failing_step_makes_the_task_unrunnable_with_one_sentence(
    tmp_path: Path, step: str, why: str
) -> None:
    task = make_task(tmp_path, f"FROM ubuntu:24.04\nRUN {step}\n", {})
    reason = unrunnable_reason(task, tmp_path / "cache")
    assert reason is not None and reason.startswith("task 'task' cannot run here: build step `")
    assert why in reason and reason.count("\n") == 0
    assert not (tmp_path / "cache" / "builds").exists() or not any(
        (tmp_path / "cache" / "builds").glob("[!.]*")
    )
    with pytest.raises(BuildError):
        ensure_build(task, env_of(f"FROM ubuntu:24.04\nRUN {step}\n"), None, None, tmp_path / "c2")
