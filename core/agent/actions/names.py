"""Every action's name, one member each (docs/ARCHITECTURE.md, "Adding an action"): what the registry registers,
the loop and the flows call, the decision log, the dry runs and the telemetry record. A ``StrEnum``: a name is its
string wherever it is written (JSON, the event log, stored conversations) and reads back equal to it."""

from __future__ import annotations

from enum import StrEnum


class ActionName(StrEnum):
    BROWSER_FETCH = "browser.fetch"
    ITINERARY_CLUSTER_DAYS_BALANCED = "itinerary.cluster_days_balanced"
    ITINERARY_OPTIMIZE_DAY_VRPTW = "itinerary.optimize_day_vrptw"
    ITINERARY_PREPARE_PROBLEM = "itinerary.prepare_problem"
    ITINERARY_REBALANCE_DAYS = "itinerary.rebalance_days"
    ITINERARY_REPAIR_CROSS_DAY = "itinerary.repair_cross_day"
    LLM_GENERATE_EXPLANATION = "llm.generate_explanation"
    PLACES_GET_POI_FACTS = "places.get_poi_facts"
    PLACES_RESOLVE_ENTITIES = "places.resolve_entities"
    PLACES_SEARCH_KNOWLEDGE = "places.search_knowledge"
    POLICY_CHECK_ITINERARY = "policy.check_itinerary"
    POLICY_SCORE_ROBUSTNESS = "policy.score_robustness"
    POLICY_VALIDATE_FEASIBILITY = "policy.validate_feasibility"
    RESERVATIONS_CANCEL = "reservations.cancel"
    RESERVATIONS_CANCEL_DRY_RUN = "reservations.cancel_dry_run"
    RESERVATIONS_CONFIRM = "reservations.confirm"
    RESERVATIONS_DRY_RUN = "reservations.dry_run"
    RESERVATIONS_LIST = "reservations.list"
    TRANSPORT_APPLY_ROBUSTNESS_POLICY = "transport.apply_robustness_policy"
    TRANSPORT_BUILD_TIME_MATRIX = "transport.build_time_matrix"
    TRANSPORT_TRAVEL_TIME = "transport.travel_time"
    TRIP_APPLY_USER_EDIT = "trip.apply_user_edit"
    TRIP_KEEP_PLAN = "trip.keep_plan"
    TRIP_LOAD_DRAFT = "trip.load_draft"
    TRIP_PERSIST_PLAN = "trip.persist_plan"
    TRIP_RECORD_COMMITMENT = "trip.record_commitment"
    WEATHER_LOOKUP = "weather.lookup"
