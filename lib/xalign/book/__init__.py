"""The book: chapter results, the status page, the papermill runner and the ``xalign`` command."""
