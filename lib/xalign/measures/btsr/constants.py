"""The BTSR method's vocabulary: alignment levels, training signals, map techniques (Liu et al. 2020, Table 1)."""

LEVELS = ("token", "avg_type", "iso_type")
SIGNALS = ("wa", "sa", "dict")
TECHNIQUES = ("orig", "mim")
