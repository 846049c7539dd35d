"""Wickramasinghe and de Silva: BLI with vocabulary pruning and stem-based soft BLI (chapter 4)."""
