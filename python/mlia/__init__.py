"""Python API of mlia (ETRecord profiling views), standard library only.

    from mlia import run_advisor, compare
    result = run_advisor(model="model.etrecord", profiling_data=["run.etdump"])
    report = compare("baseline/mlia-output", "new/mlia-output")   # compare.json as a dict

The package loads the project's shared library (libmlia.so) with ctypes. It
looks in $MLIA_LIB, then inside the installed package (mlia/_native/, put
there by `pip install .`), then in the repository's build/ (when used from a
checkout as python/mlia), then the system library path. The `mlia` console
script and `python -m mlia` run the CLI (mlia.cli).
"""
from __future__ import annotations

import ctypes
import json
import os
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["run_advisor", "compare", "options", "rows", "module_totals", "MliaError", "MliaUsageError",
           "MliaRegressionError", "MliaInputFormatError", "MliaIOError", "MliaMemoryLimitError",
           "MliaOutOfMemoryError", "MliaProgramMismatchError", "MliaHistoryError", "__version__"]

__version__ = "0.1.0"


class MliaError(Exception):
    """An analysis or input error; the message is the CLI's error text.

    status: the library's mlia_status (include/mlia/mlia.h): 1 for an input or
    analysis error, 2 usage, 3 regression, or a more precise code of class 1
    (input format, I/O, memory limit, out of memory, program mismatch, history), each
    raised as its own subclass below. byte_offset: the byte of the input the
    message names ("... at byte 612 ..."), or None."""

    def __init__(self, message: str, status: int = 1, byte_offset: Optional[int] = None):
        super().__init__(message)
        self.status = status
        self.byte_offset = byte_offset


class MliaRegressionError(MliaError):
    """compare(..., fail_on_regression=True) found regressions (the command's exit
    status 3); `report` is the comparison (compare.json as a dict)."""

    def __init__(self, message: str, report: Dict[str, Any]):
        super().__init__(message, STATUS_REGRESSION)
        self.report = report


class MliaUsageError(MliaError):
    """A usage error (what the CLI reports with exit status 2)."""

    def __init__(self, message: str, status: int = 2, byte_offset: Optional[int] = None):
        super().__init__(message, status, byte_offset)


class MliaInputFormatError(MliaError):
    """An input's bytes are not what its format says (MLIA_STATUS_INPUT_FORMAT)."""


class MliaIOError(MliaError):
    """A file could not be opened, read or written (MLIA_STATUS_IO)."""


class MliaMemoryLimitError(MliaError):
    """The call outgrew its memory limit (MLIA_STATUS_MEMORY_LIMIT; memory_limit=)."""


class MliaOutOfMemoryError(MliaMemoryLimitError):
    """An allocation failed (MLIA_STATUS_OUT_OF_MEMORY)."""


class MliaProgramMismatchError(MliaError):
    """Inputs of different programs: an ETDump or companion PTE not of the
    ETRecord's program, or compared runs of different programs
    (MLIA_STATUS_PROGRAM_MISMATCH)."""


class MliaHistoryError(MliaError):
    """The run history cannot be opened, read or written: missing, damaged,
    not an mlia history, or an unreachable server (MLIA_STATUS_HISTORY). For
    run_advisor(history=...) the analysis outputs are written all the same."""


# the library's mlia_status values (include/mlia/mlia.h)
STATUS_ERROR, STATUS_USAGE, STATUS_REGRESSION = 1, 2, 3
STATUS_INPUT_FORMAT, STATUS_IO, STATUS_MEMORY_LIMIT, STATUS_OUT_OF_MEMORY, STATUS_PROGRAM_MISMATCH = (
    1 | (1 << 8), 1 | (2 << 8), 1 | (3 << 8), 1 | (4 << 8), 1 | (5 << 8))
STATUS_HISTORY = 1 | (6 << 8)
_ERRORS = {STATUS_USAGE: MliaUsageError, STATUS_INPUT_FORMAT: MliaInputFormatError, STATUS_IO: MliaIOError,
           STATUS_MEMORY_LIMIT: MliaMemoryLimitError, STATUS_OUT_OF_MEMORY: MliaOutOfMemoryError,
           STATUS_PROGRAM_MISMATCH: MliaProgramMismatchError, STATUS_HISTORY: MliaHistoryError}


def _raise(rc: int, message: Optional[str], default: str):
    """The exception of a failed call: its class from the status, with the
    message and the byte position it names."""
    message = message or default
    offset = _load().mlia_error_byte_offset(message.encode("utf-8", "replace"))
    raise _ERRORS.get(rc, MliaError)(message, rc, offset if offset >= 0 else None)


