"""A cart of priced items with an optional percentage discount."""


class Cart:
    """Items with unit prices and quantities, and at most one discount."""

    def __init__(self) -> None:
        self.items: dict[str, tuple[float, int]] = {}
        self.discount_percent = 0.0

    def add(self, name: str, price: float, quantity: int = 1) -> None:
        """Add `quantity` units of an item (adding an item again adds to its quantity)."""
        if quantity < 1:
            raise ValueError("quantity must be at least 1")
        _, held = self.items.get(name, (price, 0))
        self.items[name] = (price, held + quantity)

    def apply_discount(self, percent: float) -> None:
        """Take `percent` off the whole cart."""
        if not 0 <= percent <= 100:
            raise ValueError("a discount is between 0 and 100 percent")
        self.discount_percent = percent

    def subtotal(self) -> float:
        """The price of all items before the discount."""
        return sum(price * quantity for price, quantity in self.items.values())

    def total(self) -> float:
        """The price to pay, rounded to cents."""
        return round(self.subtotal() * self.discount_percent / 100, 2)
