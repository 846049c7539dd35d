"""Classification tasks as data: splits of texts with integer labels (what a probe is evaluated on)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Split:
    """One split of a task: texts (one list per sentence slot) and integer labels."""

    texts: tuple[list[str], ...]
    labels: np.ndarray

    def __post_init__(self):
        self.texts = tuple(list(t) for t in self.texts)
        self.labels = np.asarray(self.labels, dtype=int)
        if not self.texts or any(len(t) != len(self.labels) for t in self.texts):
            raise ValueError(f"split has {[len(t) for t in self.texts]} texts per slot "
                             f"but {len(self.labels)} labels")


@dataclass
class Task:
    """A classification task: one-sentence (``texts`` = (sentences,)) or pairs ((premises, hypotheses))."""

    name: str
    train: Split
    test: Split
    n_classes: int
    dev: Split | None = None
    meta: dict = field(default_factory=dict)

    def splits(self) -> list[Split]:
        return [s for s in (self.train, self.dev, self.test) if s is not None]

    def all_texts(self) -> list[str]:
        return sorted({t for s in self.splits() for slot in s.texts for t in slot})
