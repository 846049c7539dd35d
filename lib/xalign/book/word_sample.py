"""Why one model's S_weak and S_strong differ between a card and chapter 1: the sample, named.

Both scores ask whether a word's translation beats the other N - 1 pairs of its draw, so they fall as N
grows, and they depend on which words the sentences hold: multilingual-e5-small's S_strong is 97.0 on a quick
card (N = 200 pairs from 150 WMT19 sentences), 85.6 in chapter 1 (N = 5,000 from WMT19 + WMT21) and 83.0 on the
full card (N = 5,000 from WMT19 alone). :func:`word_sample_note` says so on the pages that
show card values, each number with its N, draws, sentences and precision, chapter 1's from its result.
"""

from __future__ import annotations

from xalign.core.markup import text
from xalign.measures.interval_text import with_interval
from xalign.papers.gaschi2022.report import ci95

CHAPTER = "01_weak_strong_alignment"


def card_sample(card: dict) -> str:
    """A card's word sample in words: "N = 200 de-en word pairs, 1 draw, from the first 150 WMT19 sentences,
    bfloat16"."""
    cfg = card.get("config") or {}
    runs = int(cfg.get("word_runs") or 1)
    sentences = cfg.get("word_sentences")
    corpus = str(cfg.get("word_corpus", "")).upper()
    where = f"the first {sentences:,} {corpus} sentences" if sentences else f"all {corpus} sentences"
    precision = str(card.get("precision") or "float32").removeprefix("torch.").split(" ")[0]
    return (f"N = {int(cfg.get('word_n', 0)):,} {text(cfg.get('word_pair', ''))} word pairs, {runs} "
            f"draw{'s' if runs != 1 else ''}, from {text(where)}, {text(precision)}")


def chapter_strong(result: dict | None, model: str) -> dict | None:
    """Chapter 1's best-layer de-en S_strong of ``model`` from its result: ``{value, lo, hi, layer, n, runs,
    precision}`` (points), or None when the result is of another model or has none."""
    if not result or (result.get("params") or {}).get("model") != model:
        return None
    rows = ((result.get("tables") or {}).get("table4") or {}).get("rows") or []
    row = next((r for r in rows if r.get("layer") == "best" and r.get("pair") == "de-en"
                and isinstance(r.get("ours"), (int, float))), None)
    if row is None:
        return None
    p = result["params"]
    runs = int(p.get("runs") or 1)
    half = ci95(float(row.get("ours_std") or 0.0), runs)  # chapter 1's own interval, as its page prints it
    counts = next((r for r in ((result["tables"].get("pair_counts") or {}).get("rows") or []) if r.get("pair") == "de-en"),
                  {})
    layer = row.get("our layer")
    return {"value": float(row["ours"]), "lo": float(row["ours"]) - half, "hi": float(row["ours"]) + half,
            "layer": int(layer) if isinstance(layer, float) and layer.is_integer() else layer,
            "n": counts.get("N used per run") or p.get("n_pairs"), "runs": runs,
            "corpora": " + ".join(c.strip().upper() for c in str(p.get("corpora") or "").split(",") if c.strip()),
            "sentences": counts.get("sentence pairs"),
            "precision": str(result.get("precision") or "").removeprefix("torch.")}


def word_sample_note(cards: list[dict], chapter1: dict | None) -> str:
    """One paragraph (Markdown) naming each card's S_weak / S_strong sample and, where chapter 1 ran the same
    model, its S_strong with its own sample: why the numbers differ. "" when no card has word measures."""
    with_words = [c for c in cards if "s_strong" in (c.get("measures") or {})]
    if not with_words:
        return ""
    samples = {card_sample(c) for c in with_words}
    parts = [("S_weak and S_strong ask whether a word's translation beats the other N - 1 pairs of its draw, so "
              "both fall as N grows, and they depend on which words the sentences hold; a card's values compare with "
              "another's drawn the same way only. "
              + (("This card: " if len(with_words) == 1 else "These cards: ") + next(iter(samples)) + "."
                 if len(samples) == 1 else
                 "These cards: " + "; ".join(f"{text(c['model'])}: {card_sample(c)}" for c in with_words) + "."))]
    for c in with_words:
        ch = chapter_strong(chapter1, c["model"])
        if ch is None:
            continue
        best = c["measures"]["s_strong"].get("main_score")
        layer = c["measures"]["s_strong"].get("best_layer")
        here = (f" (this card: {best:.1f} at layer {text(layer)})" if isinstance(best, (int, float)) else "")
        pool = (f" from {ch['sentences']:,} {text(ch['corpora'])} sentence pairs" if ch.get("sentences") and ch["corpora"]
                else "")
        parts.append(f"Chapter 1 draws N = {int(ch['n']):,} de-en word pairs per run{pool}, {ch['runs']} runs, in "
                     f"{text(ch['precision'])}: {text(c['model'])}'s S_strong there is "
                     f"{with_interval(ch['value'], ch['lo'], ch['hi'])} at layer {text(ch['layer'])}{here}.")
    return " ".join(parts) + "\n"
