"""The JSON API: compose, fresh ids, health, readiness and metrics; decoding in every layout,
readings, layouts and time ranges are in ``_layout_api.py``."""

from __future__ import annotations

import json

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import BaseRoute, Route

from snowid import SYSTEM_CLOCK, Clock, breakdown
from snowid._exceptions import OutOfRangeError
from snowid.ids import to_int
from snowid.web import _layout_api as layout_api
from snowid.web import _metrics
from snowid.web._auth import TokenFile
from snowid.web._errors import json_response
from snowid.web._fast_ids import FAILED, ids_body, usual_count
from snowid.web._forms import COMPOSE_FIELDS, check_parameters, read_compose, refuse_body_fields
from snowid.web._service import IdService
from snowid.web._settings import Settings
from snowid.web._share import MetricsShare
from snowid.web.openapi import document

__all__ = ["routes"]

_JSON = "application/json"


def routes(
    settings: Settings,
    service: IdService,
    tokens: TokenFile | None = None,
    share: MetricsShare | None = None,
    *,
    clock: Clock = SYSTEM_CLOCK,
) -> list[BaseRoute]:
    """``tokens``: required on POST /api/ids (and /metrics with ``settings.auth_metrics``);
    ``share``: the other worker processes' snapshots for /metrics; ``clock``: what now is
    to the decoding routes."""
    max_count = settings.max_count
    metrics_tokens = tokens if settings.auth_metrics else None
    openapi_body = json.dumps(
        document(max_count, auth=tokens is not None, auth_metrics=metrics_tokens is not None),
        ensure_ascii=False,
        indent=1,
    )

    async def ids(request: Request) -> Response:
        # The usual request is answered in front of Starlette (_fast_ids.FastIds); this
        # route answers the rest, every error among them.
        failed = request.scope.get(FAILED)
        if failed is not None:
            raise failed  # the raw route's service error, shown by the app's handlers
        if tokens is not None and (refused := tokens.refuse(request)) is not None:
            return refused
        count = usual_count(request.scope["query_string"])
        if count is None:
            check_parameters(request.query_params, ("count",))
            raw = request.query_params.get("count")
            count = 1 if raw is None else to_int("count", raw)
        await refuse_body_fields(request, ("count",))
        if not 1 <= count <= max_count:
            raise OutOfRangeError(field="count", value=count, min=1, max=max_count)
        return Response(ids_body(await service.ids(count)), media_type=_JSON)

    async def compose(request: Request) -> Response:
        check_parameters(request.query_params, COMPOSE_FIELDS)
        form = read_compose(request.query_params)
        error = form.first_error
        if error is not None:
            raise error
        assert form.snow_id is not None
        return json_response(breakdown(form.snow_id).as_dict())

    async def healthz(request: Request) -> Response:
        snapshot = service.snapshot()
        return json_response(
            {"status": "ok", "ready": snapshot.ready, "lease": snapshot.lease_state}
        )

    async def readyz(request: Request) -> Response:
        snapshot = service.snapshot()
        body: dict[str, object] = {
            "ready": snapshot.ready,
            "draining": service.draining,
            "lease": snapshot.lease_state,
            "datacenter": snapshot.datacenter,
            "machine": snapshot.machine,
            "ceiling_ms": snapshot.ceiling_ms,
        }
        return json_response(body, 200 if snapshot.ready else 503)

    async def metrics(request: Request) -> Response:
        if metrics_tokens is not None and (refused := metrics_tokens.refuse(request)) is not None:
            return refused
        snapshots = [service.snapshot(), *(share.others() if share is not None else ())]
        return PlainTextResponse(_metrics.render(snapshots), media_type=_metrics.CONTENT_TYPE)

    async def openapi(request: Request) -> Response:
        return Response(openapi_body, media_type=_JSON)

    return [
        Route("/api/ids", ids, methods=["POST"]),
        Route("/api/compose", compose, methods=["GET"]),
        *layout_api.routes(clock),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
