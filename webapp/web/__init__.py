"""The web tier: Flask views, the socket, budgets, errors and the helpers templates use.

Only this package imports Flask (tests/test_architecture.py checks it)."""
