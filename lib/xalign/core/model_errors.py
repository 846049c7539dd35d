"""The errors of a model that cannot be loaded as it is; each names the folder or file and what is wrong.

All are :class:`OSError` subclasses of :class:`ModelFolderError`, which ``xalign run``/``book``
(parameter checks) and ``xalign card`` turn into a one-line message.
"""

from __future__ import annotations


class ModelFolderError(OSError):
    """A model given as a local path that is missing, not a folder, or lacks what a model needs."""


class RemoteCodeError(ModelFolderError):
    """A model whose configuration needs the Python code shipped with it (``auto_map``), which xalign never runs."""


class ModelWeightsError(ModelFolderError):
    """A load that would leave model weights random, or checkpoint weights unused (the keys are named)."""
