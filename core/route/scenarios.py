"""Demo scenarios bundled in ``data/scenarios/*.json``: a title and a RoutePlanRequest."""

from __future__ import annotations

import json
from pathlib import Path

from core.config import BUNDLED_DATA
from core.errors import InputError
from core.models.route_views import Scenario


def _scenario_dir(data_dir: Path) -> Path:
    return data_dir / "scenarios"


def list_scenarios(region: str | None = None, *, data_dir: Path = BUNDLED_DATA) -> list[Scenario]:
    folder = _scenario_dir(data_dir)
    if not folder.is_dir():
        return []
    scenarios = [Scenario.model_validate_json(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.json"))]
    return [s for s in scenarios if region is None or s.region == region]


def load_scenario(scenario_id: str, *, data_dir: Path = BUNDLED_DATA) -> Scenario:
    path = _scenario_dir(data_dir) / f"{scenario_id}.json"
    if not path.is_file():
        known = ", ".join(s.id for s in list_scenarios(data_dir=data_dir))
        raise InputError(f"unknown scenario '{scenario_id}'; available: {known}", field="scenario")
    return Scenario.model_validate(json.loads(path.read_text(encoding="utf-8")))
