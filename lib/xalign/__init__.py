"""xalign: an executable companion to five papers on cross-lingual alignment of multilingual encoders."""

__version__ = "0.1.0"
