"""The CLI's destructive and batch commands: cache clear only touches what xalign wrote; fetch --all reports all."""


from xalign.book.cli import main
from xalign.core.paths import CACHE_MARKER, cache_dir


def test_cache_clear_refuses_a_folder_that_is_not_an_xalign_cache(tmp_path, monkeypatch, capsys):
    (tmp_path / "thesis.tex").write_text("precious")
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    assert main(["cache", "clear", "--yes"]) == 2
    assert (tmp_path / "thesis.tex").read_text() == "precious"
    assert not (tmp_path / CACHE_MARKER).exists()
    assert "not an xalign cache" in capsys.readouterr().err


def test_cache_clear_removes_only_what_xalign_wrote_and_asks_first(tmp_path, monkeypatch):
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    (cache_dir("embeddings") / "x.npz").write_bytes(b"1")
    (tmp_path / "notes.txt").write_text("mine")
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(["cache", "clear"]) == 2  # no terminal to ask, no --yes: nothing removed
    assert (tmp_path / "embeddings" / "x.npz").exists()
    assert main(["cache", "clear", "--yes"]) == 0
    assert not (tmp_path / "embeddings").exists() and (tmp_path / "notes.txt").read_text() == "mine"


def test_fetch_all_reports_every_set_then_fails(monkeypatch, capsys):
    from xalign.data import datasets as D

    tried = []

    def fake(name, pattern="*", mirror=None):
        tried.append(name)
        if len(tried) == 1:
            raise D.ChecksumError(f"{name}: sha256 differs")
        return ["f"]

    monkeypatch.setattr(D, "fetch_many", fake)
    assert main(["fetch", "--all"]) == 1
    assert tried == list(D.datasets())  # did not stop at the first checksum error
    assert "failed" in capsys.readouterr().err


def test_cache_clear_keeps_a_folder_that_was_there_before_the_cache_claimed_it(tmp_path, monkeypatch):
    thesis = tmp_path / "data" / "thesis" / "chapter1.tex"
    thesis.parent.mkdir(parents=True)
    thesis.write_text("precious")
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    (cache_dir("data") / "fetched.txt").write_text("a data file")  # fetch writes into the user's data/
    (cache_dir("models") / "m.bin").write_text("ours")
    assert main(["cache", "clear", "--yes"]) == 0
    assert thesis.read_text() == "precious"
    assert not (tmp_path / "models").exists()  # what the cache created is gone


def test_clear_embeddings_on_a_foreign_folder_claims_and_deletes_nothing(tmp_path, monkeypatch, capsys):
    mine = tmp_path / "embeddings" / "ab" / "notes.json"
    mine.parent.mkdir(parents=True)
    mine.write_text("{}")
    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    assert main(["cache", "clear-embeddings"]) == 2  # not an xalign cache: nothing claimed
    assert not (tmp_path / CACHE_MARKER).exists()
    (tmp_path / CACHE_MARKER).write_text("")  # the folder becomes a cache later (a run used it)
    assert main(["cache", "clear-embeddings"]) == 0
    assert main(["cache", "clear", "--yes"]) == 0
    assert mine.read_text() == "{}"


def test_clear_embeddings_removes_only_entries(tmp_path, monkeypatch):
    import numpy as np

    from xalign.core.cache import EmbeddingCache

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path))
    store = EmbeddingCache()
    store.put({"k": 1}, x=np.ones(2))
    store.put_json({"k": 2}, [1])
    (store.root / "ab").mkdir(exist_ok=True)
    (store.root / "ab" / "notes.json").write_text("mine")
    assert main(["cache", "clear-embeddings"]) == 0
    assert store.get({"k": 1}) is None and store.get_json({"k": 2}) is None
    assert (store.root / "ab" / "notes.json").read_text() == "mine"


def test_a_marker_naming_folders_outside_the_cache_deletes_nothing_there(tmp_path, monkeypatch, capsys):
    victim, sibling = tmp_path / "victim", tmp_path / "x"
    for folder in (victim, sibling):
        folder.mkdir()
        (folder / "keep.txt").write_text("keep")
    root = tmp_path / "cache"
    root.mkdir()
    (root / CACHE_MARKER).write_text(f"{victim}\n../x\n.\n")
    monkeypatch.setenv("XALIGN_CACHE", str(root))
    assert main(["cache", "clear", "--yes"]) == 0
    assert (victim / "keep.txt").exists() and (sibling / "keep.txt").exists() and root.exists()
    assert "left alone" in capsys.readouterr().err


def test_cache_path_reports_a_missing_folder_instead_of_creating_it(tmp_path, monkeypatch, capsys):
    home = tmp_path / "nonexistent" / "x"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.delenv("XALIGN_CACHE", raising=False)
    assert main(["cache", "path"]) == 0
    out = capsys.readouterr()
    assert str(home) in out.out and "does not exist" in out.err
    assert not (tmp_path / "nonexistent").exists()


def _no_chapter_runs(monkeypatch):
    """Record papermill calls (a fake run copies the notebook), so a test sees whether the chapter started."""
    import shutil

    import papermill

    calls = []

    def fake(source, out, **kwargs):
        calls.append(out)
        shutil.copyfile(source, out)

    monkeypatch.setattr(papermill, "execute_notebook", fake)
    return calls


def test_run_with_an_output_that_is_a_directory_fails_before_the_chapter(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XALIGN_RESULTS", str(tmp_path / "results"))
    calls = _no_chapter_runs(monkeypatch)
    assert main(["run", "01", "--profile", "smoke", "-o", str(tmp_path)]) == 2
    assert calls == [] and "is a directory" in capsys.readouterr().err


def test_run_with_a_results_folder_that_cannot_be_written_fails_before_the_chapter(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")  # results below a file: cannot be made, even by root
    monkeypatch.setenv("XALIGN_RESULTS", str(blocker / "results"))
    calls = _no_chapter_runs(monkeypatch)
    assert main(["run", "01", "--profile", "smoke", "-o", str(tmp_path / "nb" / "01.ipynb")]) == 2
    assert calls == [] and "results folder" in capsys.readouterr().err
