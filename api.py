"""HTTP face of Omni-Travel Planner (FastAPI).

Serve:  .venv/bin/uvicorn api:app --host 127.0.0.1 --port 8000     (OpenAPI docs at /docs)

POST /agent/route_and_run   the agent's single entry. The request model forbids
                            unknown fields, so no client flag can skip a gate: consent is only
                            options.allow_webbrowse, and a commit needs a server-issued dry-run id.
GET  /agent/actions         the Action Registry (names, metadata, input/output schemas)
GET  /agent/metrics         the agent's metrics from the event log
"""

from __future__ import annotations

from fastapi import FastAPI, HTTPException

from core.errors import OmniError
from core.models.agent import AgentRequest, AgentResponse

app = FastAPI(
    title="Omni-Travel Planner API",
    version="0.1.0",
    description="The travel agent: semantic router, fast path, budgeted ReAct loop, consent and commit gates.",
)


@app.post("/agent/route_and_run", response_model=AgentResponse, tags=["agent"])
def agent_route_and_run(request: AgentRequest) -> AgentResponse:
    """Route the message (System 1 / System 2) and run it within the request's budget."""
    from core.agent import route_and_run

    try:
        return route_and_run(request)
    except OmniError as exc:  # bad input that only shows up inside (e.g. a region), as a 422
        raise HTTPException(status_code=422, detail=exc.to_dict()["error"]) from None


@app.get("/agent/actions", tags=["agent"])
def agent_actions() -> list[dict]:
    from core.agent.actions.catalog import default_registry

    return default_registry().describe()


@app.get("/agent/metrics", tags=["agent"])
def agent_metrics() -> dict:
    from core.agent.telemetry import compute_metrics, read_events
    from core.config import get_settings

    return compute_metrics(read_events(get_settings().agent_event_log))
