"""Model-agnostic measures: retrieval (CSLS, weak/strong alignment), similarity, probes, maps, layer sweeps.

Plain metric code in the style of MUSE's ``word_translation.py``: arrays in, numbers out; no paper wiring.
Imports ``core`` and ``data`` only.
"""
