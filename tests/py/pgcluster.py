"""A throwaway PostgreSQL cluster for the history tests (docs/history.md "Tests"): Debian's
server binaries (package postgresql, installed by tools/setup.sh) run `initdb` and `pg_ctl` in a
temporary folder, as the `postgres` user when the tests run as root (the server refuses root),
listening on a free loopback port with its unix socket in that folder. `start()` returns the
cluster, `stop()` stops it and removes the folder. Nothing outside the folder is touched."""
import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile


def bindir():
    """The newest installed server's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    return os.path.dirname(found[-1]) if found else None


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_env():
    """The environment without the sanitizer preload of `make asan` (the server is not ours)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS", "PGDATA", "PGHOST",
                        "PGPORT", "PGUSER", "PGDATABASE", "PGPASSWORD", "PGSERVICE")}
    env["LC_ALL"] = "C"
    return env


class Cluster:
    def __init__(self):
        self.bin = bindir()
        if not self.bin:
            raise RuntimeError("PostgreSQL server binaries not installed (initdb): bash tools/setup.sh installs "
                               "Debian's postgresql")
        self.as_user = None
        parent = None
        if os.geteuid() == 0:
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise RuntimeError("running as root and there is no 'postgres' user to run the server as")
            self.as_user = "postgres"
            # the server runs as postgres: its folder must be reachable by that user (a root-only
            # $TMPDIR is not; /tmp always is)
            if not os.stat(tempfile.gettempdir()).st_mode & 0o001:
                parent = "/tmp"
        self.tmp = tempfile.mkdtemp(prefix="mlia-pg-", dir=parent)
        self.data = os.path.join(self.tmp, "data")
        self.port = None
        if self.as_user:
            os.chown(self.tmp, pw.pw_uid, pw.pw_gid)
        self.started = False

    def run(self, *argv, check=True):
        cmd = [os.path.join(self.bin, argv[0]), *argv[1:]]
        if self.as_user:
            cmd = ["runuser", "-u", self.as_user, "--", *cmd]
        p = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(), cwd=self.tmp)
        if check and p.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed ({p.returncode}): {p.stderr.strip() or p.stdout.strip()}")
        return p

    def start(self):
        self.run("initdb", "-D", self.data, "-A", "trust", "-U", "mlia", "-E", "UTF8", "--locale=C", "--no-sync")
        for attempt in range(5):  # another process may take the free port first
            self.port = free_port()
            opts = (f"-c listen_addresses=127.0.0.1 -p {self.port} -c unix_socket_directories={self.tmp} "
                    f"-c fsync=off -c max_connections=40")
            p = self.run("pg_ctl", "-D", self.data, "-l", os.path.join(self.tmp, "server.log"), "-o", opts,
                         "-w", "-t", "60", "start", check=False)
            if p.returncode == 0:
                self.started = True
                return self
        raise RuntimeError(f"pg_ctl start failed: {self.log_tail()}")

    def log_tail(self):
        try:
            with open(os.path.join(self.tmp, "server.log"), encoding="utf-8", errors="replace") as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def createdb(self, name):
        self.run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "mlia", name)
        return self.uri(name)

    def uri(self, db):
        return f"postgresql://mlia@127.0.0.1:{self.port}/{db}"

    def psql(self, db, sql):
        """Rows of one query as tuples of strings (psql -At)."""
        p = subprocess.run(["psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "mlia", "-d", db, "-At", "-F",
                            "\t", "-v", "ON_ERROR_STOP=1", "-c", sql], capture_output=True, text=True,
                           env=clean_env())
        if p.returncode != 0:
            raise RuntimeError(p.stderr)
        return [tuple(line.split("\t")) for line in p.stdout.splitlines()]

    def stop(self):
        try:
            if self.started:
                self.run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
