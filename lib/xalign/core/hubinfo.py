"""What a model checkpoint allows and whether the Hugging Face hub can be reached (to fail fast offline)."""

from __future__ import annotations

import os


def usable_positions(config) -> int:
    """Tokens a model can take: its position table, less RoBERTa's padding offset (XLM-R: 514 -> 512)."""
    positions = int(getattr(config, "max_position_embeddings", 512) or 512)
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        positions -= int(getattr(config, "pad_token_id", 1) or 1) + 1
    return positions


def hub_reachable(timeout: float = 1.5) -> bool:
    """False when ``HF_HUB_OFFLINE`` is set or huggingface.co cannot be reached (so loading fails fast)."""
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        return False
    import socket

    try:
        socket.create_connection(("huggingface.co", 443), timeout=timeout).close()
        return True
    except OSError:
        return False