_lib = None


def _load() -> ctypes.CDLL:
    """The shared library, loaded once (see the module docstring for the order)."""
    global _lib
    if _lib is not None:
        return _lib
    here = os.path.dirname(os.path.abspath(__file__))
    candidates = []
    if os.environ.get("MLIA_LIB"):
        candidates.append(os.environ["MLIA_LIB"])
    candidates.append(os.path.join(here, "_native", "libmlia.so"))
    candidates.append(os.path.join(here, "..", "..", "build", "libmlia.so"))
    candidates.append("libmlia.so")
    last = None
    for path in candidates:
        try:
            lib = ctypes.CDLL(path)
            break
        except OSError as exc:  # try the next one
            last = exc
    else:
        raise MliaError(f"cannot load libmlia.so: {last}")
    lib.mlia_run_advisor_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                          ctypes.POINTER(ctypes.c_void_p)]
    lib.mlia_run_advisor_json.restype = ctypes.c_int
    lib.mlia_compare_json.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p),
                                      ctypes.POINTER(ctypes.c_void_p)]
    lib.mlia_compare_json.restype = ctypes.c_int
    lib.mlia_options_json.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.mlia_options_json.restype = ctypes.c_int
    lib.mlia_error_byte_offset.argtypes = [ctypes.c_char_p]
    lib.mlia_error_byte_offset.restype = ctypes.c_longlong
    lib.mlia_free.argtypes = [ctypes.c_void_p]
    lib.mlia_free.restype = None
    _lib = lib
    return lib


def _take(lib: ctypes.CDLL, ptr: ctypes.c_void_p) -> Optional[str]:
    """The library-allocated string behind ptr (freed here), or None."""
    if not ptr.value:
        return None
    text = ctypes.string_at(ptr.value).decode("utf-8", "replace")
    lib.mlia_free(ptr)
    return text


def _text(name: str, value: Any, path: bool = True) -> str:
    """value as the text the library will get, all of it: a path (str, bytes
    or os.PathLike) or a name. The request reaches the C library as UTF-8 JSON
    and C strings end at the first NUL, so a NUL byte would cut the value
    silently ('/tmp/x\\0/../evil' would become '/tmp/x'), and a path that is
    not valid UTF-8 (bytes, or a str carrying surrogate escapes from
    os.fsdecode) cannot be passed unchanged: both are MliaUsageError naming
    the argument."""
    if path:
        try:
            value = os.fspath(value)
        except TypeError:
            raise MliaUsageError(f"{name} must be a path (str, bytes or os.PathLike), "
                                 f"not {type(value).__name__}") from None
    if isinstance(value, bytes):
        try:
            value = value.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise MliaUsageError(f"{name} is not valid UTF-8 (byte {exc.start}): {value!r}") from None
    if not isinstance(value, str):
        raise MliaUsageError(f"{name} must be a string, not {type(value).__name__}")
    if "\0" in value:
        raise MliaUsageError(f"{name} contains a NUL byte (at character {value.index(chr(0))})")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise MliaUsageError(f"{name} cannot be decoded as UTF-8 (character {exc.start}): {value!r}") from None
    return value


