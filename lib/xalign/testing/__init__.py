"""Test fixtures: tiny random models of the papers' families, built offline (:mod:`.tiny`, :mod:`.tiny_decoders`).

It may import from :mod:`xalign.core`; no other part of the library imports it (tests/test_layering.py).
"""
