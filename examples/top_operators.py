"""Run `mlia check` from Python and list where the time goes.

    python3 examples/top_operators.py MODEL.etrecord RUN.etdump [MODEL.pte]

From a checkout after `make` (or with the package installed by pip): the
result is the same document as mlia-output.json, as a dict.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import mlia  # noqa: E402


def main(etrecord, etdump, pte=None):
    result = mlia.run_advisor(model=etrecord, profiling_data=[etdump], companion_model=pte)
    perf = result["results"][0]
    # model metrics come as p50/min/max triples: key them by name and statistic
    metrics = {m["name"]: m for m in perf["metrics"] if m.get("qualifiers", {}).get("statistic", "p50") == "p50"}
    print(f"status {perf['status']}, inference {metrics['inference_time']['value']:.4g} ms")
    names = {e["id"]: e["name"] for e in perf["entities"]}
    rows = []
    for b in perf["breakdowns"]:
        for m in b["metrics"]:
            q = m.get("qualifiers", {})
            if m["name"] == "execution_time" and q.get("statistic", "p50") == "p50" and \
                    b["entity_id"].startswith("source_operator/"):
                rows.append((m["value"], q.get("attribution", ""), names[b["entity_id"]], b["entity_id"]))
    for value, attribution, name, entity in sorted(rows, reverse=True)[:5]:
        print(f"{value:10.4g} ms  {attribution:9}  {name}  ({entity.rsplit('/', 1)[-1]})")


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
