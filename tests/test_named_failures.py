"""Every failure names the thing: --gpu without --cluster, a cards folder whose parent does not exist, a
--cluster address where no Dask scheduler answers, fetch --all with a --pattern."""

import socket
import threading

import pytest

from xalign.book.cli import main


def test_gpu_without_cluster_is_an_error(monkeypatch, capsys):
    monkeypatch.setattr("xalign.card.battery.run_card", lambda *a, **k: pytest.fail("no model may run"))
    assert main(["card", "some-model", "--gpu"]) == 2
    assert "--gpu applies only with --cluster" in capsys.readouterr().err


def test_compare_out_typo_creates_nothing(tmp_path, capsys):
    typo = tmp_path / "resluts" / "cards"
    assert main(["compare", "--out", str(typo)]) == 2
    assert str(typo) in capsys.readouterr().err
    assert not typo.exists() and not typo.parent.exists()
    assert main(["compare", "--out", str(typo), "--mteb", str(tmp_path / "Tatoeba.json")]) == 2
    assert not typo.parent.exists()


def test_card_out_whose_parent_is_missing_is_named_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("xalign.card.battery.run_card", lambda *a, **k: pytest.fail("no model may run"))
    typo = tmp_path / "resluts" / "cards"
    assert main(["card", "some-model", "--out", str(typo)]) == 2
    assert str(typo.parent) in capsys.readouterr().err and not typo.parent.exists()


@pytest.fixture
def not_a_scheduler():
    """A TCP port that answers like an HTTP server, not a Dask scheduler."""
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve():
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            try:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 4)
            except OSError:
                pass
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"tcp://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join(2)
    server.close()


def test_a_cluster_address_that_is_not_a_scheduler_is_named(not_a_scheduler):
    from xalign.card.sweep import ClusterConnectError, Task, run_tasks

    with pytest.raises(ClusterConnectError, match="no Dask scheduler answered") as exc:
        run_tasks([Task("m", "x")], cluster=not_a_scheduler)
    assert not_a_scheduler in str(exc.value) and "EiB" not in str(exc.value).split("(")[0]


def test_fetch_all_with_a_pattern_tries_only_the_sets_that_have_such_files(monkeypatch, capsys):
    from xalign.data import datasets as D

    tried = []
    monkeypatch.setattr(D, "fetch_many", lambda name, pattern="*", mirror=None: tried.append(name) or ["f"])
    want = [n for n, ds in D.datasets().items() if ds.files("bcws*")]
    assert want and len(want) < len(D.datasets())
    assert main(["fetch", "--all", "--pattern", "bcws*"]) == 0
    out = capsys.readouterr()
    assert tried == want and "not available here" not in out.out + out.err
    assert main(["fetch", "--all", "--pattern", "no-such-file-*"]) == 2
    assert "no data set declares a file matching" in capsys.readouterr().err


def test_a_fetch_killed_mid_copy_leaves_no_part_file_after_the_next_fetch(tmp_path, monkeypatch, capsys):
    import os
    import subprocess
    import sys
    import time

    from xalign.data import datasets as D

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    folder = tmp_path / "cache" / "data" / "muse"
    folder.mkdir(parents=True)
    killed = subprocess.run([sys.executable, "-c", (
        "import os, signal, sys\n"
        "from xalign.core.atomic import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_bytes(b'half a file')\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"), str(folder / "de-en.txt")], check=False)
    assert killed.returncode == -9
    (orphan,) = folder.glob(".de-en.txt.*.part")
    live = folder / ".fr-en.txt.abcd1234.part"  # a writer still at work: holds its file open
    held = open(live, "wb")  # noqa: SIM115
    old = time.time() - 30
    os.utime(orphan, (old, old))
    os.utime(live, (old, old))
    monkeypatch.setattr(D, "fetch_many", lambda name, pattern="*", mirror=None: [folder / "x"])
    try:
        assert main(["fetch", "muse"]) == 0
        assert not orphan.exists() and live.exists()
        assert str(orphan) in capsys.readouterr().err
    finally:
        held.close()


def test_fetch_names_a_folder_where_a_cached_data_file_should_be(tmp_path, monkeypatch, capsys):
    from xalign.core.paths import cache_dir
    from xalign.data import datasets as D

    monkeypatch.setenv("XALIGN_CACHE", str(tmp_path / "cache"))
    name = next(n for n, ds in D.datasets().items() if ds.checksums)
    ds = D.get(name)
    target = cache_dir("data") / ds.mirror / ds.files()[0]
    target.mkdir(parents=True)
    (target / "mine").write_text("x")
    for _ in range(2):  # every rerun: the same named error, nothing removed
        assert main(["fetch", name, "--pattern", ds.files()[0]]) == 1
        assert f"{target} is a folder where the cache keeps file" in capsys.readouterr().err
    assert (target / "mine").exists()
