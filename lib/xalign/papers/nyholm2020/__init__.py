"""Nyholm (2020): multilingual sentence features for feature-based transfer, MultiSent (chapter 5)."""
