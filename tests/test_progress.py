"""Progress goes to the terminal through a log while a chapter runs; the page gets none."""

import io

from xalign.core import progress as P


def test_bars_go_to_the_log_and_are_echoed(tmp_path, monkeypatch):
    log = tmp_path / "progress.log"
    out = io.StringIO()
    monkeypatch.setenv(P.LOG_VARIABLE, str(log))
    monkeypatch.setattr(P, "_LOG_STREAM", None)
    with P.ProgressEcho(log, prefix="[01] ", out=out, every=0.05):
        for _ in P.bar(range(50), desc="encode words", mininterval=0):
            pass
        assert not P.inline()  # other libraries' own bars stay out of the page
    assert "[01] encode words: 100%" in out.getvalue() and "50/50" in out.getvalue()
    assert not log.exists()


def test_without_a_log_bars_follow_the_switch(monkeypatch, capsys):
    monkeypatch.delenv(P.LOG_VARIABLE, raising=False)
    monkeypatch.setenv("XALIGN_PROGRESS", "0")
    for _ in P.bar(range(3), desc="quiet"):
        pass
    assert "quiet" not in capsys.readouterr().err
