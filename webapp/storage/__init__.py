"""Where games, results and shared levels are kept: SQLite or PostgreSQL."""
