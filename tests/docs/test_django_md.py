"""docs/django.md: every python block needs a Django project, so none runs as a script; each
is run in a configured project by the test LEFT_OUT names (tests/docs/snippets.py checks
the blocks and the tests are still there)."""

from __future__ import annotations

from tests.docs import snippets

PAGE = "docs/django.md"
LEFT_OUT = {
    "Claiming the identity at start-up, not in every command": (
        "tests/integrations/test_django_warm_up.py"
    ),
    "Who chooses a new row's id in DRF": "tests/integrations/test_rest_framework.py",
}


def test_each_block_is_run_by_an_integration_test() -> None:
    assert snippets.blocks(PAGE, "python")
    assert snippets.python_params(PAGE, LEFT_OUT) == []
    snippets.check_left_out(PAGE, LEFT_OUT)
