"""One module per page: `render(...)` builds its components, `wire(...)` binds their events."""