def _value(name: str, value: Any) -> Any:
    """A keyword's value as it goes into the JSON request: paths and names
    through _text (all their bytes, or MliaUsageError), lists and nested
    options (backend_options) element by element; numbers, booleans and
    None as they are. Whether the value fits its option is the library's to
    say (one check for the command line, the C API and Python)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        return _text(name, value)
    if isinstance(value, (list, tuple)):
        return [_value(name, v) for v in value]
    if isinstance(value, dict):
        return {str(k): _value(str(k), v) for k, v in value.items()}
    return value


def _call(fn, request: Dict[str, Any]):
    """Runs one JSON entry point; returns (status, result text, message)."""
    lib = _load()
    result = ctypes.c_void_p()
    error = ctypes.c_void_p()
    # default=str: a value JSON cannot hold reaches the library as text,
    # which names the option it does not fit
    text = json.dumps(request, default=str).encode("utf-8")
    rc = getattr(lib, fn)(text, ctypes.byref(result), ctypes.byref(error))
    return rc, _take(lib, result), _take(lib, error)


def run_advisor(advice_category: str = "performance",
                target_profile: str = "neural-technology",
                model: Optional[Union[str, os.PathLike]] = None,
                profiling_data: Optional[Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]] = None,
                companion_model: Optional[Union[str, os.PathLike]] = None,
                output_dir: Optional[Union[str, os.PathLike]] = None,
                backend_options: Optional[Dict[str, Dict[str, Any]]] = None,
                model_explorer: Optional[str] = None,
                debug_buffer: Optional[Union[str, os.PathLike]] = None,
                reference_profiling_data: Optional[Union[str, os.PathLike]] = None,
                reference_debug_buffer: Optional[Union[str, os.PathLike]] = None,
                trace: Union[bool, str, None] = None,
                csv: Union[bool, str, Sequence[str]] = False,
                csv_tables: Optional[Union[str, Sequence[str]]] = None,
                memory_limit: Optional[int] = None,
                history: Union[bool, str, os.PathLike, None] = None,
                labels: Optional[Union[Dict[str, str], Sequence[str]]] = None,
                **options: Any) -> Dict[str, Any]:
    """Run `mlia check` and return the standardized result as a dict.

    Every keyword is an option of `mlia check` (the library's option table,
    `mlia check --help`, docs/cli.md); the library checks them as it checks
    the command line, with the same messages, and refuses an unknown
    keyword with the nearest known one ("did you mean").
    profiling_data: one ETDump, or a list of them whose executions are pooled
    (docs/captures.md). backend_options={"neural-technology-profiling-data":
    {...}} takes "etrecord_method" (selects a method of a multi-method
    ETRecord), "ticks_per_second" (the ETDump clock's rate; default 1e9,
    ticks are ns) and "warmup_executions" (the first N executions of each
    ETDump are left out of every statistic); they are also accepted as
    keywords of their own. debug_buffer (--debug-buffer) adds
    output statistics per operator from the ETDump's intermediate outputs;
    reference_profiling_data and reference_debug_buffer (both, with debug_buffer) add
    the error metrics against a reference capture (docs/accuracy.md). trace=True (or
    "perfetto") writes output_dir/mlia-output/trace.pftrace, trace="json" trace.json
    (docs/trace.md, --trace); by default no trace is written. csv=True also
    writes output_dir/mlia-output/csv/ operators.csv and chains.csv (and, with
    a companion PTE, memory.csv and memory_tensors.csv); csv_tables="all",
    "executions" or a list such as ["operators", "executions"] chooses the
    tables (--csv-tables; executions.csv is the long form, one row per
    execution and value), and so does csv="all" or a list; output_dir
    defaults to "." then. memory_limit: the most memory the run may
    use, in bytes (default 512 MiB + 64 x the inputs' size). history records
    the run in a run history (docs/history.md, --history): a SQLite file path
    or a postgresql:// URI, True for the default one
    ($XDG_DATA_HOME/mlia/history.sqlite); None (the default) uses
    $MLIA_HISTORY when it is set, False never records. labels={"commit": ...}
    (or ["commit=..."]) labels the recorded run (--label). A history that
    cannot be written raises MliaHistoryError, the outputs written. Errors
    raise MliaError (or MliaUsageError) carrying the CLI's message.
    """
    if history is None and os.environ.get("MLIA_HISTORY"):
        history = os.environ["MLIA_HISTORY"]
    given = dict(advice_category=advice_category, target_profile=target_profile, model=model,
                 profiling_data=profiling_data, companion_model=companion_model, output_dir=output_dir,
                 backend_options=backend_options, model_explorer=model_explorer, debug_buffer=debug_buffer,
                 reference_profiling_data=reference_profiling_data, reference_debug_buffer=reference_debug_buffer,
                 trace=trace, csv=csv, csv_tables=csv_tables, memory_limit=memory_limit, history=history,
                 labels=labels)
    given.update(options)
    request = {key: _value(key, value) for key, value in given.items() if value is not None}
    rc, text, message = _call("mlia_run_advisor_json", request)
    if rc != 0:
        _raise(rc, message, "analysis failed")
    return json.loads(text)


def compare(baseline: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
            new: Union[str, os.PathLike],
            threshold: float = 5.0,
            output_dir: Optional[Union[str, os.PathLike]] = None,
            allow_different_programs: bool = False,
            fail_on_regression: bool = False,
            tested_only: bool = False,
            allow_different_settings: bool = False,
            memory_limit: Optional[int] = None,
            **options: Any) -> Dict[str, Any]:
    """Compare `mlia check` outputs (`mlia compare`) and return compare.json as a dict.

    The options are those of the command (docs/compare.md), checked by the
    library as on the command line (unknown keywords: "did you mean"):
    baseline: an mlia-output folder, a folder holding one, an mlia-output.json,
      or a folder of runs; a list of them is pooled by execution (BASELINE and
      every --baseline).
    new: the new run (an mlia-output folder, a folder holding one, or an
      mlia-output.json).
    threshold: percent (default 5), --threshold.
    output_dir: --output-dir: the files go to output_dir/compare/; by default,
      as the command, into the new run's folder (NEW/mlia-output/compare/).
    allow_different_programs: --allow-different-programs: compare runs of
      different programs by entity id instead of raising.
    fail_on_regression: --fail-on-regression: raise MliaRegressionError (its
      `report` is the dict) when there is a regression, tested or likely
      (fewer than 3 samples on a side; report["gate"]).
    tested_only: --tested-only: the gate counts tested regressions only.
    allow_different_settings: --allow-different-settings: compare runs analysed
      with a different clock or NX statistics mode/device (a warning) instead
      of raising.
    memory_limit: the most memory the comparison may use, in bytes.
    Errors raise MliaError (or MliaUsageError) carrying the CLI's message.
    """
    given = dict(baseline=baseline, new=new, threshold=threshold, output_dir=output_dir,
                 allow_different_programs=allow_different_programs, fail_on_regression=fail_on_regression,
                 tested_only=tested_only, allow_different_settings=allow_different_settings,
                 memory_limit=memory_limit)
    given.update(options)
    request = {key: _value(key, value) for key, value in given.items() if value is not None}
    rc, text, message = _call("mlia_compare_json", request)
    if rc == STATUS_REGRESSION:
        raise MliaRegressionError(message or "regression", json.loads(text))
    if rc != 0:
        _raise(rc, message, "comparison failed")
    return json.loads(text)


def options(command: str = "check") -> List[Dict[str, Any]]:
    """The option table of a command ("check", "compare", "inspect"): one dict
    per option with its flag, keyword ("key"), type, bounds, default and help,
    as the library declares it (mlia_options_json)."""
    lib = _load()
    out = ctypes.c_void_p()
    if lib.mlia_options_json(ctypes.byref(out)) != 0:
        raise MliaError("out of memory")
    return [row for row in json.loads(_take(lib, out)) if command in row["commands"]]


def _metric_index(result: Dict[str, Any]) -> Dict[str, Dict[tuple, Any]]:
    """entity id -> {(metric name, statistic): value} of results[0]'s breakdowns."""
    res = result["results"][0]
    out: Dict[str, Dict[tuple, Any]] = {}
    for b in res.get("breakdowns", []):
        table = out.setdefault(b["entity_id"], {})
        for m in b.get("metrics", []):
            if "value" in m:
                table[(m["name"], (m.get("qualifiers") or {}).get("statistic"))] = m["value"]
                if "samples" in m:
                    table.setdefault((m["name"], "samples"), m["samples"])
    return out


def rows(result: Dict[str, Any]) -> List[Dict[str, Any]]:
    """One dict per source operator of a run_advisor() result, shaped like a row
    of ExecuTorch Inspector's dataframe (issue 29, 7): event_name (the ETRecord
    node), op (the operator), display_name (the name mlia shows everywhere),
    module (innermost nn.Module) and source (file:line), then the execution
    time in ms as p50, avg, min, max, p10, p90 (None when not measured),
    samples, attribution ("exclusive" or "shared") and coverage (%). In the
    result's entity order."""
    res = result["results"][0]
    metrics = _metric_index(result)
    names = {e["id"]: e.get("name") for e in res.get("entities", [])}
    out: List[Dict[str, Any]] = []
    for e in res.get("entities", []):
        if e.get("kind") != "source_operator":
            continue
        attrs = e.get("attributes") or {}
        m = metrics.get(e["id"], {})
        row: Dict[str, Any] = {
            "event_name": attrs.get("node_name"),
            "op": e.get("name"),
            "display_name": attrs.get("display_name", e.get("name")),
            "module": names.get(attrs.get("nn_module")),
            "source": names.get(attrs.get("code_stack")),
        }
        for stat in ("p50", "avg", "min", "max", "p10", "p90"):
            row[stat] = m.get(("execution_time", stat))
        row["samples"] = m.get(("execution_time", "samples"))
        row["attribution"] = attrs.get("attribution")
        row["coverage"] = m.get(("execution_coverage", None))
        out.append(row)
    return out


def module_totals(result: Dict[str, Any]) -> Dict[str, float]:
    """nn.Module name -> the total of the average execution times (ms) of the
    operators under it, nested modules included, a shared call counted once
    (Inspector's find_total_for_module; docs/analysis.md)."""
    res = result["results"][0]
    metrics = _metric_index(result)
    out: Dict[str, float] = {}
    for e in res.get("entities", []):
        if e.get("kind") == "nn_module":
            v = metrics.get(e["id"], {}).get(("module_total_time", "avg"))
            if v is not None:
                out[e.get("name")] = v
    return out
