"""Helpers for the lease tests: servers of a test's own (servers), one face for every
networked store (stores), a TCP proxy, worker processes, an issuing thread and its checks
(holders), the chaos driver."""
