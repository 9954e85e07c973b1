"""Solves and one-off computations outside the web process: one runner interface over
two transports, the embedded fork server and RQ on Redis."""
