"""What a result *is* versus how, where and when it was made.

A chapter result (:mod:`xalign.book.results`) or a card (:mod:`xalign.card.battery`) records both:
its identity (model, revision, parameters, data files by sha256, code, packages, tables or scores)
and its provenance (wall time, when it finished, the machine, and where each data file came from
in this process: ``"cache"``, ``"mirror"`` or ``"download"``). A reader wants the provenance, but
two runs of the same thing must compare equal whatever the cache held or the clock said: a cold
run fetches its data from the mirror, a warm one (or a worker started after it) reads the same
bytes from the cache. :func:`result_identity` is the one place that separates the two; anything
that asks "is this the same result?" compares identities (the card cluster's test, ...).
"""

from __future__ import annotations

import copy

#: top-level fields of a result or card that say how, where and when it was made, not what it is:
#: timings and resources (they vary from run to run), the finishing time, the machine
#: (:func:`xalign.core.machine.machine_record`)
RUN_FIELDS = ("wall_time_s", "finished", "step_seconds", "cpu_time_s", "system_time_s", "peak_rss_mib",
              "page_faults", "machine")
#: fields of a data-file record (:func:`xalign.data.datasets.provenance`) that say where this process
#: got the file (cache, mirror, download); the file itself is named by its data set, name and sha256
DATA_FILE_FIELDS = ("origin",)


def result_identity(result: dict) -> dict:
    """A copy of a result or card without its provenance (:data:`RUN_FIELDS`, and :data:`DATA_FILE_FIELDS`
    of every record in its ``data`` list): two runs of the same thing give equal identities, cold or warm,
    serial or on a cluster, on any machine. ``result`` is not changed."""
    if not isinstance(result, dict):
        raise TypeError(f"result_identity: expected a result or card dict, got {type(result).__name__}")
    out = {k: copy.deepcopy(v) for k, v in result.items() if k not in RUN_FIELDS}
    if isinstance(out.get("data"), list):
        out["data"] = [{k: v for k, v in d.items() if k not in DATA_FILE_FIELDS} if isinstance(d, dict) else d
                       for d in out["data"]]
    return out
