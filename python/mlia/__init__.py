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

__all__ = ["run_advisor", "compare", "MliaError", "MliaUsageError", "MliaRegressionError", "__version__"]

__version__ = "0.1.0"


class MliaError(Exception):
    """An analysis or input error; the message is the CLI's error text."""


class MliaRegressionError(MliaError):
    """compare(..., fail_on_regression=True) found regressions (the command's exit
    status 3); `report` is the comparison (compare.json as a dict)."""

    def __init__(self, message: str, report: Dict[str, Any]):
        super().__init__(message)
        self.report = report


class MliaUsageError(MliaError):
    """A usage error (what the CLI reports with exit status 2)."""


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


def run_advisor(advice_category: str = "performance",
                target_profile: str = "neural-technology",
                model: Optional[Union[str, os.PathLike]] = None,
                profiling_data: Optional[Sequence[Union[str, os.PathLike]]] = None,
                companion_model: Optional[Union[str, os.PathLike]] = None,
                output_dir: Optional[Union[str, os.PathLike]] = None,
                backend_options: Optional[Dict[str, Dict[str, Any]]] = None,
                model_explorer: Optional[str] = None,
                debug_buffer: Optional[Union[str, os.PathLike]] = None,
                reference_profiling_data: Optional[Union[str, os.PathLike]] = None,
                reference_debug_buffer: Optional[Union[str, os.PathLike]] = None,
                trace: Union[bool, str, None] = None,
                csv: bool = False) -> Dict[str, Any]:
    """Run `mlia check` and return the standardized result as a dict.

    profiling_data: one ETDump, or a list of them whose executions are pooled
    (docs/captures.md). backend_options={"neural-technology-profiling-data":
    {...}} takes "etrecord_method" (selects a method of a multi-method
    ETRecord), "ticks_per_second" (the ETDump clock's rate; default 1e9,
    ticks are ns) and "warmup_executions" (the first N executions of each
    ETDump are left out of every statistic). debug_buffer (--debug-buffer) adds
    output statistics per operator from the ETDump's intermediate outputs;
    reference_profiling_data and reference_debug_buffer (both, with debug_buffer) add
    the error metrics against a reference capture (docs/accuracy.md). trace=True (or
    "perfetto") writes output_dir/mlia-output/trace.pftrace, trace="json" trace.json
    (docs/trace.md, --trace); by default no trace is written. csv=True also
    writes output_dir/mlia-output/csv/ (operators.csv, chains.csv, executions.csv;
    output_dir defaults to "." then). Errors raise
    MliaError (or MliaUsageError) carrying the CLI's message.
    """
    if model is None:
        raise MliaUsageError("model is required")
    if isinstance(profiling_data, (str, os.PathLike)):
        profiling_data = [profiling_data]
    request: Dict[str, Any] = {
        "advice_category": _text("advice_category", advice_category, path=False),
        "target_profile": _text("target_profile", target_profile, path=False),
        "model": _text("model", model),
        "profiling_data": [_text("profiling_data", p) for p in (profiling_data or [])],
    }
    if companion_model is not None:
        request["companion_model"] = _text("companion_model", companion_model)
    if output_dir is not None:
        request["output_dir"] = _text("output_dir", output_dir)
    if model_explorer is not None:
        request["model_explorer"] = _text("model_explorer", model_explorer, path=False)
    for key, value in (("debug_buffer", debug_buffer), ("reference_profiling_data", reference_profiling_data),
                       ("reference_debug_buffer", reference_debug_buffer)):
        if value is not None:
            request[key] = _text(key, value)
    if trace is not None and trace is not False:
        if trace is not True and trace not in ("perfetto", "json"):
            raise MliaUsageError(f"trace must be True, False, 'perfetto' or 'json'; got {trace!r}")
        request["trace"] = "perfetto" if trace is True else trace
    if not isinstance(csv, bool):
        raise MliaUsageError("csv must be True or False")
    if csv:
        request["csv"] = True
    opts = (backend_options or {}).get("neural-technology-profiling-data", {})
    for key in opts:
        if key not in ("etrecord_method", "ticks_per_second", "warmup_executions"):
            raise MliaUsageError(f"unknown backend option '{key}'")
    tps = opts.get("ticks_per_second")
    if tps is not None:
        if isinstance(tps, bool) or not isinstance(tps, (int, float)) or not 1 <= tps <= 1e15:
            raise MliaUsageError("ticks_per_second must be a number of ticks per second from 1 to 1e15")
        request["ticks_per_second"] = tps
    warm = opts.get("warmup_executions")
    if warm is not None:
        if isinstance(warm, bool) or not isinstance(warm, int) or not 0 <= warm <= 999999999:
            raise MliaUsageError("warmup_executions must be a whole number of executions, 0 to 999999999")
        request["warmup_executions"] = warm
    if opts.get("etrecord_method") is not None:
        request["etrecord_method"] = _text("etrecord_method", str(opts["etrecord_method"]), path=False)
    if not request["profiling_data"]:
        raise MliaUsageError("profiling_data is required")
    lib = _load()
    result = ctypes.c_void_p()
    error = ctypes.c_void_p()
    rc = lib.mlia_run_advisor_json(json.dumps(request).encode("utf-8"), ctypes.byref(result),
                                   ctypes.byref(error))
    text = _take(lib, result)
    message = _take(lib, error)
    if rc == 2:
        raise MliaUsageError(message or "usage error")
    if rc != 0:
        raise MliaError(message or "analysis failed")
    return json.loads(text)


