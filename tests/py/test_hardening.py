"""Hardening (issue 12, docs/hardening.md): resource caps, out of memory, escaped
messages, non-regular inputs, clearer messages for wrong inputs, full disk, atomic
output replacement under kills, signals and concurrent runs.

Inputs come from the fixture builder (tools/fixturelib/hostile.py, samples/*.json)
and the real lenet.etdp."""
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import MLIA, ROOT, build_fixture, check_args, fixture, need_binary, run_mlia

LENET = fixture("executorch/lenet.etdp")
ASAN = "asan" in MLIA


def hostile():
    import mkfixture  # noqa: F401  (puts tools/ on the path)
    from fixturelib import hostile as h
    return h


def leftovers(d):
    return sorted(n for n in os.listdir(d) if n.startswith(".mlia-output"))


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-hardening-")
        cls.demo = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))
        cls.tiny_etdump = hostile().tiny_etdump(os.path.join(cls.tmp, "tiny.etdump"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def outdir(self):
        return tempfile.mkdtemp(dir=self.tmp)

    def expect_error(self, args, message, out=None):
        p = run_mlia(*args)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"mlia: error: {message}\n")
        self.assertEqual(p.stdout, "")
        if out:
            self.assertEqual(os.listdir(out), [])
        return p


class ResourceCaps(Base):
    def test_zip_bomb_entry_is_refused_relative_to_the_archive_size(self):
        path = hostile().zip_bomb_etrecord(os.path.join(self.tmp, "bomb.etrecord"), 200 * 1024 * 1024)
        size = os.path.getsize(path)
        self.assertLess(size, 1024 * 1024)
        limit = 64 * 1024 * 1024 + 100 * size
        out = self.outdir()
        self.expect_error(check_args(path, self.tiny_etdump, "--output-dir", out),
                          f"{path}: debug_handle_map: reading it would exceed the limit of {limit} uncompressed "
                          f"bytes for this {size}-byte ETRecord (64 MiB + 100 x its size)", out)

    def test_oversized_name_is_an_error(self):
        path = hostile().long_name_etrecord(os.path.join(self.tmp, "longname.etrecord"), 5000)
        out = self.outdir()
        p = run_mlia(*check_args(path, self.tiny_etdump, "--output-dir", out))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"^mlia: error: " + re.escape(path) +
                         r": edge_dialect_exported_program/forward: \S+\.name: string of 5000 bytes exceeds the "
                         r"limit of 4096 bytes\n$")
        self.assertEqual(os.listdir(out), [])

    def test_oversized_method_name_is_an_error(self):
        path = hostile().long_method_name_etrecord(os.path.join(self.tmp, "longmethod.etrecord"), 5000)
        out = self.outdir()
        self.expect_error(check_args(path, self.tiny_etdump, "--output-dir", out),
                          f"{path}: debug_handle_map: method name of 5000 bytes exceeds the limit of 4096 bytes", out)

    def test_parsed_tree_memory_limit(self):
        # 12 million handles: ~24 MB of JSON deflated into a small file; the
        # parsed tree needs more than 512 MiB + 64 x the input size.
        path = hostile().wide_handles_etrecord(os.path.join(self.tmp, "wide.etrecord"), 12_000_000)
        total = os.path.getsize(path) + os.path.getsize(self.tiny_etdump)
        limit = 512 * 1024 * 1024 + 64 * total
        out = self.outdir()
        self.expect_error(check_args(path, self.tiny_etdump, "--output-dir", out),
                          f"{path}: analysis needs more than the memory limit of {limit} bytes "
                          "(512 MiB + 64 x the input size)", out)

    def test_inspect_memory_limit(self):
        path = hostile().wide_handles_etrecord(os.path.join(self.tmp, "wide3.etrecord"), 12_000_000)
        limit = 512 * 1024 * 1024 + 64 * os.path.getsize(path)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, f"mlia: error: {path}: inspection needs more than the memory limit of {limit} "
                                   "bytes (512 MiB + 64 x the file size)\n")

    @unittest.skipIf(ASAN, "RLIMIT_AS does not combine with the sanitizer's shadow memory")
    def test_out_of_memory_is_one_error_line_with_the_file(self):
        path = hostile().wide_handles_etrecord(os.path.join(self.tmp, "wide2.etrecord"), 6_000_000)
        out = self.outdir()

        def limit_memory():
            resource.setrlimit(resource.RLIMIT_AS, (200 * 1024 * 1024, 200 * 1024 * 1024))

        p = subprocess.run([MLIA, *check_args(path, self.tiny_etdump, "--output-dir", out)],
                           capture_output=True, text=True, preexec_fn=limit_memory)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertRegex(p.stderr, r"^mlia: error: " + re.escape(path) +
                         r": out of memory( \(requested \d+ bytes\))?\n$")
        self.assertEqual(os.listdir(out), [])


