"""xalign: an executable companion to five papers on cross-lingual alignment of multilingual encoders.

The package face: one import for scripts outside the notebooks::

    from xalign import load_encoder, alignment_scores, csls_topk

Layers (imports flow one way): ``core`` <- ``data`` <- ``measures`` <- ``papers`` <- ``card`` <- ``book``.
Names are loaded on first use, so ``import xalign`` stays cheap (no torch).
"""

from __future__ import annotations

import importlib
import os as _os

from xalign.core import sources as _sources

_sources.install()  # memo keys hash the source each xalign module was imported with (xalign.core.sources)
if _os.environ.get("XALIGN_PERTURB"):  # the variation harness (xalign check --measure-variation) only
    from xalign.core import perturb as _perturb

    _perturb.install()

__version__ = "0.2.0"

#: public name -> module that defines it
_FACE = {
    "load_encoder": "xalign.core.loading",
    "Encoder": "xalign.core.encoders",
    "csls": "xalign.measures.neighbours",
    "csls_topk": "xalign.measures.csls",
    "cosine_topk": "xalign.measures.neighbours",
    "alignment_scores": "xalign.measures.retrieval",
    "s_weak": "xalign.measures.retrieval",
    "s_strong": "xalign.measures.retrieval",
    "procrustes": "xalign.measures.mapping",
    "fit_alignment": "xalign.measures.mapping",
    "fetch": "xalign.data.datasets",
    "read_dictionary": "xalign.data.readers",
    "read_parallel": "xalign.data.readers",
}

__all__ = [*_FACE, "__version__"]  # noqa: PLE0604


def __getattr__(name: str):
    if name in _FACE:
        return getattr(importlib.import_module(_FACE[name]), name)
    raise AttributeError(f"module 'xalign' has no attribute {name!r}")


def __dir__():
    return __all__
