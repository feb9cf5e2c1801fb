"""URL slugs from titles."""

from slugify.slug import slugify

__all__ = ["slugify"]
