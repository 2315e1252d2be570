"""The generate layer: fences and grants, the generator core, ``Generator`` and the
process-wide default. It imports the id layer below it and, lazily, the lease layer's
public names when the default generator opens a lease. Users import from ``snowid``.
"""
