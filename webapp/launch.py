"""``make run``: start the app, say where it is once it answers, and how to stop it.

Streamlit prints its own "URL:" lines as it starts; a person waiting on a first start (the app
loads its modules, then the embedding model on first use) also needs to know when the page is
ready, on which address, and that Ctrl+C in this terminal stops it. The port is chosen here
(8501, or the next free one) so the address said is the one the app listens on.

Run it as ``python -m webapp.launch`` from the project folder (the Makefile does).
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Callable, Sequence, TextIO

FIRST_PORT = 8501
START_TIMEOUT = 300.0  # seconds: a first start on a slow machine imports a lot
PROJECT = Path(__file__).resolve().parents[1]


def free_port(first: int = FIRST_PORT, tries: int = 50) -> int:
    """``first``, or the next port after it that nothing on this machine listens on."""
    for port in range(first, first + tries):
        with socket.socket() as sock:
            # as the app's server binds: a port left in TIME_WAIT by an app just stopped is free
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise SystemExit(f"Ports {first}-{first + tries - 1} are all in use: stop another app "
                     "(or another `make run`) and try again.")


def streamlit_command(port: int) -> list[str]:
    return [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port)]


def is_up(url: str) -> bool:
    """Whether the app at ``url`` answers its health check."""
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as reply:
            return reply.status == 200
    except (urllib.error.URLError, OSError):
        return False


def wait_until_up(url: str, app: subprocess.Popen, *, timeout: float = START_TIMEOUT,
                  check: Callable[[str], bool] = is_up) -> bool:
    """Poll until the app answers (True), or it exits or ``timeout`` passes (False)."""
    ends = time.monotonic() + timeout
    while time.monotonic() < ends and app.poll() is None:
        if check(url):
            return True
        time.sleep(0.25)
    return False


def run(command: Sequence[str], url: str, out: TextIO = sys.stdout) -> int:
    """Start ``command`` (the app, listening at ``url``), tell ``out`` where and how to stop it,
    and wait until it ends; its exit code."""
    say = _sayer(out)
    say(f"==> Starting the app at {url} (the first start takes up to a minute) …")
    app = subprocess.Popen(list(command), cwd=PROJECT)
    try:
        if wait_until_up(url, app):
            say(f"==> ragcore is running: open {url} in your browser.")
            say("==> To stop it, press Ctrl+C in this terminal.")
        code = app.wait()
    except KeyboardInterrupt:  # Ctrl+C reaches the app too; give it time to close cleanly
        say("==> Stopping the app …")
        code = _stop(app)
    if code not in (0, -2, 130):
        say(f"==> The app stopped with exit code {code}: the messages above say why.")
    else:
        say("==> The app has stopped. Start it again with `make run`.")
    return code


def _stop(app: subprocess.Popen) -> int:
    try:
        return app.wait(timeout=15)
    except subprocess.TimeoutExpired:
        app.terminate()
        return app.wait(timeout=15)


def _sayer(out: TextIO) -> Callable[[str], None]:
    def say(line: str) -> None:
        print(line, file=out, flush=True)

    return say


def main() -> int:
    port = free_port()
    return run(streamlit_command(port), f"http://localhost:{port}")


if __name__ == "__main__":
    sys.exit(main())
