"""The hand-written OpenAPI document checked against the running service with schemathesis.

Every generated request (valid and invalid) must get an answer that matches the
document: no 5xx, a documented status code, the documented content type and a body
that validates against the response schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import checks

from snowid import LAYOUTS
from snowid.ids._encoding import read_number
from snowid.web import Settings, create_app
from snowid.web.openapi import document
from tests.support.web import fixed_identity_service, serving

schema = schemathesis.openapi.from_dict(document(max_count=64))

CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    app = create_app(Settings(max_count=64), service=fixed_identity_service(2, 3))
    with serving(app) as url:
        yield url


@schema.parametrize()
@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
def test_every_response_matches_the_openapi_document(
    case: schemathesis.Case[Any], base_url: str
) -> None:
    case.call_and_validate(base_url=base_url, checks=CHECKS)


SIGNED_LAYOUTS = {layout.name for layout in LAYOUTS if layout.signed}


def accepted_unless_past_the_layouts_sign_bit(
    ctx: Any, response: schemathesis.Response, case: schemathesis.Case[Any]
) -> bool | None:
    """positive_data_acceptance, but for the rules OpenAPI cannot state: a decode path id
    is any number up to 2**64 - 1 because Discord, Instagram and Mastodon ids use bit 63,
    yet read in a layout whose bit 63 is a sign bit (Twitter, Sonyflake) a number that sets
    it is refused (422 id_sign_bit_set, as the parameter's description says); a negative
    one is read only as Instagram's stored bigint (elsewhere 422 id_negative); and which
    pasted ``text`` holds ids is a matter of reading it (a link, digit groups), so the
    text form's documented 400/422 answers are what valid-looking text may get."""
    query = case.query or {}
    if case.operation.path == "/api/decode" and response.status_code in (400, 422):
        return None
    if case.operation.path in ("/api/decode/{id}",) and response.status_code == 422:
        code = response.json()["error"]["code"]
        number = read_number(str(case.path_parameters["id"]))
        layout = query.get("layout", "twitter")
        if code == "id_sign_bit_set" and layout in SIGNED_LAYOUTS and number >= 2**63:
            return None
        if code == "id_negative" and layout != "instagram" and number < 0:
            return None
    outcome = checks.positive_data_acceptance(ctx, response, case)
    return None if outcome is None else bool(outcome)


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_valid_input_is_accepted_and_invalid_input_rejected(
    case: schemathesis.Case[Any], base_url: str
) -> None:
    case.call_and_validate(
        base_url=base_url,
        checks=[accepted_unless_past_the_layouts_sign_bit, checks.negative_data_rejection],
    )


auth_schema = schemathesis.openapi.from_dict(document(max_count=64, auth=True, auth_metrics=True))


@pytest.fixture(scope="module")
def auth_base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tokens = tmp_path_factory.mktemp("auth") / "tokens"
    tokens.write_text("schema-token\n")
    settings = Settings(max_count=64, auth_token_file=str(tokens), auth_metrics=True)
    with serving(create_app(settings, service=fixed_identity_service(2, 3))) as url:
        yield url


@auth_schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
def test_with_tokens_every_response_matches_the_document_too(
    case: schemathesis.Case[Any], auth_base_url: str
) -> None:
    """Without a token the guarded endpoints answer the documented 401."""
    case.call_and_validate(base_url=auth_base_url, checks=CHECKS)
