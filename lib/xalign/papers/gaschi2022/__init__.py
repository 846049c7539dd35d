"""Gaschi, Plesse, Rastin, Toussaint (2022): word-level weak and strong alignment (chapter 1)."""
