"""Tests of the cart."""

import pytest
from checkout import Cart


def test_subtotal_counts_quantities():
    """Each item counts as often as its quantity."""
    cart = Cart()
    cart.add("pen", 10.0)
    cart.add("ink", 5.0, quantity=2)
    assert cart.subtotal() == 20.0


def test_total_without_discount_is_subtotal():
    """No discount: the total is the subtotal."""
    cart = Cart()
    cart.add("pen", 2.5, quantity=4)
    assert cart.total() == 10.0


def test_discount_is_taken_off():
    """A 10 % discount takes a tenth off."""
    cart = Cart()
    cart.add("pen", 10.0)
    cart.add("ink", 5.0, quantity=2)
    cart.apply_discount(10)
    assert cart.total() == 18.0


def test_bad_discount_is_refused():
    """Discounts outside 0-100 % are refused."""
    with pytest.raises(ValueError):
        Cart().apply_discount(120)


def test_full_discount_is_free():
    """Hidden: a 100 % discount leaves nothing to pay."""
    cart = Cart()
    cart.add("pen", 3.0, quantity=3)
    cart.apply_discount(100)
    assert cart.total() == 0.0
