"""The console summary of `mlia check` on the repository's samples, byte for
byte (tests/golden/console/*.txt), and its width on a terminal (issue 19,
items 2, 3 and 9).

The golden files are the summary up to the "Output:" line, printed to a pipe
(100 columns). After an intended change of the summary, rewrite them with
MLIA_UPDATE_GOLDEN=1 python3 tests/py/run.py -k console_golden and review the
diff.
"""
import fcntl
import os
import pty
import select
import struct
import subprocess
import tempfile
import termios
import unittest

from helpers import MLIA, ROOT, build_fixture, check_args, need_binary, run_mlia

GOLDEN = os.path.join(ROOT, "tests", "golden", "console")
# sample -> has a companion PTE
SAMPLES = {"demo": False, "lenet": False, "vww4": True}


def summary(stdout):
    return stdout.split("\nOutput:", 1)[0] + "\n"


class ConsoleGolden(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.TemporaryDirectory(prefix="mlia-console-")
        cls.args = {}
        for name, companion in SAMPLES.items():
            d = os.path.join(cls.tmp.name, name)
            paths = build_fixture(os.path.join(ROOT, "samples", f"{name}.json"), d)
            extra = ["--output-dir", os.path.join(d, "out")]
            if companion:
                extra += ["--companion-model", paths["pte"]]
            cls.args[name] = check_args(paths["etrecord"], paths["etdump"], *extra)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_sample(self, name, env=None):
        p = run_mlia(*self.args[name], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout

    def test_golden_summaries(self):
        for name in SAMPLES:
            with self.subTest(sample=name):
                got = summary(self.run_sample(name, env={"COLUMNS": "200"}))
                path = os.path.join(GOLDEN, f"{name}.txt")
                if os.environ.get("MLIA_UPDATE_GOLDEN") == "1":
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(got)
                with open(path, encoding="utf-8") as f:
                    self.assertEqual(got, f.read())
                # not a terminal: 100 columns whatever COLUMNS says; no name cut
                self.assertLessEqual(max(map(len, got.splitlines())), 100)
                self.assertNotIn("...", got)

    def test_shared_call_is_one_row(self):
        # issue 19, 2: six rows each repeating the delegate call's 1.850 ms
        out = summary(self.run_sample("vww4"))
        self.assertIn("  1  6 operators share DELEGATE_CALL VgfBackend", out)
        table = out.split("Top source operators", 1)[1].split("\n\n", 1)[0]
        self.assertEqual([line[:5] for line in table.splitlines()[2:] if line[:5].strip()], ["  1  "])
        self.assertIn("(1 of 1 row; 6 operators measured)", out)

    def test_numbers_use_the_shared_formatter(self):
        # issue 19, 9: cycles with separators, ms with 4 significant digits,
        # rates rounded, status explained
        out = summary(self.run_sample("demo"))
        self.assertIn("NX total cycles:     230,600 (P50 of 3 executions)", out)
        self.assertIn("Inferences/second:   1,931\n", out)
        self.assertIn("Status:              ok (every measurement covers every execution)", out)
        out = summary(self.run_sample("vww4"))
        self.assertIn("Status:              partial (some compiler operations have no source operator; "
                      "see Warnings)", out)
        # one chain name whether the segment name is known (companion) or not
        self.assertIn("  1  Chain 30 ", out)

    def on_terminal(self, name, cols, env=None):
        """stdout of the sample on a pseudo-terminal `cols` wide."""
        master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 50, cols, 0, 0))
        e = dict(os.environ)
        e.pop("COLUMNS", None)
        e.pop("BROWSER", None)
        e.update(env or {})
        p = subprocess.Popen([MLIA, *self.args[name]],
                             stdout=slave, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=e)
        os.close(slave)
        chunks = []
        while True:
            r, _, _ = select.select([master], [], [], 30)
            if not r:
                break
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            chunks.append(data)
        os.close(master)
        self.assertEqual(p.wait(timeout=60), 0, p.stderr.read())
        p.stderr.close()
        return b"".join(chunks).decode().replace("\r\n", "\n")

    def test_width_follows_the_terminal(self):
        # issue 19, 3: the table was 100 columns whatever the terminal
        wide = summary(self.on_terminal("lenet", 160))
        longest = max(map(len, wide.splitlines()))
        self.assertGreater(longest, 100)
        self.assertLessEqual(longest, 160)
        with_columns = summary(self.on_terminal("lenet", 90, env={"COLUMNS": "200"}))
        self.assertGreater(max(map(len, with_columns.splitlines())), 100)
        narrow = summary(self.on_terminal("lenet", 40))  # floor: 80 columns
        self.assertLessEqual(max(map(len, narrow.splitlines())), 80)
        self.assertNotIn("...", narrow)


if __name__ == "__main__":
    unittest.main()
