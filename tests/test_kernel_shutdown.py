"""A chapter's kernel stops without the spurious "KeyboardInterrupt caught in kernel" (book.kernel)."""

from __future__ import annotations

import nbformat
from jupyter_client.manager import KernelManager

from xalign.book import kernel as K


def _notebook(path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("x = 1", metadata={"tags": ["parameters"]}),
                nbformat.v4.new_code_cell("print(x + 1)")]
    nbformat.write(nb, str(path))
    return path


def test_the_kernel_is_not_interrupted_at_shutdown_and_runs_the_notebook(tmp_path, monkeypatch, capfd):
    calls = []
    original = KernelManager._async_interrupt_kernel

    async def recorded(self):
        calls.append(self.shutting_down)
        return await original(self)

    monkeypatch.setattr(KernelManager, "_async_interrupt_kernel", recorded)
    for i in range(3):  # the interrupt's error showed on about one run in three
        out = tmp_path / f"out{i}.ipynb"
        K.execute_notebook(_notebook(tmp_path / "nb.ipynb"), out, {"x": 41}, tmp_path, progress=False)
        assert nbformat.read(str(out), as_version=4).cells[-1].outputs[0]["text"] == "42\n"
    assert calls == []  # jupyter_client's shutdown interrupts first: not this manager
    assert "KeyboardInterrupt" not in capfd.readouterr().err


def test_an_interrupt_asked_for_while_running_still_goes_through(monkeypatch):
    import asyncio

    calls = []

    async def recorded(self):
        calls.append(self.shutting_down)

    monkeypatch.setattr(KernelManager, "_async_interrupt_kernel", recorded)
    km = K.QuietShutdownKernelManager(kernel_name=K.KERNEL_NAME)
    asyncio.run(km._async_interrupt_kernel())
    km.shutting_down = True
    asyncio.run(km._async_interrupt_kernel())
    assert calls == [False]
