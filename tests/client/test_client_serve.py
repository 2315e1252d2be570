"""End to end: ``Client`` in several processes against ``snowid serve`` with two workers and
token authentication, as deployed; then the server goes away under the clients."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest

from snowid import errors
from snowid.client import Client
from tests.web.test_serve import running_serve

TOKEN = "end-to-end-token"
_shared: list[Client] = []  # the client the pool's forked processes inherit


def _take(client: Client, count: int) -> list[int]:
    return [client.next_id() for _ in range(count)]


def _take_inherited(count: int) -> list[int]:
    return _take(_shared[0], count)


@pytest.mark.slow
def test_forked_processes_share_a_client_against_snowid_serve_without_a_duplicate(
    tmp_path: Path,
) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text(f"# the clients' token\n{TOKEN}\n")
    lease = f"file://{tmp_path / 'slots'}?allow_volatile=1"
    args = ["--workers", "2", "--lease", lease, "--auth-token-file", str(tokens)]
    with running_serve(args, tmp_path / "serve.log") as url:
        client = Client(url, token=TOKEN, batch=1000, retries=1)
        first = _take(client, 1500)  # one batch in use, the next one buffered
        _shared[:] = [client]
        with multiprocessing.get_context("fork").Pool(3) as pool:  # forks here
            children = pool.map(_take_inherited, [4000] * 3)
        last = _take(client, 1500)
    every = first + last + [i for ids in children for i in ids]
    assert len(every) == 3000 + 3 * 4000 == len(set(every))
    # The server is gone: the rest of the buffer is handed out, then the clear error.
    with pytest.raises(errors.ServiceUnreachableError) as caught:
        _take(client, 2000)
    assert caught.value.url == url
    assert caught.value.attempts == 2
    client.close()
