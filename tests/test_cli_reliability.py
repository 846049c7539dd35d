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
