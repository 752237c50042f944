"""`make run`: the set-up says each step, the launcher says where the app is and how to stop it."""

from __future__ import annotations

import io
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from webapp.launch import free_port, run

REPO = Path(__file__).resolve().parents[2]
# A stand-in for the app: answers the health check on the port given, then exits.
FAKE_APP = textwrap.dedent("""
    import sys
    from http.server import BaseHTTPRequestHandler, HTTPServer

    class Health(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/_stcore/health" else 404)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", int(sys.argv[1])), Health)
    server.handle_request()
""")


def test_the_launcher_says_where_the_app_is_and_how_to_stop_it():
    port = free_port(20000)
    out = io.StringIO()
    code = run([sys.executable, "-c", FAKE_APP, str(port)], f"http://localhost:{port}", out)
    lines = out.getvalue().splitlines()
    assert code == 0
    assert lines == [
        f"==> Starting the app at http://localhost:{port} (the first start takes up to a "
        "minute) …",
        f"==> ragcore is running: open http://localhost:{port} in your browser.",
        "==> To stop it, press Ctrl+C in this terminal.",
        "==> The app has stopped. Start it again with `make run`.",
    ]


def test_an_app_that_fails_to_start_is_not_said_to_be_running():
    out = io.StringIO()
    code = run([sys.executable, "-c", "raise SystemExit(3)"], "http://localhost:9", out)
    assert code == 3
    said = out.getvalue()
    assert "is running" not in said and "stopped with exit code 3" in said


def test_a_port_in_use_is_skipped():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        taken = busy.getsockname()[1]
        assert free_port(taken) > taken


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_the_first_set_up_says_each_step_and_lets_pip_show_its_progress(tmp_path):
    venv = tmp_path / "venv"
    quiet = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    plan = subprocess.run(["make", "--no-print-directory", "-n", "run", f"VENV={venv}"],
                          cwd=REPO, text=True, capture_output=True, check=True, env=quiet).stdout
    for step in ("Creating", "Updating pip", "Installing CPU torch",
                 "Installing ragcore and its dependencies", "Set-up done"):
        assert f"==> {step}" in plan
    assert "--quiet" not in plan and " -q " not in plan
    assert plan.rstrip().endswith(f"{venv}/bin/python -m webapp.launch")
