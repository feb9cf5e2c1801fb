"""The Space's entry point: `awp env serve` on the port the Space exposes."""
