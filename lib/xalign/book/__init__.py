"""The book: chapter results, the status page, the papermill runner and the ``xalign`` command.

The model card itself is :mod:`xalign.card`, one floor down; its pages are here."""
