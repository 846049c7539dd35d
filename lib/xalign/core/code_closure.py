"""The code a function actually runs: its own definition and the xalign definitions it reaches.

A memo key names the code that computed its value (:func:`xalign.core.memo.code_digest`). Hashing
whole modules re-keyed a value on any edit of its module (an import-only edit of one module re-ran a
six-minute computation); this module finds, statically, the top-level definitions a function refers
to and follows them within ``xalign``:

- a name in a definition is resolved in its module: a top-level ``def``, ``class`` or assignment
  there, or a binding made by an ``import`` (at the top of the module or inside the definition);
- ``module.name`` chains on an imported module resolve to that module's definition of ``name``;
- a class counts with its whole body (every method), a method or a nested function (a lambda, a
  ``compute`` closure) with the top-level definition holding it.

Each definition counts as its syntax tree without docstrings (comments, blank lines, moves and
docstrings do not re-key a value), from the source the module was imported with
(:mod:`xalign.core.sources`). Calls through an object (``enc.encode``) cannot be seen statically:
pass the object's class as a root as well. A root outside ``xalign`` counts with its own source only.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import sys
from collections.abc import Iterable
from types import ModuleType

from xalign.core.sources import source_of

OURS = "xalign"

_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_PARSED: dict[tuple[str, int], tuple[dict, dict]] = {}  # (module, hash of its source) -> (definitions, bindings)


#: the memo machinery itself: the code that stores a value, not the code that computes it
NOT_FOLLOWED = ("xalign.core.memo", "xalign.core.code_closure", "xalign.core.sources")


def _ours(module_name: str) -> bool:
    return (module_name == OURS or module_name.startswith(OURS + ".")) and module_name not in NOT_FOLLOWED


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(node, (*_DEFINITIONS, ast.Module)) and isinstance(body, list) and body
                and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return tree


def _is_submodule(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, AttributeError, ValueError):  # the parent is a module, not a package
        return False


def _import_bindings(nodes: Iterable[ast.AST], package: str) -> dict[str, tuple[str, str | None]]:
    """name -> (module, attribute or None for the module itself) for the imports among ``nodes``."""
    out: dict[str, tuple[str, str | None]] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    out[a.asname] = (a.name, None)
                else:
                    out[a.name.split(".")[0]] = (a.name.split(".")[0], None)
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else node.module
            for a in node.names:
                if a.name == "*":
                    continue
                sub = f"{base}.{a.name}"
                is_module = sub in sys.modules or (_ours(sub) and _is_submodule(sub))
                out[a.asname or a.name] = (sub, None) if is_module else (base, a.name)
    return out


def _module_index(module_name: str) -> tuple[dict[str, list[ast.AST]], dict[str, tuple[str, str | None]]]:
    """(top-level name -> its defining statements, top-level import bindings) of a module, as imported."""
    module = sys.modules.get(module_name) or importlib.import_module(module_name)
    text = source_of(module)
    key = (module_name, hash(text))
    if key not in _PARSED:
        tree = _strip_docstrings(ast.parse(text))  # docstrings have no names to follow
        defs: dict[str, list[ast.AST]] = {}
        for node in tree.body:
            if isinstance(node, _DEFINITIONS):
                defs.setdefault(node.name, []).append(node)
            elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for t in targets:
                    for n in ast.walk(t):
                        if isinstance(n, ast.Name):
                            defs.setdefault(n.id, []).append(node)
        package = module.__spec__.parent if module.__spec__ else module_name.rpartition(".")[0]
        _PARSED[key] = (defs, _import_bindings(tree.body, package))
    return _PARSED[key]


def _attribute_chain(node: ast.Attribute) -> list[str] | None:
    """``a.b.c`` -> ["a", "b", "c"]; None when the chain does not start at a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id, *reversed(parts)]


_Target = tuple[str, str | None]  # (module, top-level name), or (module, None) for a module counted whole
_EDGES: dict[tuple[str, int, str], tuple[str, list[_Target]]] = {}  # definition -> (its text, what it refers to)


def _binding_targets(module_name: str, attr: str | None, rest: list[str]) -> list[_Target]:
    """What ``module_name[.attr][.rest...]`` refers to, as closure targets (none outside xalign)."""
    if not _ours(module_name):
        return []
    if attr is not None:
        return [(module_name, attr)]
    if rest:
        sub = f"{module_name}.{rest[0]}"
        return _binding_targets(sub, None, rest[1:]) if sub in sys.modules else [(module_name, rest[0])]
    return [(module_name, None)]


