"""Memo values stored as data only: one ``.npz`` of arrays plus a JSON tree, read with ``allow_pickle=False``.

A pickle runs code when it is loaded, so a memo entry replaced in a shared cache could run code on
every worker that reads it. This format cannot: the file is a zip of ``.npy`` arrays of plain
dtypes (no object arrays) and one array holding a UTF-8 JSON tree that names them. Reading builds
only numbers, strings, lists, tuples, dicts, numpy arrays and scalars, pandas frames and series, and
instances of xalign dataclasses (looked up by name among the dataclasses of ``xalign.*`` modules
already imported, built from their stored fields; nothing else is imported or called).

Supported values (what the library's memoised functions return): ``None``, ``bool``, ``int``,
``float`` (NaN and infinities included), ``str``, ``list``, ``tuple``, ``dict`` (any supported
keys, order kept), numpy arrays of non-object dtype and numpy scalars, pandas ``DataFrame`` and
``Series`` (a ``RangeIndex`` or an index of supported labels; numeric, bool, datetime,
categorical and object columns; ``attrs``), and xalign dataclasses of supported fields. Anything
else raises :class:`TypeError` naming the type before anything is written.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import IO

import numpy as np

TREE = "__tree__"
FORMAT = 1


class _Writer:
    def __init__(self):
        self.arrays: dict[str, np.ndarray] = {}

    def array(self, a: np.ndarray) -> dict:
        if a.dtype.hasobject:
            return {"list": self.encode(a.tolist()), "shape": list(a.shape)}
        name = f"a{len(self.arrays)}"
        self.arrays[name] = a if a.flags.c_contiguous else a.copy(order="C")  # (ascontiguousarray makes 0-d 1-d)
        return {"array": name}

    def encode(self, v):
        import pandas as pd

        if isinstance(v, np.generic):  # first: np.float64 is a float
            if isinstance(v, np.object_):
                raise TypeError("a memo value cannot hold a numpy object scalar")
            return {"scalar": self.array(np.asarray(v))}
        if v is None or isinstance(v, (bool, str)):
            return v
        if isinstance(v, int) and not isinstance(v, bool):
            return v if abs(v) < 2**53 else {"bigint": str(v)}
        if isinstance(v, float):
            return v if np.isfinite(v) else {"float": repr(v)}
        if v is pd.NA:
            return {"na": None}
        if v is pd.NaT:
            return {"nat": None}
        if isinstance(v, np.ndarray):
            return self.array(v)
        if isinstance(v, list):
            return {"list": [self.encode(x) for x in v]}
        if isinstance(v, tuple):
            return {"tuple": [self.encode(x) for x in v]}
        if isinstance(v, dict):
            return {"dict": [[self.encode(k), self.encode(x)] for k, x in v.items()]}
        if isinstance(v, pd.DataFrame):
            return {"frame": {"columns": self.index(v.columns),
                              "data": [self.column(v.iloc[:, i]) for i in range(v.shape[1])],
                              "index": self.index(v.index), "attrs": self.encode(dict(v.attrs))}}
        if isinstance(v, pd.Series):
            return {"series": {"values": self.column(v), "index": self.index(v.index), "name": self.encode(v.name)}}
        if dataclasses.is_dataclass(v) and not isinstance(v, type) and type(v).__module__.startswith("xalign."):
            fields = {f.name: self.encode(getattr(v, f.name)) for f in dataclasses.fields(v) if f.init}
            return {"dataclass": f"{type(v).__module__}:{type(v).__qualname__}", "fields": fields}
        raise TypeError(f"a memo value cannot hold a {type(v).__module__}.{type(v).__qualname__} "
                        "(supported: JSON values, tuples, numpy arrays and scalars, pandas frames and series, "
                        "xalign dataclasses)")

    def column(self, s) -> dict:
        import pandas as pd

        if isinstance(s.dtype, pd.CategoricalDtype):
            return {"categorical": self.array(s.cat.codes.to_numpy()), "categories": self.index(s.cat.categories),
                    "ordered": bool(s.dtype.ordered)}
        if isinstance(s.dtype, np.dtype) and not s.dtype.hasobject:
            return {"values": self.array(s.to_numpy())}
        return {"objects": [self.encode(x) for x in s.tolist()], "dtype": str(s.dtype)}

    def index(self, idx) -> dict:
        import pandas as pd

        if isinstance(idx, pd.RangeIndex):
            return {"range": [int(idx.start), int(idx.stop), int(idx.step)], "name": self.encode(idx.name)}
        if isinstance(idx, pd.MultiIndex):
            return {"multi": self.encode([list(t) for t in idx]), "names": self.encode(list(idx.names))}
        return {"labels": self.column(pd.Series(idx)), "name": self.encode(idx.name)}


class _Reader:
    def __init__(self, arrays):
        self.arrays = arrays

    def array(self, node: dict) -> np.ndarray:
        if "list" in node:
            out = np.empty(len(node["list"]["list"]), object)
            out[:] = self.decode(node["list"])
            return out.reshape(node["shape"])
        return self.arrays[node["array"]]

    def decode(self, node):
        import pandas as pd

        if node is None or isinstance(node, (bool, int, float, str)):
            return node
        if not isinstance(node, dict) or len(node) == 0:
            raise ValueError(f"not a memo value node: {str(node)[:80]}")
        if "na" in node:
            return pd.NA
        if "nat" in node:
            return pd.NaT
        if "bigint" in node:
            return int(node["bigint"])
        if "float" in node:
            return float(node["float"])
        if "scalar" in node:
            return self.array(node["scalar"])[()]
        if "array" in node:
            return self.array(node)
        if "list" in node:
            return [self.decode(x) for x in node["list"]]
        if "tuple" in node:
            return tuple(self.decode(x) for x in node["tuple"])
        if "dict" in node:
            return {_hashable(self.decode(k)): self.decode(x) for k, x in node["dict"]}
        if "frame" in node:
            f = node["frame"]
            index = self.index(f["index"])
            frame = pd.DataFrame({i: self.column(c) for i, c in enumerate(f["data"])}, index=index)
            frame.columns = self.index(f["columns"])
            frame.attrs.update(self.decode(f["attrs"]))
            return frame
        if "series" in node:
            s = node["series"]
            return pd.Series(self.column(s["values"]), index=self.index(s["index"]), name=self.decode(s["name"]))
        if "dataclass" in node:
            return _dataclass(node["dataclass"])(**{k: self.decode(x) for k, x in node["fields"].items()})
        raise ValueError(f"unknown memo value node {sorted(node)}")

    def column(self, node: dict):
        import pandas as pd

        if "categorical" in node:
            return pd.Categorical.from_codes(self.array(node["categorical"]), self.index(node["categories"]),
                                             ordered=node["ordered"])
        if "values" in node:
            return self.array(node["values"])
        values = [self.decode(x) for x in node["objects"]]
        out = np.empty(len(values), object)
        out[:] = values
        return out if node["dtype"] == "object" else pd.array(values, dtype=node["dtype"])

    def index(self, node: dict):
        import pandas as pd

        if "range" in node:
            return pd.RangeIndex(*node["range"], name=self.decode(node["name"]))
        if "multi" in node:
            return pd.MultiIndex.from_tuples([tuple(t) for t in self.decode(node["multi"])],
                                             names=self.decode(node["names"]))
        return pd.Index(self.column(node["labels"]), name=self.decode(node["name"]), tupleize_cols=False)


def _hashable(v):
    return tuple(_hashable(x) for x in v) if isinstance(v, list) else v


def _dataclass(name: str) -> type:
    """The xalign dataclass ``module:qualname``, from modules already imported (nothing is imported)."""
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name) if module_name.startswith("xalign.") else None
    cls = module
    for part in qualname.split("."):
        cls = getattr(cls, part, None)
    if not (isinstance(cls, type) and dataclasses.is_dataclass(cls)):
        raise ValueError(f"{name} is not an imported xalign dataclass")
    return cls


def dump(value, fh: IO[bytes] | str | Path) -> None:
    """Write ``value`` to ``fh`` (a binary file or a path) as an ``.npz`` (see the module notes).

    Raises:
        TypeError: ``value`` holds a type the format cannot store (named).
    """
    writer = _Writer()
    tree = json.dumps({"format": FORMAT, "value": writer.encode(value)}, ensure_ascii=False, allow_nan=False)
    np.savez(fh, **{TREE: np.frombuffer(tree.encode("utf-8"), np.uint8)}, **writer.arrays)


def load(path: str | Path):
    """The value :func:`dump` wrote to ``path``; no code runs (``allow_pickle=False``).

    Raises:
        ValueError, KeyError, OSError, zipfile.BadZipFile, EOFError: the file is not an intact entry.
    """
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    tree = json.loads(arrays.pop(TREE).tobytes().decode("utf-8"))
    if not isinstance(tree, dict) or tree.get("format") != FORMAT:
        raise ValueError(f"memo format {tree.get('format') if isinstance(tree, dict) else '?'} is not {FORMAT}")
    return _Reader(arrays).decode(tree["value"])
