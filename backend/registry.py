"""A tiny named registry shared by domains, engines, metrics, renderers and exporters."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Generic, TypeVar

from backend.errors import UnknownNameError

T = TypeVar("T")


class Registry(Generic[T]):
    """Maps names to objects; an unknown name raises an error listing the valid ones.

    Registries replace if/elif chains: adding a domain or engine is one `register` call.
    """

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._items: dict[str, T] = {}

    def register(self, name: str, item: T) -> T:
        """Register `item` under `name`; a second registration of a name is a programming error."""
        if name in self._items:
            raise ValueError(f"{self.kind} {name!r} is registered twice")
        self._items[name] = item
        return item

    def get(self, name: str) -> T:
        """Return the item registered as `name`.

        Raises:
            UnknownNameError: nothing has that name; the message lists valid names.
        """
        try:
            return self._items[name]
        except KeyError:
            raise UnknownNameError(self.unknown_message(name)) from None

    def unknown_message(self, name: str) -> str:
        """Explain an unknown name, with a suggestion when one is close."""
        close = difflib.get_close_matches(name, list(self._items), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        valid = ", ".join(sorted(self._items))
        return f"Unknown {self.kind} {name!r}.{hint} Valid: {valid}."

    def names(self) -> list[str]:
        """Registered names in registration order."""
        return list(self._items)

    def __contains__(self, name: object) -> bool:
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def items(self) -> list[tuple[str, T]]:
        """(name, item) pairs in registration order."""
        return list(self._items.items())
