"""``python -m phenorules``: the same as the ``phenorules`` command."""

from .cli import main

main(prog_name="phenorules")
