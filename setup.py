"""Packaging is declared in pyproject.toml; this only adds the chapter notebooks to the wheel.

``notebooks/*.py`` (the chapters' source of truth) are copied into the built package as
``xalign/notebooks/`` so that an installed wheel runs ``xalign run 01`` outside a checkout.
"""

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithNotebooks(build_py):
    def run(self):
        super().run()
        if self.editable_mode:  # an editable install runs the checkout's notebooks/ directly
            return
        target = Path(self.build_lib) / "xalign" / "notebooks"
        target.mkdir(parents=True, exist_ok=True)
        for nb in sorted(Path(__file__).resolve().parent.joinpath("notebooks").glob("*.py")):
            self.copy_file(str(nb), str(target / nb.name))


setup(cmdclass={"build_py": BuildWithNotebooks})
