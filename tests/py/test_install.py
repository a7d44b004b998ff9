"""`make install` / `make uninstall` and the pkg-config build (issue 10).

Installs into a temporary prefix (and, for the DESTDIR layout, into a
staging root), then builds a tiny C program against the installed prefix
with pkg-config (PKG_CONFIG_PATH) twice, linked with the shared library and
with the static one, and runs both on a capture written by the fixture
builder. The man page must name every option `mlia check --help` and
`mlia inspect --help` list. Under the sanitizer build (MLIA_SAN) the
installed library is instrumented and a plain program cannot link it: the
class is skipped there, with that reason (the normal run covers it).
"""
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest

from helpers import BUILD, ROOT, build_fixture

PROGRAM = r"""
#include <stdio.h>
#include <mlia/mlia.h>

/* A host's own functions named like internals of the library: the static
 * archive keeps its internals local, so they never clash (Makefile). */
int csv_write(void);
int csv_write(void) { return 7; }
int nx_run(void);
int nx_run(void) { return 8; }

/* Prints the library version, then `mlia inspect` of argv[1]. */
int main(int argc, char **argv)
{
    if (csv_write() + nx_run() != 15)
        return 3;
    char *json = NULL, *error = NULL;
    if (argc != 2)
        return 2;
    printf("%s\n", MLIA_VERSION);
    if (mlia_inspect(argv[1], &json, &error) != 0) {
        fprintf(stderr, "error: %s\n", error);
        mlia_free(error);
        return 1;
    }
    fputs(json, stdout);
    mlia_free(json);
    return 0;
}
"""