class LinearTime(Base):
    """Sizes at which the former quadratic paths took minutes (issue 12 item 5)."""

    def test_100k_method_keys(self):
        path = hostile().many_map_methods_etrecord(os.path.join(self.tmp, "keys.etrecord"), 100_000)
        out = self.outdir()
        self.expect_error(check_args(path, self.tiny_etdump, "--output-dir", out),
                          f"{path}: the ETRecord records several methods (forward, k000000, k000001, k000002, "
                          "k000003, k000004, k000005, k000006, k000007, k000008 and 99991 more); select one with "
                          "--neural-technology-profiling-data.etrecord-method", out)
        p = run_mlia(*check_args(path, self.tiny_etdump, "--output-dir", out,
                                 "--neural-technology-profiling-data.etrecord-method", "forward", "--json"))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_10k_node_program(self):
        import json
        et, dump = hostile().many_nodes_etrecord(os.path.join(self.tmp, "nodes.etrecord"), 10_000)
        out = self.outdir()
        p = run_mlia(*check_args(et, dump, "--output-dir", out, "--json", "--model-explorer", "files"))
        self.assertEqual(p.returncode, 0, p.stderr)
        ents = json.loads(p.stdout)["results"][0]["entities"]
        self.assertEqual(sum(1 for e in ents if e["kind"] == "source_operator"), 10_000)

    def test_inspect_4000_methods(self):
        import json
        path = hostile().many_methods_etrecord(os.path.join(self.tmp, "m4000.etrecord"), 4000)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        methods = doc["methods"]
        self.assertEqual(len(methods), 4000)
        # every method's program was read (through one archive handle)
        self.assertEqual(sum(1 for m in methods if m["program_entry"] and m["program_error"] is None
                             and m["nodes"]), 4000)


