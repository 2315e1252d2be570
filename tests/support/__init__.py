"""What the tests share besides fixtures: servers of a test's own (servers, pg, mysql,
redis), several of them talking to each other behind proxies (cluster, procnet), one
cleanup path for everything started (cleanup), one face for every networked store
(stores), a TCP proxy, worker processes, an issuing thread and its checks (holders), the
chaos driver; the app on a loopback port (web), the process-wide generator (process_wide)
and the Django site (django_site)."""
