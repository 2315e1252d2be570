"""``snowid serve --clock-back``: a policy the lease cannot back stops the server before it
starts, with exit code 1 and one line naming the flag's setting, the value and why."""

from __future__ import annotations

import pytest

from snowid.cli import main


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--clock-back", "soon"], "clock_back soon is not a clock-back policy"),
        (
            ["--clock-back", "logical:5", "--lease", "static://1/1"],
            "clock_back logical:5 cannot be used with static://1/1: it keeps no high-water mark",
        ),
    ],
)
def test_a_clock_back_policy_the_server_cannot_use_stops_it_before_it_starts(
    argv: list[str], words: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--lang", "en", "serve", "--port", "0", *argv]) == 1
    err = capsys.readouterr().err
    assert err.startswith("Error: ")
    assert words in err
    assert "Traceback" not in err