class Messages(Base):
    def copy_as(self, src, name):
        path = os.path.join(self.tmp, name)
        shutil.copyfile(src, path)
        return path

    def expect_usage(self, args, message):
        p = run_mlia(*args)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.splitlines()[0], f"mlia: error: {message}")
        self.assertEqual(p.stdout, "")

    # told by content, whatever the name (issue 19, 8): usage errors with the fix
    def test_pte_given_as_etrecord(self):
        pte = self.copy_as(fixture("executorch/lenet.pte"), "program.etrecord")
        self.expect_usage(check_args(pte, LENET), f"MODEL {pte} is a PTE program, not an ETRecord: give the "
                          "ETRecord written at export (generate_etrecord=True) as MODEL; the PTE goes with "
                          "--companion-model.")

    def test_etdump_given_as_etrecord(self):
        dump = self.copy_as(LENET, "dump.etrecord")
        self.expect_usage(check_args(dump, LENET), f"MODEL {dump} is an ETDump, not an ETRecord: give the "
                          "ETRecord written at export (generate_etrecord=True) as MODEL; the ETDump goes with "
                          "--profiling-data.")

    def test_empty_file_given_as_etrecord(self):
        path = os.path.join(self.tmp, "empty.etrecord")
        open(path, "wb").close()
        self.expect_error(check_args(path, LENET), f"{path}: is empty, not an ETRecord (zip)")

    def test_empty_file_inspected(self):
        path = os.path.join(self.tmp, "empty.bin")
        open(path, "wb").close()
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {path}: is empty: not an ETDump, ETRecord, PTE, BundledProgram or "
                                   "VGF file\n")

    def test_mismatched_etrecord_and_etdump(self):
        out = self.outdir()
        et = self.demo["etrecord"]
        self.expect_error(check_args(et, LENET, "--output-dir", out),
                          f"{LENET}: not recorded from the program of {et}: no execution fits method "
                          "'forward' (run 1, event 0: an operator call at instruction 0, which is a delegate call "
                          "in the method's maps); give the ETDump of a run of that program, or the ETRecord "
                          "exported with the program that wrote this ETDump", out)

    def test_mismatched_delegate_capture(self):
        # the demo capture (a VgfBackend delegate call at instruction 0) with
        # the LeNet ETRecord (instruction 0 is a kernel)
        lenet = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "lenet"))
        out = self.outdir()
        et = lenet["etrecord"]
        self.expect_error(check_args(et, self.demo["etdump"], "--output-dir", out),
                          f"{self.demo['etdump']}: not recorded from the program of {et}: no execution fits method "
                          "'forward' (run 1, event 6: a delegate call at instruction 0, which is not a delegate "
                          "call in the method's maps); give the ETDump of a run of that program, or the ETRecord "
                          "exported with the program that wrote this ETDump", out)

    def test_control_characters_in_names_are_escaped(self):
        # \udc9b\udcff: the raw bytes 0x9b 0xff (invalid UTF-8) in the file name
        name = os.path.join(self.tmp, "a\nb\x1b]0;title\x07\udc9b\udcff.etrecord")
        p = run_mlia(*check_args(name, LENET))
        self.assertEqual(p.returncode, 1)
        shown = os.path.join(self.tmp, "a\\nb\\x1b]0;title\\x07\\x9b\\xff.etrecord")
        self.assertEqual(p.stderr, f"mlia: error: {shown}: No such file or directory\n")

    def test_control_characters_in_an_existing_bad_input(self):
        name = os.path.join(self.tmp, "dev\nname\u0085.etrecord")
        with open(name, "wb") as f:
            f.write(b"not a zip at all")
        p = run_mlia(*check_args(name, LENET))
        self.assertEqual(p.returncode, 1)
        shown = os.path.join(self.tmp, "dev\\nname\\u0085.etrecord")
        self.assertEqual(p.stderr, f"mlia: error: {shown}: Invalid etrecord file passed in.\n")
        self.assertEqual(len(p.stderr.splitlines()), 1)

    def test_device_name_with_a_newline_stays_one_line(self):
        import json
        import mkfixture
        with open(os.path.join(ROOT, "samples", "demo.json"), encoding="utf-8") as f:
            desc = json.load(f)
        desc["nx"]["device_name"] = "Mali-G2-Pro\nNX\x1b]0;owned\x07 MC1"
        desc["nx"]["layout"] = {"schema_id": "arm.mali-g1.neural-statistics.mode1"}
        paths = mkfixture.build_desc(desc, os.path.join(self.tmp, "device"), os.path.join(ROOT, "samples"))
        out = self.outdir()
        self.expect_error(check_args(paths["etrecord"], paths["etdump"], "--output-dir", out),
                          f"{paths['etdump']}: VGF neural statistics (run 1, plan chain 0, instruction 0): Counter "
                          "layout arm.mali-g1.neural-statistics.mode1 contradicts target device "
                          "Mali-G2-Pro\\nNX\\x1b]0;owned\\x07 MC1.", out)

    def test_fifo_is_refused_without_blocking(self):
        fifo = os.path.join(self.tmp, "pipe.etdump")
        if not os.path.exists(fifo):
            os.mkfifo(fifo)
        p = subprocess.run([MLIA, *check_args(self.demo["etrecord"], fifo)], capture_output=True, text=True,
                           timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {fifo}: is a FIFO (named pipe), not a regular file\n")
        p = subprocess.run([MLIA, "inspect", fifo], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {fifo}: is a FIFO (named pipe), not a regular file\n")

    def test_device_is_refused(self):
        link = os.path.join(self.tmp, "zero.etrecord")
        if not os.path.lexists(link):
            os.symlink("/dev/zero", link)
        p = subprocess.run([MLIA, *check_args(link, LENET)], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {link}: is a character device, not a regular file\n")
        p = subprocess.run([MLIA, "inspect", "/dev/zero"], capture_output=True, text=True, timeout=60)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "mlia: error: /dev/zero: is a character device, not a regular file\n")


class OutputFolder(Base):
    def run_demo(self, out, *extra, env=None, wait=True, ignore=()):
        args = [MLIA, *check_args(self.demo["etrecord"], self.demo["etdump"], "--output-dir", out, "--quiet",
                                  *extra)]
        e = dict(os.environ)
        e.pop("BROWSER", None)
        if env:
            e.update(env)
        if not wait:
            # The child starts with the default disposition of the signals the
            # tests send (a suite started with nohup or as a background job
            # inherits them ignored, and mlia keeps an inherited "ignore"),
            # except those the test asks to start ignored.
            def dispositions():
                for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                    signal.signal(s, signal.SIG_IGN if s in ignore else signal.SIG_DFL)
            return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e,
                                    preexec_fn=dispositions)
        return subprocess.run(args, capture_output=True, text=True, env=e)

    def marked_output(self, out):
        """A committed previous output with a marker file."""
        p = self.run_demo(out)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "mlia-output", "previous.marker"), "w") as f:
            f.write("x")

    def test_write_failure_names_the_final_path_and_the_reason(self):
        out = self.outdir()
        self.marked_output(out)
        p = self.run_demo(out, env={"MLIA_TEST_HOOK": "enospc"})
        self.assertEqual(p.returncode, 1)
        final = os.path.join(out, "mlia-output", "mlia-output.json")
        self.assertEqual(p.stderr, f"mlia: error: {final}: write failed: No space left on device\n")
        self.assertEqual(leftovers(out), [])
        self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")))

    def test_document_written_beside_other_outputs_is_the_same(self):
        # With --trace, --csv or --model-explorer, mlia-output.json is written
        # by a thread of its own and the console summary is made there
        # (src/pipeline/check.c, write_outputs): same document, same summary.
        runs = {}
        for name, extra in (("alone", ()), ("beside", ("--csv", "--trace", "--model-explorer", "files"))):
            out = self.outdir()
            p = run_mlia(*check_args(self.demo["etrecord"], self.demo["etdump"], "--output-dir", out, *extra),
                         env={"SOURCE_DATE_EPOCH": "1700000000"})
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
                text = f.read()
            runs[name] = (text, p.stdout)
        import json
        docs = {k: json.loads(v[0]) for k, v in runs.items()}
        args = {k: d["context"].pop("cli_arguments") for k, d in docs.items()}
        self.assertEqual(args["beside"][-4:], ["--csv", "--trace", "--model-explorer", "files"])
        self.assertEqual(docs["alone"], docs["beside"])
        self.assertGreater(len(docs["alone"]["results"][0]["entities"]), 10)
        # only the command line differs, byte for byte
        cut = [re.sub(r'"cli_arguments": \[.*?\]', "", runs[k][0], count=1, flags=re.S) for k in ("alone", "beside")]
        self.assertEqual(cut[0], cut[1])
        # the console summary: the same up to the lines about the files
        self.assertIn("Top source operators by P50 execution time", runs["alone"][1])
        self.assertEqual(runs["alone"][1].split("\nOutput: ")[0], runs["beside"][1].split("\nOutput: ")[0])

    def test_document_failure_comes_first_beside_other_outputs(self):
        # the document's thread and the main thread both fail (every write
        # is refused): the error is the document's, as a sequential run has it
        out = self.outdir()
        p = self.run_demo(out, "--model-explorer", "files", "--trace", env={"MLIA_TEST_HOOK": "enospc"})
        final = os.path.join(out, "mlia-output", "mlia-output.json")
        self.assertEqual((p.returncode, p.stderr), (1, f"mlia: error: {final}: write failed: No space left on device\n"))
        self.assertEqual(leftovers(out), [])

    def test_full_disk(self):
        if os.geteuid() != 0:
            self.skipTest("mounting a tiny tmpfs needs root")
        mnt = tempfile.mkdtemp(dir=self.tmp)
        if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                          capture_output=True).returncode != 0:
            self.skipTest("cannot mount a tmpfs here")
        try:
            p = self.run_demo(mnt, "--model-explorer", "files")
            self.assertEqual(p.returncode, 1)
            self.assertRegex(p.stderr, r"^mlia: error: " + re.escape(os.path.join(mnt, "mlia-output")) +
                             r"/\S+: (write failed|cannot write): No space left on device\n$")
            self.assertEqual(os.listdir(mnt), [])
        finally:
            subprocess.run(["umount", mnt], capture_output=True)

    def wait_stopped(self, proc):
        for _ in range(3000):
            try:
                with open(f"/proc/{proc.pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "T":
                        return
            except FileNotFoundError:
                break
            if proc.poll() is not None:
                break
            time.sleep(0.01)
        self.fail(f"process did not stop: {proc.poll()} {proc.stderr.read() if proc.poll() is not None else ''}")

    def test_signals_remove_the_temporary_tree(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            with self.subTest(sig=sig):
                out = self.outdir()
                self.marked_output(out)
                proc = self.run_demo(out, "--model-explorer", "files", env={"MLIA_TEST_HOOK": "stop-before-commit"},
                                     wait=False)
                self.wait_stopped(proc)
                self.assertEqual(len(leftovers(out)), 1)  # the complete temporary tree
                os.kill(proc.pid, sig)
                os.kill(proc.pid, signal.SIGCONT)
                proc.communicate(timeout=60)
                self.assertEqual(proc.returncode, -sig)
                self.assertEqual(leftovers(out), [])
                self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")))

    def test_inherited_ignore_is_kept(self):
        # started under nohup: SIGHUP inherited as ignored stays ignored, the
        # run goes on and commits its output (docs/hardening.md)
        out = self.outdir()
        self.marked_output(out)
        proc = self.run_demo(out, "--model-explorer", "files", env={"MLIA_TEST_HOOK": "stop-before-commit"},
                             wait=False, ignore=(signal.SIGHUP,))
        self.wait_stopped(proc)
        os.kill(proc.pid, signal.SIGHUP)
        os.kill(proc.pid, signal.SIGCONT)
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(leftovers(out), [])
        self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "mlia-output.json")))
        self.assertFalse(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")))

    def test_kill_before_and_after_the_exchange(self):
        for hook, marker_kept in (("kill-before-exchange", True), ("kill-after-exchange", False)):
            with self.subTest(hook=hook):
                out = self.outdir()
                self.marked_output(out)
                p = self.run_demo(out, env={"MLIA_TEST_HOOK": hook})
                self.assertEqual(p.returncode, -signal.SIGKILL)
                # DIR/mlia-output is always a complete output: the previous
                # one before the exchange, the new one after it
                self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "mlia-output.json")))
                self.assertEqual(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")), marker_kept)
                self.assertEqual(len(leftovers(out)), 1)
                # the next run removes what the killed process left
                p = self.run_demo(out)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertEqual(leftovers(out), [])

    def test_two_rename_fallback_killed_between_renames_is_restored(self):
        out = self.outdir()
        self.marked_output(out)
        p = self.run_demo(out, env={"MLIA_TEST_HOOK": "no-exchange,kill-between-renames"})
        self.assertEqual(p.returncode, -signal.SIGKILL)
        self.assertFalse(os.path.exists(os.path.join(out, "mlia-output")))
        self.assertEqual([n.split("-")[1] for n in leftovers(out)], ["output.old", "output.tmp"])
        # the next run first puts the previous output back, then replaces it
        p = self.run_demo(out, "--model-explorer", "files", env={"MLIA_TEST_HOOK": "stop-before-commit"},
                          wait=False)
        self.wait_stopped(p)
        self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")))
        os.kill(p.pid, signal.SIGCONT)
        p.communicate(timeout=60)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(leftovers(out), [])
        self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "model-explorer")))

    def test_two_rename_fallback_commits(self):
        out = self.outdir()
        self.marked_output(out)
        p = self.run_demo(out, env={"MLIA_TEST_HOOK": "no-exchange"})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(leftovers(out), [])
        self.assertFalse(os.path.exists(os.path.join(out, "mlia-output", "previous.marker")))

    def test_concurrent_runs(self):
        out = self.outdir()
        self.marked_output(out)
        procs = [self.run_demo(out, "--model-explorer", "files", wait=False) for _ in range(4)]
        for proc in procs:
            _, err = proc.communicate(timeout=120)
            self.assertEqual(proc.returncode, 0, err)
        self.assertEqual(leftovers(out), [])
        self.assertEqual(sorted(os.listdir(os.path.join(out, "mlia-output"))),
                         ["logs", "mlia-output.json", "model-explorer"])  # no trace without --trace

    def test_kill_loop_keeps_the_previous_output(self):
        self.kill_loop(None, (signal.SIGTERM, signal.SIGKILL), 40)

    def test_kill_loop_with_the_two_rename_fallback(self):
        # Without the exchange, SIGINT/SIGTERM are held back between the two
        # renames, so the output is still always present.
        self.kill_loop({"MLIA_TEST_HOOK": "no-exchange"}, (signal.SIGTERM, signal.SIGINT), 20)

    def kill_loop(self, env, signals, rounds):
        out = self.outdir()
        self.marked_output(out)
        rnd = random.Random(12)
        for i in range(rounds):
            proc = self.run_demo(out, "--model-explorer", "files", wait=False, env=env)
            time.sleep(rnd.uniform(0.0, 0.08))
            sig = signals[i % len(signals)]
            proc.send_signal(sig)
            proc.communicate(timeout=60)
            self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "mlia-output.json")), i)
            if proc.returncode in (-signal.SIGTERM, -signal.SIGINT):
                # its own temporary tree is gone (one of an earlier SIGKILL
                # may remain until a run gets as far as the output stage)
                self.assertEqual([n for n in leftovers(out) if f"-{proc.pid}-" in n], [], i)
        p = self.run_demo(out)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(leftovers(out), [])


if __name__ == "__main__":
    unittest.main()


class LibraryCaller(unittest.TestCase):
    """The library reports limits as errors: the calling process survives."""

    def test_memory_limit_raises_in_python(self):
        from helpers import BUILD
        lib = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))
        if not os.path.exists(lib):
            self.skipTest(f"{lib} not built")
        os.environ["MLIA_LIB"] = lib
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import mlia
        tmp = tempfile.mkdtemp(prefix="mlia-hardening-py-")
        try:
            path = hostile().wide_handles_etrecord(os.path.join(tmp, "wide.etrecord"), 12_000_000)
            dump = hostile().tiny_etdump(os.path.join(tmp, "tiny.etdump"))
            limit = 512 * 1024 * 1024 + 64 * (os.path.getsize(path) + os.path.getsize(dump))
            with self.assertRaises(mlia.MliaError) as cm:
                mlia.run_advisor(model=path, profiling_data=[dump])
            self.assertEqual(str(cm.exception), f"{path}: analysis needs more than the memory limit of {limit} "
                                                "bytes (512 MiB + 64 x the input size)")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
