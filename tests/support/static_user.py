"""A process that issues under a static identity (run as a fresh interpreter).

    python -m tests.support.static_user lease|process_wide URL [--hold]

``lease``: ``Generator(fence=open_lease(URL))``; ``process_wide``: ``snowid.configure`` and
``snowid.next_id()``. Prints ``id N`` after its first id, or ``error CODE PID`` (PID ``-``
when the error names none) and exits 3. With ``--hold`` it keeps the identity until its
standard input is closed.
"""

from __future__ import annotations

import sys

import snowid
from snowid import Generator
from snowid.errors import SnowIdError
from snowid.lease import open_lease


def main(argv: list[str]) -> int:
    kind, url = argv[0], argv[1]
    generator: Generator | None = None
    try:
        if kind == "lease":
            generator = Generator(fence=open_lease(url))
            value = generator.next_id()
        else:
            snowid.configure(lease=url)
            value = int(snowid.next_id())
    except SnowIdError as error:
        pid = getattr(error, "pid", None)
        print(f"error {error.code} {'-' if pid is None else pid}", flush=True)
        return 3
    print(f"id {value}", flush=True)
    if "--hold" in argv:
        sys.stdin.read()
    del generator  # only now: a lease that nothing refers to any more lets its identity go
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
