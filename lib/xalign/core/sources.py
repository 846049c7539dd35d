"""The source text of each xalign module as this process imported it (what it runs, not what is on disk now).

Memo keys hash the source of the modules that compute a value (:func:`xalign.core.memo.code_digest`).
Read from disk when the key is made, an edit to the library while a chapter runs would file a value
computed by the old code under the new code's key, and every later run would be served that stale
value. :func:`install` (done by ``import xalign``) records each ``xalign.*`` module's source as it is
imported; :func:`imported_source` hands it back, :func:`source_of` that of a module, class or function.
"""

from __future__ import annotations

import ast
import importlib.machinery
import importlib.util
import inspect
import sys

_SOURCES: dict[str, str] = {}  # module name -> its source text (universal newlines) as imported


class _RecordingLoader(importlib.machinery.SourceFileLoader):
    """A source file loader that keeps the source text it executes."""

    def exec_module(self, module) -> None:
        _SOURCES[module.__name__] = importlib.util.decode_source(self.get_data(self.path))
        super().exec_module(module)


class _RecordingFinder:
    """Finds ``xalign.*`` modules as the path finder does, with a loader that records their source."""

    @classmethod
    def find_spec(cls, name: str, path=None, target=None):
        if not name.startswith("xalign."):
            return None
        spec = importlib.machinery.PathFinder.find_spec(name, path, target)
        if spec is not None and type(spec.loader) is importlib.machinery.SourceFileLoader:
            spec.loader = _RecordingLoader(spec.loader.name, spec.loader.path)
        return spec


def install() -> None:
    """Record the source of every ``xalign.*`` module imported from now on (idempotent)."""
    if _RecordingFinder not in sys.meta_path:
        sys.meta_path.insert(0, _RecordingFinder)


def imported_source(module_name: str) -> str | None:
    """The source text of ``module_name`` as imported, or None when it was imported before
    :func:`install` or not from a source file."""
    return _SOURCES.get(module_name)


def source_of(obj) -> str:
    """The source of a module, or of a top-level class or function (decorators included), as imported.

    Falls back to :func:`inspect.getsource` (the file as it is now) for what was not recorded and for
    nested definitions.
    """
    if inspect.ismodule(obj):
        text = imported_source(obj.__name__)
        return text if text is not None else inspect.getsource(obj)
    module = inspect.getmodule(obj)
    text = imported_source(module.__name__) if module is not None else None
    name = getattr(obj, "__qualname__", None)
    if text is None or name is None or "." in name:
        return inspect.getsource(obj)
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            return "".join(text.splitlines(keepends=True)[first - 1 : node.end_lineno])
    return inspect.getsource(obj)  # defined by other means (an assignment, exec): as on disk
