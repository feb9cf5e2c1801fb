"""A small shopping cart."""

from checkout.cart import Cart

__all__ = ["Cart"]
