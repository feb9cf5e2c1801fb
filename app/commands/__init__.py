"""One module per `awp` command group; `app.cli` mounts them."""
