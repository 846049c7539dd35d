"""Reader pages carry no internals: no Python ``None``, no paper package names, no machine or build
wording, no commit hashes or targets; every citation and every repeated number comes from one source."""

import json
import re
from pathlib import Path

import pytest

from xalign.book import pages as PG
from xalign.card.sizes import sample_size
from xalign.papers import meta

ROOT = Path(__file__).resolve().parents[1]
#: the papers' own text (title page, authors), beside the checkout when the shared data is there
PAPERS_TEXT = ROOT.parent / "shared" / "papers"
#: wording about the computer or the build that a reader should not meet
#: (machine translation is a method, not a computer)
MACHINE = re.compile(r"\bmachines?\b(?![- ]translat)|cannot reach", re.IGNORECASE)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict[str, str]:
    """Every generated reader page's Markdown, built from the committed reference results and cards (the
    conftest points ``results/`` at an empty folder, so the pages show the committed run)."""
    from xalign.book.card_page import book_cards, cards_markdown, compare_page_markdown, full_cards_markdown
    from xalign.book.landing import landing_markdown
    from xalign.book.model_compare import paired_page_markdown
    from xalign.book.publish import run_it_markdown
    from xalign.book.status import status_markdown
    from xalign.card.precision import precision_markdown
    from xalign.data.datasets import datasets_markdown

    tmp = tmp_path_factory.mktemp("pages")
    cards = book_cards()
    chapters = {meta.metadata(p)["chapter"] for p in meta.PAPERS}
    return {"landing": landing_markdown("default", public=False), "ledger": status_markdown("default", labels=set()),
            "performance": PG.performance_markdown("default"), "card timings": PG.card_timings_markdown(),
            "book timings": PG.book_timings_markdown(), "build time": PG.build_time_markdown(),
            "compare": (compare_page_markdown(cards) + precision_markdown(cards) + paired_page_markdown(cards)
                        + cards_markdown(cards, tmp / "cards", "/cards")),
            "full card": full_cards_markdown(tmp / "full", "/full"), "data": datasets_markdown(),
            "errata": PG.errata_markdown(ROOT / "book" / "errata"),
            **{f"run it {c}": run_it_markdown(c, "", {"profile": "default", "wall_time_s": 600}) for c in chapters}}


def test_no_python_none_on_any_generated_page(generated):
    for name, text in generated.items():
        found = [m.group(0) for m in re.finditer(r".{0,40}\bNone\b.{0,40}", text)]
        assert not found, f"{name}: Python None in the text: {found[:3]}"


def test_the_full_card_says_all_with_the_count(generated):
    text = generated["full card"]
    n = json.loads((ROOT / "reference" / "cards" / "full" / "multilingual-e5-small.json").read_text())
    total = n["measures"]["tatoeba_nn_xx-en"]["layers"][0]["n"]
    assert f"all pairs per language ({total:,} in all)" in text
    assert "all test rows per language" in text and "from all de-en wmt19 sentences" in text


def test_no_package_names_in_headings(generated):
    ids = set(meta.PAPERS)  # gaschi2022, liu2020, ... and the ledger's tags in brackets: "(gaschi)", "(liu)"
    tags = {f"({meta.metadata(p).get('tag')})" for p in meta.PAPERS}
    for name, text in generated.items():
        for line in text.splitlines():
            if line.startswith("#"):
                assert not set(re.findall(r"[A-Za-z0-9_]+", line)) & ids, f"{name}: a package name in {line!r}"
                assert not any(t in line.lower() for t in tags), f"{name}: a package tag in the heading {line!r}"


def test_no_machine_or_build_wording(generated):
    for name, text in generated.items():
        found = [m.group(0) for m in re.finditer(r".{0,40}(?:" + MACHINE.pattern + r").{0,40}", text, re.IGNORECASE)]
        assert not found, f"{name}: machine wording: {found[:3]}"
    for page in ("performance", "ledger", "intro"):
        text = (ROOT / "book" / f"{page}.md").read_text(encoding="utf-8")
        assert not re.search(r"build machine|cannot reach|target is", text, re.IGNORECASE), page


def test_no_commit_hashes_or_targets_on_the_performance_page(generated):
    commits = set()
    for runs in (PG.load_timings(PG.BOOK_TIMINGS), PG.load_timings(PG.CARD_TIMINGS)):
        commits |= {c.strip() for r in runs for c in str(r.get("commit") or "").split(",") if c.strip()}
    assert commits, "reference/timings: the recorded runs name their commits (kept off the page)"
    for name, text in generated.items():
        assert not commits & set(re.findall(r"[0-9a-f]{7,40}", text)), f"{name}: a commit hash on the page"
        assert "<th>Commit</th>" not in text and "(target)" not in text, name
    perf = (ROOT / "book" / "performance.md").read_text(encoding="utf-8")
    assert "target" not in perf.lower()


def test_sample_size_words():
    assert sample_size(150, "pairs") == "150 pairs"
    assert sample_size(150, "pairs", first=True) == "the first 150 pairs"
    assert sample_size(None, "pairs", first=True) == "all pairs"
    assert sample_size("all", "pairs", total=88877) == "all pairs (88,877 in all)"
    for bad in (-1, 1.5, True, "some"):
        with pytest.raises(ValueError, match="n must be"):
            sample_size(bad, "pairs")


