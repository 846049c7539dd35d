"""What every chapter's source must look like (shared by the chapter tests): short, and code cells that only
call the library and show its results."""

import ast
import re

MAX_LINES = 350


def code_cells(text: str) -> list[str]:
    """The bodies of a py:percent notebook's code cells (Markdown cells left out)."""
    cells = re.split(r"^# %%.*$", text, flags=re.MULTILINE)
    heads = re.findall(r"^# %%.*$", text, flags=re.MULTILINE)
    return [body for head, body in zip(heads, cells[1:]) if "[markdown]" not in head]


def loops_in(cell: str) -> list[ast.AST]:
    """The for/while loops and comprehensions of one code cell."""
    return [n for n in ast.walk(ast.parse(cell)) if isinstance(n, (ast.For, ast.While, ast.comprehension))]


def assert_only_calls(text: str) -> None:
    """Under MAX_LINES lines; no loop, print or plt.show in any code cell."""
    assert len(text.splitlines()) < MAX_LINES
    for cell in code_cells(text):
        assert not loops_in(cell), f"a loop in a chapter cell:\n{cell}"
        assert "print(" not in cell and "plt.show" not in cell
