"""``xalign compare --mteb FILE``: a card's Tatoeba bitext score beside an MTEB result file, language by language.

An MTEB result file for Tatoeba (``Tatoeba.json``, MTEB >= 1.11) holds, per evaluation split,
one entry per language pair::

    {"task_name": "Tatoeba", "mteb_version": "...", "dataset_revision": "...",
     "scores": {"test": [{"hf_subset": "deu-eng", "main_score": 0.97, "f1": 0.97,
                          "accuracy": 0.98, "precision": ..., "recall": ..., "languages": [...]}]}}

with scores in [0, 1] (the card's are x 100). :func:`read_mteb_bitext` reads and checks it;
:func:`compare_with_mteb` sets each of the card's Tatoeba languages beside the file's entry;
:func:`setup_differences` names what differs between the two set-ups as far as the card's
receipt and the file tell (sentences, layer and pooling, prefix, direction, scoring, languages).
The comparison is shown as it comes out: nothing is adjusted toward the published numbers.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd

from xalign.core.markup import code, text
from xalign.measures.interval_text import interval

#: sentences per language in MTEB's Tatoeba (its task description: 1,000 English-aligned pairs per language)
MTEB_TATOEBA_N = 1000
#: the measure the comparison reads from a card
MEASURE = "mteb_bitext_f1"
_NUMBERS = ("main_score", "f1", "accuracy")


class MTEBFileError(ValueError):
    """An MTEB result file that cannot be read as a Tatoeba result (the message names the file and what is wrong)."""


def read_mteb_bitext(path: str | Path, split: str = "test") -> dict:
    """Read an MTEB Tatoeba result file.

    Args:
        path: the JSON file (``results/<model>/<revision>/Tatoeba.json``).
        split: the evaluation split to read (MTEB's Tatoeba has ``test``).

    Returns:
        ``{"path", "task_name", "mteb_version", "dataset_revision", "split", "subsets"}``;
        ``subsets``: hf_subset (``deu-eng``) -> ``{"main_score", "f1", "accuracy", ...}`` in [0, 1]
        (precision and recall too where the file has them).

    Raises:
        MTEBFileError: not readable JSON, not an object, another task, no ``scores.<split>`` list,
            or an entry without ``hf_subset``, ``main_score``, ``f1`` or ``accuracy`` as a number in
            [0, 1] (the message names the file, the entry and the field).
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise MTEBFileError(f"{path}: no such MTEB result file") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MTEBFileError(f"{path}: not a readable JSON file: {exc}") from None
    if not isinstance(data, dict):
        raise MTEBFileError(f"{path}: expected a JSON object (an MTEB result), got a {type(data).__name__}")
    task = data.get("task_name", data.get("mteb_dataset_name"))
    if task is not None and task != "Tatoeba":
        raise MTEBFileError(f"{path}: a result of MTEB task {task!r}; the card's bitext score is comparable "
                            "with task 'Tatoeba' only")
    scores = data.get("scores")
    if not isinstance(scores, dict):
        raise MTEBFileError(f"{path}: no 'scores' object (an MTEB result file has scores.{split}: a list with "
                            "one entry per hf_subset)")
    if split not in scores:
        raise MTEBFileError(f"{path}: no scores.{split!r} (splits in the file: {', '.join(map(str, scores)) or 'none'})")
    entries = scores[split]
    if not isinstance(entries, list):
        raise MTEBFileError(f"{path}: scores.{split} is a {type(entries).__name__}, expected a list of entries with "
                            "hf_subset, main_score, f1, accuracy (the format of MTEB 1.11 and later)")
    subsets: dict[str, dict] = {}
    for i, entry in enumerate(entries):
        where = f"{path}: scores.{split}[{i}]"
        if not isinstance(entry, dict):
            raise MTEBFileError(f"{where} is a {type(entry).__name__}, expected an object")
        subset = entry.get("hf_subset")
        if not isinstance(subset, str) or not subset:
            raise MTEBFileError(f"{where} has no 'hf_subset' (e.g. 'deu-eng')")
        where += f" ({subset})"
        for key in _NUMBERS:
            value = entry.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise MTEBFileError(f"{where} has no number '{key}'")
            if not 0.0 <= value <= 1.0:
                raise MTEBFileError(f"{where}: '{key}' = {value} is outside [0, 1] (MTEB writes shares, not percent)")
        if subset in subsets:
            raise MTEBFileError(f"{where}: hf_subset {subset!r} appears twice")
        subsets[subset] = {k: float(v) for k, v in entry.items()
                           if k in (*_NUMBERS, "precision", "recall") and isinstance(v, (int, float))}
    if not subsets:
        raise MTEBFileError(f"{path}: scores.{split} is empty")
    return {"path": str(path), "task_name": task, "mteb_version": data.get("mteb_version"),
            "dataset_revision": data.get("dataset_revision"), "split": split, "subsets": subsets}


def subset_of(lang: str) -> str:
    """MTEB's Tatoeba subset of a card language: ``de`` -> ``deu-eng`` (the mirror's LASER codes)."""
    from xalign.data.sentdata import tatoeba_iso3

    return f"{tatoeba_iso3(lang)}-eng"


def _card_bitext(card: dict) -> dict:
    r = card.get("measures", {}).get(MEASURE)
    if not r or not r.get("layers") or "per_language" not in r["layers"][0]:
        raise MTEBFileError(f"the card of {card.get('model')!r} has no MTEB bitext score ({MEASURE}): it was written "
                            "before the card had one; run `xalign card` for it again")
    return r


def compare_with_mteb(card: dict, mteb: dict) -> pd.DataFrame:
    """The card's Tatoeba languages beside the MTEB file's entries, x 100.

    Args:
        card: a card dictionary with the ``mteb_bitext_f1`` measure.
        mteb: :func:`read_mteb_bitext`'s result.

    Returns:
        One row per card language (``Language``, ``MTEB subset``, card ``F1``, its 95% CI, ``accuracy``
        and ``n``, MTEB's ``F1`` (main score) and ``accuracy``, ``F1 difference`` = card - MTEB; MTEB
        cells empty where the file has no entry), then the mean over the languages both have.
    """
    per_language = _card_bitext(card)["layers"][0]["per_language"]
    rows = []
    for lang, c in per_language.items():
        m = mteb["subsets"].get(subset_of(lang))
        rows.append({"Language": lang, "MTEB subset": subset_of(lang), "Card F1": c["f1"],
                     "Card F1 95% CI": interval(c["lo"], c["hi"]), "Card accuracy": c["accuracy"], "Card n": c["n"],
                     "MTEB F1 (main score)": 100 * m["main_score"] if m else None,
                     "MTEB accuracy": 100 * m["accuracy"] if m else None,
                     "F1 difference (card - MTEB)": c["f1"] - 100 * m["main_score"] if m else None})
    frame = pd.DataFrame(rows)
    both = frame.dropna(subset=["MTEB F1 (main score)"])
    if len(both):
        mean = {k: both[k].mean() for k in ("Card F1", "Card accuracy", "MTEB F1 (main score)", "MTEB accuracy",
                                            "F1 difference (card - MTEB)")}
        frame = pd.concat([frame, pd.DataFrame([{"Language": f"mean ({len(both)} in both)", "MTEB subset": "",
                                                 "Card F1 95% CI": "", "Card n": int(both["Card n"].sum()),
                                                 **mean}])], ignore_index=True)
    return frame


def setup_differences(card: dict, mteb: dict) -> list[dict]:
    """What differs between the card's set-up and the MTEB run's, as far as the two files tell.

    Args:
        card: a card dictionary with the ``mteb_bitext_f1`` measure and its receipt.
        mteb: :func:`read_mteb_bitext`'s result.

    Returns:
        One ``{"aspect", "card", "mteb", "verdict"}`` per aspect (sentences, layer and pooling, prefix,
        direction, scoring, languages, data, model); ``verdict``: ``"differs"``, ``"same"`` or
        ``"unknown"`` (the MTEB file does not record it).
    """
    r = _card_bitext(card)
    layer = r["layers"][0]
    receipt = r.get("receipt") or {}
    langs = list(layer["per_language"])
    ns = sorted({v["n"] for v in layer["per_language"].values()})
    out = []

    def add(aspect, card_side, mteb_side, verdict):
        out.append({"aspect": aspect, "card": card_side, "mteb": mteb_side, "verdict": verdict})

    n_text = f"{ns[0]}" if len(ns) == 1 else f"{ns[0]}-{ns[-1]}"
    add("sentences", f"{n_text} sampled pairs per language, each searched among its own {n_text}",
        f"{MTEB_TATOEBA_N:,} pairs per language, each searched among {MTEB_TATOEBA_N:,}",
        "differs" if ns[0] < MTEB_TATOEBA_N else "same")
    if ns[0] < MTEB_TATOEBA_N:
        out[-1]["card"] += " (fewer candidates: retrieval is easier, the card's F1 tends to be higher)"
    pooling = "; ".join(g["pooling"] for g in receipt.get("pooling", []))
    e5 = "e5" in str(card.get("model", "")).lower()
    # the model's own embedding: the card's "out", or for the e5 family (mean-pooled) its last layer's mean
    own = layer["layer"] == "out" or (e5 and pooling.startswith("mean over"))
    add("layer and pooling", f"layer {layer['layer']}: {pooling or 'not recorded'}",
        "the model's own sentence embedding as MTEB's model wrapper produces it (not recorded in the file)",
        "same" if own else "unknown")
    prefix = receipt.get("prefix", None)
    prefix_text = "not recorded" if prefix is None else (repr(prefix) if prefix else "none")
    if receipt.get("template"):
        prefix_text += f"; template {receipt['template']!r}"
    mteb_prefix = "not recorded in the file (MTEB's wrapper adds the model's registered prompt, if any)"
    if e5:
        mteb_prefix += "; the e5 model cards ask for 'query: ' on symmetric tasks such as bitext mining"
    add("prefix or template", prefix_text, mteb_prefix, "differs" if e5 and prefix not in (None, "query: ") else "unknown")
    add("direction", "xx->en: each xx sentence queries the en sentences",
        "xx->en: sentence1 (the hf_subset's first language) queries sentence2 (eng)", "same")
    main_is_f1 = all(abs(v["main_score"] - v["f1"]) < 1e-9 for v in mteb["subsets"].values())
    add("scoring", "cosine top-1; support-weighted F1 (scikit-learn average='weighted')",
        "main_score = f1" if main_is_f1 else "main_score is not the f1 in some entries",
        "same" if main_is_f1 else "differs")
    card_subsets = {subset_of(x) for x in langs}
    missing = sorted(card_subsets - set(mteb["subsets"]))
    add("languages", f"{len(langs)}: {', '.join(langs)}" + (f" (not in the file: {', '.join(missing)})" if missing else ""),
        f"{len(mteb['subsets'])} subsets; MTEB's task score averages all of them",
        "same" if set(mteb["subsets"]) == card_subsets else "differs")
    files = [f"{d['file']} {d['sha256'][:12]}" for d in receipt.get("data", [])]
    add("data", ", ".join(files) or "not recorded",
        f"mteb/tatoeba-bitext-mining revision {mteb.get('dataset_revision') or 'not recorded'}", "unknown")
    meta = Path(mteb["path"]).with_name("model_meta.json")
    if meta.is_file():
        try:
            info = json.loads(meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            info = {}
        if isinstance(info, dict) and info.get("name"):
            add("model", f"{card['model']} revision {card.get('revision')}",
                f"{info['name']} revision {info.get('revision')} (model_meta.json)", model_verdict(card, info))
    return out


def model_verdict(card: dict, info: dict) -> str:
    """Whether a card and an MTEB ``model_meta.json`` are of one model: "same" only when the full names and
    the revisions are equal ("unknown" when the names are but a revision is not recorded); the last name
    part alone (``someone-else/tiny`` and a local ``.../tiny``) is never the same model."""
    if str(card.get("model")) not in (str(info.get("name")), str(info.get("xalign_model"))):  # xalign_model: --mteb-out
        return "differs"
    mine, theirs = card.get("revision"), info.get("revision")
    if not mine or not theirs:
        return "unknown"
    return "same" if str(mine) == str(theirs) else "differs"


def _fmt(v) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else (f"{v:.1f}" if isinstance(v, float) else text(v))


def mteb_comparison_markdown(card: dict, mteb: dict) -> str:
    """The comparison as Markdown: the languages table, then the set-up differences."""
    frame = compare_with_mteb(card, mteb)
    cols = list(frame.columns)
    lines = [f"# {code(card['model'])} beside MTEB's Tatoeba ({text(mteb['path'])})", "",
             (f"Card: MTEB's bitext score (weighted F1 of xx->en cosine top-1, x 100) on the card's own sample; "
              f"MTEB file: split {text(mteb['split'])}, mteb {text(mteb.get('mteb_version') or 'version not recorded')}. "
              "Shown as they come out; the set-up differences below explain gaps, nothing is adjusted."), "",
             "| " + " | ".join(text(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    for _, row in frame.iterrows():
        lines.append("| " + " | ".join(_fmt(row[c]) for c in cols) + " |")
    lines += ["", "## Set-up differences", "", "| Aspect | Card | MTEB file | Verdict |", "|---|---|---|---|"]
    for d in setup_differences(card, mteb):
        lines.append(f"| {text(d['aspect'])} | {text(d['card'])} | {text(d['mteb'])} | **{text(d['verdict'])}** |")
    return "\n".join(lines) + "\n"


def pick_card(cards: list[dict], mteb_path: str | Path, model: str | None = None) -> dict:
    """The card to set beside an MTEB file: ``model`` if given, else the model named in a
    ``model_meta.json`` beside the file, else the only card.

    Raises:
        MTEBFileError: no card, no card of ``model``, or several cards and nothing to choose by.
    """
    from xalign.card.battery import slug

    if not cards:
        raise MTEBFileError("no model cards yet: run `xalign card MODEL` first")
    names = [c["model"] for c in cards]
    if model is None:
        meta = Path(mteb_path).with_name("model_meta.json")
        try:
            named = json.loads(meta.read_text(encoding="utf-8")).get("name") if meta.is_file() else None
        except (OSError, ValueError, AttributeError):
            named = None
        if named and str(named) in names:  # the full name (a last name part alone is another model's too)
            model = str(named)
        elif len(cards) == 1:
            return cards[0]  # its model row says whether it is the file's model (model_verdict)
        else:
            raise MTEBFileError(f"several cards ({', '.join(names)}): name one with --model"
                                + (f" (model_meta.json names {named!r}, no card has that full name)" if named else ""))
    exact = [c for c in cards if model in (c["model"], slug(c["model"]))]
    by_tail = [c for c in cards if c["model"].split("/")[-1] == model]
    if exact or len(by_tail) == 1:
        return (exact or by_tail)[0]
    if by_tail:
        raise MTEBFileError(f"{model!r} is the last part of several cards' names ({', '.join(c['model'] for c in by_tail)}): "
                            "give the full name with --model")
    raise MTEBFileError(f"no card of {model!r}; cards: {', '.join(names)}")
