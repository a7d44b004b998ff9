"""docs/mlia.1 covers the command line (issue 19, 10): every command and
every option that `--help` of `mlia`, `mlia check`, `mlia inspect` and
`mlia compare` prints, every exit status, and every output file."""
import os
import re
import subprocess
import unittest

from helpers import MLIA, ROOT, need_binary

OPTION = re.compile(r"(?<![\w-])(--[a-z][a-z0-9.-]*[a-z0-9]|-[a-zA-Z])(?![\w-])")
OUTPUT_FILES = ["mlia-output.json", "logs/mlia.log", "trace.json", "model-explorer/manifest.json",
                "open_in_model_explorer.py", "bundle/index.html", "view-links.json",
                "entity-node-mappings.json", "compare.json", "compare.html"]


def man_text():
    with open(os.path.join(ROOT, "docs", "mlia.1"), encoding="utf-8") as f:
        text = f.read()
    # troff: \- is a hyphen, \(em and friends are not options; font escapes go
    return re.sub(r"\\f[BIRP]", "", text.replace("\\-", "-").replace("\\&", ""))


def help_text(*command):
    p = subprocess.run([MLIA, *command, "--help"], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def options_of(text):
    """Options named at the start of a help line (the option lists)."""
    found = []
    for line in text.splitlines():
        m = re.match(r"\s+((?:-[a-zA-Z], )?--?[a-zA-Z][\w.-]*)", line)
        if m:
            found += OPTION.findall(m.group(1))
    return found


class ManPage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.man = man_text()

    def test_every_command_of_help(self):
        top = help_text()
        commands = re.findall(r"^  (\w+)\s{2,}", top.split("commands:", 1)[1].split("\n\n", 1)[0], re.M)
        self.assertEqual(commands, ["check", "inspect", "compare", "history"])
        for c in commands:
            self.assertRegex(self.man, rf"mlia {c}\b", c)

    def test_every_option_of_help(self):
        missing = []
        for command in ((), ("check",), ("inspect",), ("compare",), ("history",)):
            opts = options_of(help_text(*command))
            self.assertGreater(len(opts), 3, command)
            for opt in opts:
                if not re.search(rf"(?<![\w-]){re.escape(opt)}(?![\w-])", self.man):
                    missing.append(f"mlia {' '.join(command)}: {opt}")
        self.assertEqual(missing, [])

    def test_every_exit_status(self):
        section = self.man.split(".SH EXIT STATUS", 1)[1].split(".SH", 1)[0]
        for status in ("0", "1", "2", "3"):
            self.assertRegex(section, rf"(?m)^\.B {status}$", status)
        self.assertIn("--fail-on-regression", section)

    def test_every_output_file(self):
        missing = [f for f in OUTPUT_FILES if f not in self.man]
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