# ------------------------------------------------------------------ citations: one source
def _bib() -> dict[str, dict[str, str]]:
    """``references.bib`` as key -> {field: value} (braces and TeX accents dropped)."""
    text = (ROOT / "references.bib").read_text(encoding="utf-8")
    out = {}
    for m in re.finditer(r"@\w+\{(?P<key>[^,]+),(?P<body>.*?)\n\}", text, re.DOTALL):
        fields = {f.group(1).lower(): f.group(2) for f in re.finditer(r"(\w+)\s*=\s*\{(.*)\},?\s*$", m["body"], re.MULTILINE)}
        out[m["key"].strip()] = fields
    return out


def _plain(tex: str) -> str:
    tex = re.sub(r"\\['`^\"~c]\{?\\?(\w)\}?", r"\1", tex)  # {\'e} -> e, {\c{c}} -> c
    return re.sub(r"\s+", " ", tex.replace("{", "").replace("}", "")).strip()


def _ascii(s: str) -> str:
    import unicodedata

    return unicodedata.normalize("NFKD", s).encode("ascii", "ignore").decode()


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_paper_yaml_cites_as_references_bib(paper):
    md, bib = meta.metadata(paper), _bib()[paper]
    assert md["year"] == int(bib["year"]), f"{paper}: paper.yaml year {md['year']} vs references.bib {bib['year']}"
    assert _plain(md["title"]).lower() == _plain(bib["title"]).lower()
    families = [_ascii(_plain(a.split(",")[0])) for a in bib["author"].split(" and ")]
    assert [_ascii(a) for a in md["authors"]] == families
    assert md["short"].startswith(md["label"] + ": ") and str(md["year"]) in md["label"]


@pytest.mark.parametrize("paper", meta.PAPERS)
def test_paper_yaml_matches_the_papers_own_first_page(paper):
    files = sorted(PAPERS_TEXT.glob(f"{meta.metadata(paper)['chapter'][3:]}*.txt")) + sorted(
        PAPERS_TEXT.glob(f"{paper}*.txt"))
    if not files:
        pytest.skip(f"the paper's text is not beside the checkout ({PAPERS_TEXT})")
    head = files[0].read_text(encoding="utf-8")[:4000]
    front = re.split(r"Abstract", head)[0]
    norm = lambda s: re.sub(r"[^a-z0-9]+", " ", _ascii(s).lower())
    md = meta.metadata(paper)
    assert norm(md["title"]) in norm(head), f"{files[0].name}: title {md['title']!r} not on its first page"
    for author in md["authors"]:
        assert norm(author) in norm(head), f"{files[0].name}: author {author!r} not on its first page"
    years = set(re.findall(r"\b(?:19|20)\d\d\b", front))
    assert years <= {str(md["year"])}, f"{files[0].name}: its first page says {years}, paper.yaml {md['year']}"


def test_citation_cff_references_agree_with_paper_yaml():
    import yaml

    refs = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))["references"]
    by_title = {r["title"].lower(): r for r in refs}
    for paper in meta.PAPERS:
        md = meta.metadata(paper)
        ref = by_title[md["title"].lower()]
        assert ref.get("year") == md["year"], f"CITATION.cff: {md['title']!r} year {ref.get('year')} vs {md['year']}"


def test_chapter_titles_and_readme_use_the_citation_label():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for n, paper in enumerate(meta.PAPERS, 1):
        md = meta.metadata(paper)
        source = (ROOT / "notebooks" / f"{md['chapter']}.py").read_text(encoding="utf-8")
        title = next(line for line in source.splitlines() if line.startswith("# # "))
        assert f"({md['label']})" in title, f"{md['chapter']}: its title {title!r} lacks ({md['label']})"
        row = next(line for line in readme.splitlines() if line.startswith(f"| {n} | "))
        assert row.startswith(f"| {n} | {md['label']}: "), f"README's chapter table, row {n}: {row!r}"


def test_the_build_time_has_one_source():
    t = PG.book_build_time()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # the README quotes no build time (a newcomer's README; the times live on the Performance page)
    assert not re.search(r"\b\d+ minutes", readme) and "**Performance** page" in readme
    intro = (ROOT / "book" / "intro.md").read_text(encoding="utf-8")
    assert "_generated/build_time.md" in intro and not re.search(r"\b\d+-\d+ minutes", intro)
    assert t["cold"] in PG.build_time_markdown() and t["on"] in PG.build_time_markdown()


def test_the_build_time_names_the_newest_run(tmp_path):
    path = tmp_path / "book.json"
    path.write_text(json.dumps([{"cpu": "A", "cores": 2, "date": "2026-11-27", "seconds": {"cold": 3000.0}},
                                {"cpu": "B", "cores": 4, "date": "2026-11-25", "seconds": {"cold": 60.0, "warm": 5}}]))
    assert PG.book_build_time(path) == {"cold": "about 50 minutes", "warm": "", "on": "2 cores, A", "date": "2026-11-27"}
    with pytest.raises(ValueError, match="no recorded book run"):
        PG.book_build_time(tmp_path / "none.json")


def test_no_package_tags_anywhere_on_a_page(generated):
    """The Performance page's chapter column read "01 (gaschi)", "02 (liu)": a package's tag, not a paper."""
    tags = {f"({meta.metadata(p).get('tag')})" for p in meta.PAPERS}
    for name, text in generated.items():
        found = [t for t in tags if t in text]
        assert not found, f"{name}: package tags {found}"