def clean_env(**extra):
    """The environment without the parent make's job server settings."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    env.update(extra)
    return env


def make(*args):
    return subprocess.run(["make", "-s", "--no-print-directory", f"BUILD={BUILD}", *args], cwd=ROOT,
                          capture_output=True, text=True, env=clean_env())


def version():
    with open(os.path.join(ROOT, "include", "mlia", "mlia.h"), encoding="utf-8") as f:
        return re.search(r'#define MLIA_VERSION "([^"]+)"', f.read()).group(1)


def files_under(root):
    out = []
    for d, _dirs, names in os.walk(root):
        out += [os.path.relpath(os.path.join(d, n), root) for n in names]
    return sorted(out)


@unittest.skipIf(os.environ.get("MLIA_SAN"), "sanitizer build: an instrumented libmlia cannot be linked by a "
                                             "plain program; the normal `make check` runs these tests")
class MakeInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mlia-install-")
        cls.prefix = os.path.join(cls.tmp, "prefix")
        p = make("install", f"PREFIX={cls.prefix}")
        if p.returncode != 0:
            raise AssertionError(f"make install failed: {p.stdout}{p.stderr}")
        cls.capture = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(cls.tmp, "fx"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_layout_and_soname(self):
        v = version()
        major = v.split(".")[0]
        lib = os.path.join(self.prefix, "lib")
        self.assertEqual(files_under(self.prefix), sorted([
            "bin/mlia", "include/mlia/mlia.h", f"lib/libmlia.so.{v}", f"lib/libmlia.so.{major}",
            "lib/libmlia.so", "lib/libmlia.a", "lib/pkgconfig/mlia.pc", "share/man/man1/mlia.1"]))
        self.assertEqual(os.readlink(os.path.join(lib, f"libmlia.so.{major}")), f"libmlia.so.{v}")
        self.assertEqual(os.readlink(os.path.join(lib, "libmlia.so")), f"libmlia.so.{major}")
        dyn = subprocess.run(["readelf", "-d", os.path.join(lib, f"libmlia.so.{v}")], capture_output=True,
                             text=True).stdout
        self.assertIn(f"Library soname: [libmlia.so.{major}]", dyn)
        p = subprocess.run([os.path.join(self.prefix, "bin", "mlia"), "--version"], capture_output=True, text=True)
        self.assertEqual((p.returncode, p.stdout), (0, f"mlia {v}\n"))

    def test_pkg_config_file(self):
        env = clean_env(PKG_CONFIG_PATH=os.path.join(self.prefix, "lib", "pkgconfig"))
        q = lambda *a: subprocess.run(["pkg-config", *a, "mlia"], capture_output=True, text=True,  # noqa: E731
                                      env=env).stdout.split()
        self.assertEqual(q("--modversion"), [version()])
        self.assertEqual(q("--cflags"), [f"-I{self.prefix}/include"])
        self.assertEqual(q("--libs"), [f"-L{self.prefix}/lib", "-lmlia"])
        static = q("--static", "--libs")
        for flag in ("-lmlia", "-lzip", "-lnettle", "-lsqlite3", "-lpq", "-lm", "-pthread"):
            self.assertIn(flag, static)
        pc = open(os.path.join(self.prefix, "lib", "pkgconfig", "mlia.pc"), encoding="utf-8").read()
        self.assertIn("Requires.private: libzip nettle\n", pc)
        self.assertIn("Libs.private: -lsqlite3 -lpq -lm -pthread\n", pc)

    def build_and_run(self, name, link):
        env = clean_env(PKG_CONFIG_PATH=os.path.join(self.prefix, "lib", "pkgconfig"))
        pc = lambda *a: subprocess.run(["pkg-config", *a, "mlia"], capture_output=True, text=True,  # noqa: E731
                                       env=env, check=True).stdout.split()
        src = os.path.join(self.tmp, "prog.c")
        with open(src, "w", encoding="utf-8") as f:
            f.write(PROGRAM)
        exe = os.path.join(self.tmp, name)
        if link == "shared":
            flags = pc("--libs") + [f"-Wl,-rpath,{self.prefix}/lib"]
        else:   # libmlia.a, and what the static link needs from pkg-config
            flags = ["-Wl,-Bstatic"] + pc("--libs-only-L") + ["-lmlia", "-Wl,-Bdynamic"] + \
                [x for x in pc("--static", "--libs") if x != "-lmlia" and not x.startswith("-L")]
        p = subprocess.run(["cc", "-std=c17", "-Wall", "-Werror", *pc("--cflags"), "-o", exe, src, *flags],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        needed = subprocess.run(["readelf", "-d", exe], capture_output=True, text=True).stdout
        run = subprocess.run([exe, self.capture["etdump"]], capture_output=True, text=True, cwd=self.tmp)
        self.assertEqual(run.returncode, 0, run.stderr)
        first, rest = run.stdout.split("\n", 1)
        self.assertEqual(first, version())
        self.assertEqual(json.loads(rest)["format"], "etdump")
        return needed

    def test_installed_static_archive_exports_only_mlia_names(self):
        lib = os.path.join(self.prefix, "lib", "libmlia.a")
        out = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
        names = [line.split()[-1] for line in out.splitlines() if len(line.split()) == 3]
        self.assertTrue(names)
        self.assertEqual([n for n in names if not n.startswith("mlia_")], [])

    def test_program_linked_with_the_shared_library(self):
        needed = self.build_and_run("prog-shared", "shared")
        self.assertIn("Shared library: [libmlia.so.%s]" % version().split(".")[0], needed)

    def test_program_linked_with_the_static_library(self):
        if os.environ.get("MLIA_COVERAGE") == "1":
            self.skipTest("coverage build: a static link also needs the gcov runtime (make coverage)")
        needed = self.build_and_run("prog-static", "static")
        self.assertNotIn("libmlia", needed)

    def test_man_page_names_every_option(self):
        with open(os.path.join(self.prefix, "share", "man", "man1", "mlia.1"), encoding="utf-8") as f:
            raw = f.read()
        man = raw.replace("\\-", "-").replace("\\e\n", "\\\n")
        mlia = os.path.join(self.prefix, "bin", "mlia")
        for cmd in ("check", "inspect", "compare", "history"):
            helptext = subprocess.run([mlia, cmd, "--help"], capture_output=True, text=True).stdout
            options = set(re.findall(r"(?<![\w-])(--?[a-z][\w.-]*)", helptext))
            self.assertGreater(len(options), {"check": 10, "inspect": 2, "compare": 8, "history": 8}[cmd])
            for opt in sorted(options):
                self.assertIn(opt, man, f"{opt} of `mlia {cmd}` is not in the man page")
        self.assertIn(".SH EXIT STATUS", man)
        for status in ("0", "1", "2", "3"):
            self.assertRegex(man, rf"\.TP\n\.B {status}\n")
        # the example command of README and docs/cli.md
        self.assertIn("mlia check model.etrecord --target-profile neural-technology --performance", man)
        self.assertIn("--profiling-data run.etdump --companion-model model.pte", man)
        if shutil.which("groff"):
            p = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z"], input=raw,
                               capture_output=True, text=True)
            self.assertEqual(p.stderr, "")

    def test_destdir_staging_and_uninstall(self):
        stage = os.path.join(self.tmp, "stage")
        p = make("install", "PREFIX=/opt/mlia", f"DESTDIR={stage}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(f"lib/libmlia.so.{version()}", files_under(os.path.join(stage, "opt", "mlia")))
        pc = open(os.path.join(stage, "opt/mlia/lib/pkgconfig/mlia.pc"), encoding="utf-8").read()
        self.assertIn("prefix=/opt/mlia\n", pc)       # the final prefix, not the staging root
        p = make("uninstall", "PREFIX=/opt/mlia", f"DESTDIR={stage}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(files_under(stage), [])

    def test_destdir_with_space_and_quote(self):
        """Paths reach the shell quoted (issue 21): DESTDIR with a space and a
        PREFIX with a quote install exactly there, nothing lands in the
        current folder, and uninstall deletes nothing outside DESTDIR (the
        file named by DESTDIR's first word survives)."""
        parent = os.path.join(self.tmp, "spaced")
        os.makedirs(parent)
        decoy = os.path.join(parent, "a")          # "$(DESTDIR)" split at the space would name it
        with open(decoy, "w", encoding="utf-8") as f:
            f.write("keep\n")
        stage = os.path.join(parent, "a b")
        prefix = "/opt/it's mlia"
        before = sorted(os.listdir(ROOT))
        p = make("install", f"PREFIX={prefix}", f"DESTDIR={stage}")
        self.assertEqual(p.returncode, 0, p.stderr)
        root = os.path.join(stage, "opt", "it's mlia")
        self.assertIn("bin/mlia", files_under(root))
        self.assertIn(f"lib/libmlia.so.{version()}", files_under(root))
        pc = open(os.path.join(root, "lib/pkgconfig/mlia.pc"), encoding="utf-8").read()
        self.assertIn("prefix=/opt/it's mlia\n", pc)
        self.assertEqual(sorted(os.listdir(ROOT)), before)      # no stray b/opt/... here
        p = make("uninstall", f"PREFIX={prefix}", f"DESTDIR={stage}")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(files_under(stage), [])
        with open(decoy, encoding="utf-8") as f:
            self.assertEqual(f.read(), "keep\n")


if __name__ == "__main__":
    unittest.main()
