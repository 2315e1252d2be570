"""Helpers for the lease tests: a TCP proxy, a worker process, the chaos driver and checks."""