def compare(baseline: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
            new: Union[str, os.PathLike],
            threshold: float = 5.0,
            output_dir: Optional[Union[str, os.PathLike]] = None,
            allow_different_programs: bool = False,
            fail_on_regression: bool = False,
            tested_only: bool = False,
            allow_different_settings: bool = False) -> Dict[str, Any]:
    """Compare `mlia check` outputs (`mlia compare`) and return compare.json as a dict.

    The options are those of the command (docs/compare.md):
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
    Errors raise MliaError (or MliaUsageError) carrying the CLI's message.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or threshold < 0 \
            or threshold != threshold or threshold == float("inf"):
        raise MliaUsageError("threshold must be a non-negative number of percent")
    if isinstance(baseline, (str, bytes, os.PathLike)):
        base: Any = _text("baseline", baseline)
    elif isinstance(baseline, (list, tuple)) and baseline:
        base = [_text(f"baseline[{i}]", b) for i, b in enumerate(baseline)]
    else:
        raise MliaUsageError("baseline must be a path or a non-empty list of paths")
    request: Dict[str, Any] = {"baseline": base, "new": _text("new", new), "threshold": float(threshold)}
    if output_dir is not None:
        request["output_dir"] = _text("output_dir", output_dir)
    if allow_different_programs:
        request["allow_different_programs"] = True
    if allow_different_settings:
        request["allow_different_settings"] = True
    if tested_only:
        request["tested_only"] = True
    lib = _load()
    result = ctypes.c_void_p()
    error = ctypes.c_void_p()
    rc = lib.mlia_compare_json(json.dumps(request).encode("utf-8"), ctypes.byref(result), ctypes.byref(error))
    text = _take(lib, result)
    message = _take(lib, error)
    if rc == 2:
        raise MliaUsageError(message or "usage error")
    if rc != 0:
        raise MliaError(message or "comparison failed")
    report = json.loads(text)
    failing = report["gate"]["failing"]
    if fail_on_regression and failing:
        likely = 0 if tested_only else report["summary"]["likely_regressions"] + \
            (1 if report["summary"]["model"] == "likely_regression" else 0)
        detail = f"{likely} likely; " if likely else ""
        raise MliaRegressionError(f"{failing} regression{'s' if failing != 1 else ''} "
                                  f"({detail}threshold {threshold:g} %)", report)
    return report
