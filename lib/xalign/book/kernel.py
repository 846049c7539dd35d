"""The kernel a chapter runs in: papermill starts it, and it stops without a spurious error.

jupyter_client interrupts a kernel (SIGINT) before every graceful shutdown, to stop code that may still
run. When papermill shuts the kernel down, every cell has finished; the interrupt then lands in whatever
message the kernel is handling and ipykernel logs ``[IPKernelApp] ERROR | KeyboardInterrupt caught in
kernel.`` on the terminal after a run that went well. :class:`QuietShutdownKernelManager` skips that one
interrupt: the shutdown request goes over the kernel's control channel, which a busy kernel answers
too, and a kernel that does not stop in time is still terminated by jupyter_client. Interrupts asked for
while the kernel runs (a cell's timeout) are unchanged.
"""

from __future__ import annotations

from pathlib import Path

from jupyter_client.manager import AsyncKernelManager

#: the kernel every chapter runs in (the active environment's ipykernel)
KERNEL_NAME = "python3"


class QuietShutdownKernelManager(AsyncKernelManager):
    """An AsyncKernelManager that does not interrupt the kernel on its way to a clean shutdown."""

    async def _async_interrupt_kernel(self) -> None:
        if self.shutting_down:  # set by shutdown_kernel before it interrupts; the kernel is asked to stop next
            return
        await super()._async_interrupt_kernel()


def execute_notebook(source: str | Path, output: str | Path, parameters: dict | None, cwd: str | Path,
                     progress: bool = True) -> None:
    """Execute ``source`` with papermill into ``output`` in :data:`KERNEL_NAME`, from ``cwd``, with
    ``parameters`` injected after its ``parameters`` cell; the kernel is stopped without an interrupt."""
    import papermill as pm

    pm.execute_notebook(str(source), str(output), parameters=parameters or {}, kernel_name=KERNEL_NAME,
                        cwd=str(cwd), progress_bar=progress, log_output=False,
                        kernel_manager_class=QuietShutdownKernelManager)
