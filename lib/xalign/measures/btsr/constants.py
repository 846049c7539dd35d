"""The vocabulary of chapter 2's grid (the paper's Table 1 labels)."""

LEVELS = ("token", "avg_type", "iso_type")
SIGNALS = ("wa", "sa", "dict")
TECHNIQUES = ("orig", "mim")
