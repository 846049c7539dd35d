"""Data: the data-set registry (package data), one reader per file format, corpora, language codes. Imports only ``core``."""