def _definition(module_name: str, name: str) -> tuple[str, list[_Target]]:
    """(text, targets) of one top-level name of a module: its statements' syntax trees and the names they use."""
    defs, bindings = _module_index(module_name)
    key = (module_name, hash(source_of(sys.modules[module_name])), name)
    if key in _EDGES:
        return _EDGES[key]
    if name in defs:
        nodes = defs[name]
        module = sys.modules[module_name]
        package = module.__spec__.parent if module.__spec__ else module_name.rpartition(".")[0]
        targets: list[_Target] = []
        for node in nodes:
            local = _import_bindings([n for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))],
                                     package)
            scope = {**bindings, **local} if local else bindings
            chained: set[int] = set()
            for n in ast.walk(node):
                if id(n) in chained or not isinstance(n, (ast.Attribute, ast.Name)):
                    continue
                chain = [n.id] if isinstance(n, ast.Name) else _attribute_chain(n)
                if chain is None:
                    continue
                inner = n
                while isinstance(inner, ast.Attribute):  # the inner links are part of this chain
                    inner = inner.value
                    chained.add(id(inner))
                head, rest = chain[0], chain[1:]
                if head in scope:
                    target, attr = scope[head]
                    targets += _binding_targets(target, attr, rest if attr is None else [])
                elif head in defs:
                    targets.append((module_name, head))
        out = ("\n".join(ast.dump(n) for n in nodes), targets)
    elif name in bindings:  # re-exported: follow the import
        out = (repr(bindings[name]), _binding_targets(*bindings[name], []))
    else:  # not found in the source (made by exec, a star import): the whole module
        out = ("", [(module_name, None)])
    _EDGES[key] = out
    return out


def _closure_texts(roots: Iterable[_Target]) -> dict[_Target, str]:
    """Every target reachable from ``roots`` -> its text (a definition's trees, or a whole module's)."""
    seen: dict[_Target, str] = {}
    todo = [t for t in roots if _ours(t[0])]
    while todo:
        target = todo.pop()
        if target in seen:
            continue
        module_name, name = target
        if name is None:
            seen[target] = ast.dump(_strip_docstrings(ast.parse(source_of(sys.modules[module_name]))))
            continue
        text, refs = _definition(module_name, name)
        seen[target] = text
        todo += [r for r in refs if r not in seen and _ours(r[0])]
    return seen


def _top_level(obj) -> tuple[str, str] | None:
    """(module, top-level name) holding a function or class (a method, a closure: its outermost definer)."""
    obj = inspect.unwrap(getattr(obj, "__func__", obj))
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not module or not qualname or module not in sys.modules:
        return None
    return module, qualname.split(".")[0]


def in_xalign(obj) -> bool:
    """Is ``obj`` (a function, a closure, a class) defined in an xalign module?"""
    where = _top_level(obj)
    return where is not None and _ours(where[0])


def code_digest(roots: Iterable[ModuleType | object]) -> str:
    """sha256 of the code ``roots`` run: each root function or class with the xalign definitions it reaches.

    A module counts whole. A root outside ``xalign`` (a test's class) counts with its own source.
    Names are resolved statically (see the module notes); unknown names (builtins, locals) are skipped.
    """
    targets: list[_Target] = []
    outside: list[str] = []
    for obj in roots:
        if isinstance(obj, ModuleType):
            if _ours(obj.__name__):
                targets.append((obj.__name__, None))
            else:
                outside.append(f"{obj.__name__}\n{source_of(obj)}")
            continue
        where = _top_level(obj)
        if where is not None and _ours(where[0]):
            targets.append(where)
        else:
            try:
                text = inspect.getsource(obj)
            except (OSError, TypeError):
                text = ""
            outside.append(f"{getattr(obj, '__module__', '')}.{getattr(obj, '__qualname__', repr(obj))}\n{text}")
    h = hashlib.sha256()
    for (module_name, name), text in sorted(_closure_texts(targets).items(), key=lambda kv: (kv[0][0], kv[0][1] or "")):
        h.update(f"{module_name}:{name or '*'}\n{text}\n".encode())
    for text in sorted(outside):
        h.update(text.encode())
    return h.hexdigest()
