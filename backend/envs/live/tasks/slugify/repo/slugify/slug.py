"""Make a URL slug of a title."""

import re

_OTHER = re.compile(r"[^a-z0-9]")


def slugify(title: str) -> str:
    """Lower-case letters and digits, with one dash for each run of anything else."""
    return _OTHER.sub("-", title.lower()).strip("-")
