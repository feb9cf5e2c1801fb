"""Roman numerals."""

from romans.numerals import from_roman

__all__ = ["from_roman"]
