"""What the documents claim is so (issue 31, "docs that are true"): the README's name of the HTML report is the
file the CLI writes; the delivery-round scenario's typo is found by fuzzy matching, its English name by that
name, as its description says; the deep links' docstring names the personal-map client that exists; the two
reference documents exist and are linked from the README and the architecture."""

from __future__ import annotations

import json
import re

from core.__main__ import main
from core.config import get_settings
from core.geo.registry import make_provider
from core.route import links
from core.route.planner import plan_route
from core.route.scenarios import load_scenario
from tests.support.clock import suite_today
from tests.support.paths import ROOT

SPECS = ("docs/TechSpec_OmniTravelAgent_v1.md", "docs/AlgoSpec_ItineraryOptimization_v1.md")


def test_the_readmes_report_name_is_the_file_the_cli_writes(tmp_path, monkeypatch, capsys):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    [claimed] = re.findall(r"writes the report to \./(\S+?\.html)", readme)
    scenario = re.search(r"core plan --request (\S+\.json)", readme).group(1)
    monkeypatch.chdir(tmp_path)
    assert main(["plan", "--request", str(ROOT / scenario), "--provider", "offline", "--region", "shanghai"]) == 0
    written = [p.name for p in tmp_path.glob("*.html")]
    assert written == [claimed.replace("YYYY-MM-DD", suite_today().isoformat())]
    assert written[0] in capsys.readouterr().err


def test_the_delivery_rounds_typo_is_a_fuzzy_match_and_its_english_name_is_found_by_that_name():
    scenario = load_scenario("delivery-round")
    described = json.loads((ROOT / "data/scenarios/delivery-round.json").read_text(encoding="utf-8"))
    assert "fuzzy" in described["description"] and "模糊匹配" in described["description_zh"]
    provider = make_provider("offline", region=scenario.region, settings=get_settings())
    result = plan_route(scenario.request, provider=provider, settings=get_settings())
    by_input = {p.input_name: p for p in result.resolved_stops}
    typo, english = by_input["虹桥南丰成"], by_input["Metro City Xujiahui"]
    assert typo.resolved_name == "虹桥南丰城" and typo.source in ("text_search", "search_detail")
    fuzzy = [n for n in result.notices if n.code == "FUZZY_MATCH"]
    assert [n.params["point"] for n in fuzzy] == [f"stops.{result.resolved_stops.index(typo)}"]
    assert english.resolved_name == "美罗城" and "name_en" in english.confidence_note


def test_the_links_docstring_names_the_personal_map_client_that_exists():
    from core.geo.amap_mcp import AMapMcpProvider

    doc = links.__doc__ or ""
    assert "no such client" not in doc
    assert "core/geo/amap_mcp.py" in doc and hasattr(AMapMcpProvider, "personal_map_link")


def test_the_reference_documents_exist_and_are_linked():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    architecture = (ROOT / "docs/ARCHITECTURE.md").read_text(encoding="utf-8")
    for spec in SPECS:
        text = (ROOT / spec).read_text(encoding="utf-8")
        assert len(text.splitlines()) > 80, spec
        assert spec in readme and spec.removeprefix("docs/") in architecture
        # every module path a document names exists in this tree
        for path in set(re.findall(r"`((?:core|components|pages|bench|scripts)/[\w/]+\.py)`", text)):
            assert (ROOT / path).is_file(), f"{spec} names {path}, which does not exist"
