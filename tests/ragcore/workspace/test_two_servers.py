"""Two app servers on one workspace (issue 22): the shared state in the test Postgres
(``RAGCORE_DATABASE_URL``), the workspace folder shared.

Server A is another Python process doing what an app server's pages do through the library
(``Team.open``, ``runner_for``, ``permitted.start_ingest``, ``Team.share``); server B is this test
process doing the same on its side. A job Ana starts on A (a slowed embedder makes it run for
many seconds) is invisible and uncancellable to Bob on B; Ana shares the index on A, and on B
Bob sees the job at once and cancels it; A's job stops with its saved batches kept, and its
journal row says "cancelled" on both servers. The browser version (two Streamlit servers) is in
``test_two_servers_browser.py``.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ragcore.errors import AccessDenied
from ragcore.workspace.jobs.runner import runner_for
from ragcore.workspace.team.passwords import fast_hasher
from ragcore.workspace.permitted import cancel_job, indexes_for, jobs_for
from ragcore.workspace.team.team import Team
from ragcore.workspace.workspace import Workspace
from support.team_backends import pg_team_url  # noqa: F401 - the fixture: a fresh database

WAIT = 120  # seconds; only reached when something is wrong

SERVER_A = textwrap.dedent("""
    import sys, time
    from ragcore.embeddings.fake import FakeEmbedder
    from ragcore.workspace.ingest.commits import Batching
    from ragcore.workspace.jobs.runner import JobRunner
    from ragcore.workspace.team.passwords import fast_hasher
    from ragcore.workspace.permitted import start_ingest
    from ragcore.workspace.names import index_uid
    from ragcore.workspace.team.team import Team
    from ragcore.workspace.workspace import Workspace

    class SlowEmbedder(FakeEmbedder):
        def embed_batch(self, texts):
            time.sleep(0.02 * len(texts))  # ~3,000 chunks: a minute
            return super().embed_batch(texts)

    root, source = sys.argv[1], sys.argv[2]
    team = Team.open(root, hasher=fast_hasher())
    ana, bob = team.accounts.require("ana"), team.accounts.require("bob")
    workspace = Workspace(root, embedder=SlowEmbedder())
    runner = JobRunner(root, batching=Batching(chunks=100, seconds=0.5))
    job = start_ingest(team, ana, runner, workspace, "big", [source])
    print(job.id, flush=True)
    sys.stdin.readline()  # server B has looked: now Ana shares the index
    team.share(ana, index_uid(workspace, "big"), bob, "write")
    print("shared", flush=True)
    print(runner.wait(job.id, timeout=300).state, flush=True)
""")


def _big_text(path: Path) -> Path:
    path.write_text("\n\n".join(
        f"Paragraph {i} tells about the river, the mill and the miller's {i} sacks of grain, "
        f"the winter of {1800 + i % 200} and the owls in the barn." for i in range(12000)))
    return path


def _read_line(process: subprocess.Popen) -> str:
    line = process.stdout.readline().strip()
    assert line, f"server A stopped: {process.communicate(timeout=WAIT)[1][-3000:]}"
    return line


def _embedding(runner, team, user, job_id: str, root: Path) -> None:
    """Wait until server A's job embeds, a batch saved (seen from this server, by ``user``)."""
    deadline = time.monotonic() + WAIT
    while True:
        listed = {j.id: j for j in jobs_for(team, user, runner.jobs())}
        saved = (root / "indexes" / "big" / "manifest.json").exists()
        if job_id in listed and listed[job_id].state == "embedding" and saved:
            return
        assert time.monotonic() < deadline, f"the job never embedded: {listed.get(job_id)}"
        time.sleep(0.1)


@pytest.fixture
def team_root(tmp_path, pg_team_url):  # noqa: F811
    root = tmp_path / "shared-workspace"
    with Team.open(root, hasher=fast_hasher()) as team:
        admin = team.accounts.set_up("root", "root password")
        for name in ("ana", "bob"):
            team.accounts.create(admin, name, f"{name} password")
    return root


def test_a_job_and_a_share_made_on_one_server_apply_on_the_other_at_once(tmp_path, team_root):
    server_a = subprocess.Popen(
        [sys.executable, "-c", SERVER_A, str(team_root), str(_big_text(tmp_path / "big.txt"))],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    team = Team.open(team_root, hasher=fast_hasher())  # server B's
    try:
        job_id = _read_line(server_a)
        runner = runner_for(team_root)
        ana, bob = team.accounts.require("ana"), team.accounts.require("bob")
        _embedding(runner, team, ana, job_id, team_root)  # Ana sees her job on server B
        workspace = Workspace(team_root)
        assert jobs_for(team, bob, runner.jobs()) == [] and indexes_for(team, bob, workspace) == []
        with pytest.raises(AccessDenied):
            cancel_job(team, bob, runner, job_id)

        server_a.stdin.write("share\n")
        server_a.stdin.flush()
        assert _read_line(server_a) == "shared"
        assert indexes_for(team, bob, workspace) == ["big"]  # at once: no cache, no restart
        [seen] = jobs_for(team, bob, runner.jobs())
        assert seen.id == job_id and seen.active and seen.title() == "Index big.txt into “big”"
        assert cancel_job(team, bob, runner, job_id)
        listed = {j.id: j for j in jobs_for(team, bob, runner.jobs())}
        assert listed[job_id].cancel_requested  # shown as stopping meanwhile

        assert _read_line(server_a) == "cancelled"
        server_a.wait(timeout=WAIT)
    finally:
        if server_a.poll() is None:
            server_a.kill()
        team.close()
    finished = runner.get(job_id)
    assert finished.state == "cancelled" and 0 < finished.report["chunks"] < finished.work_total
    assert not runner.journal.cancel_requested(job_id)  # the request is cleared
    assert not (team_root / "jobs").exists()  # the journal is the database's, not the folder's
