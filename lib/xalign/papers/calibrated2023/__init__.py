"""Calibrated sentence retrieval and the transfer rate (chapter 3)."""
