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


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
def test_valid_input_is_accepted_and_invalid_input_rejected(
    case: schemathesis.Case[Any], base_url: str
) -> None:
    case.call_and_validate(
        base_url=base_url,
        checks=[checks.positive_data_acceptance, checks.negative_data_rejection],
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
