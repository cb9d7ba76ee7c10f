"""A throwaway PostgreSQL cluster in a temporary directory, for tests and benchmarks.

Debian's ``postgresql`` package installs its programs under /usr/lib/postgresql/VERSION/bin
(not on PATH) and starts a system cluster we never touch. ``Cluster.start()`` runs
``initdb`` into a fresh directory under /tmp and ``pg_ctl start`` with the unix socket in
that directory and TCP on a free loopback port; ``stop()`` stops it and removes the
directory. initdb refuses to run as root, so as root the directory is handed to the
``postgres`` user the package created and the programs run as that user (``runuser``).
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

USER = "flowctl"  # the cluster's superuser (trust authentication: nobody else can reach it)
DATABASE = "flowctl"


class NoPostgres(RuntimeError):
    """PostgreSQL's server programs are not installed."""


def bindir() -> Path:
    """Where initdb and pg_ctl are: the newest /usr/lib/postgresql/*/bin, else PATH."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    if initdb:
        return Path(initdb).resolve().parent
    raise NoPostgres("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb); "
                     "install Debian's postgresql package")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Cluster:
    settings: dict[str, str] = field(default_factory=dict)
    """Extra server settings (``-c name=value``), e.g. fsync=off for tests."""
    root: Path = field(init=False)
    port: int = field(init=False)

    @property
    def url(self) -> str:
        """A ``postgresql://`` URL over TCP on loopback."""
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{DATABASE}"

    @property
    def socket_url(self) -> str:
        """The same database over the unix socket in the cluster's directory."""
        return f"postgresql://{USER}@/{DATABASE}?host={self.root}&port={self.port}"

    def start(self) -> Cluster:
        programs = bindir()
        self.root = Path(tempfile.mkdtemp(prefix="flowctl-pg-"))
        self.port = free_port()
        as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(self.root, "postgres", "postgres")
            as_user = ["runuser", "-u", "postgres", "--"]
        data = self.root / "data"
        run = lambda *args: subprocess.run([*as_user, *args], check=True,  # noqa: E731
                                           capture_output=True, text=True, timeout=120)
        self._run, self._pg_ctl = run, programs / "pg_ctl"
        try:
            run(str(programs / "initdb"), "-D", str(data), "-U", USER, "--auth=trust",
                "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
            options = [f"-p {self.port}", f"-k {self.root}", "-c listen_addresses=127.0.0.1",
                       *(f"-c {k}={v}" for k, v in self.settings.items())]
            run(str(programs / "pg_ctl"), "-D", str(data), "-l", str(self.root / "log"),
                "-o", " ".join(options), "-w", "-t", "60", "start")
            run(str(programs / "createdb"), "-h", str(self.root), "-p", str(self.port),
                "-U", USER, DATABASE)
        except subprocess.CalledProcessError as err:
            log = (self.root / "log").read_text() if (self.root / "log").exists() else ""
            self.stop()
            program = Path(err.cmd[len(as_user)]).name
            raise RuntimeError(f"{program} failed: {err.stderr}\n{log}") from None
        return self

    def restart(self) -> None:
        """Restart the server (fast: every connection is closed), as a failover would."""
        self._run(str(self._pg_ctl), "-D", str(self.root / "data"), "-l",
                  str(self.root / "log"), "-m", "fast", "-w", "restart")

    def stop(self) -> None:
        if (self.root / "data" / "postmaster.pid").exists():
            self._run(str(self._pg_ctl), "-D", str(self.root / "data"), "-m", "immediate",
                      "-w", "stop")
        shutil.rmtree(self.root, ignore_errors=True)
