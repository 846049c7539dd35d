"""Liu, McCarthy, Korhonen (2020): aligning contextual embeddings, the BTSR task (chapter 2)."""
