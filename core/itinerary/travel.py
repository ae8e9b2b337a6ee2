"""Travel times for the itinerary: the provider's matrix, then the robustness policy.

``transport.build_time_matrix`` and ``transport.apply_robustness_policy`` are Action Registry
steps. Feasibility is always judged on the robust minutes, never on the provider's raw time.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.config import Settings
from core.geo.base import LonLat, Router, TravelMode
from core.models.itinerary import Pacing
from core.models.itinerary_problem import ItineraryPoint, RobustnessPolicy, TimeMatrix


def robustness_policy_for(mode: TravelMode, pacing: Pacing, *, settings: Settings) -> RobustnessPolicy:
    """The policy written in settings for this mode and pacing."""
    factor = settings.robust_travel_factor.get(mode, 1.0) * settings.pacing_factor_multiplier.get(pacing, 1.0)
    buffer = settings.robust_travel_buffer_min.get(mode, 0) + settings.pacing_buffer_extra_min.get(pacing, 0)
    return RobustnessPolicy(
        mode=mode,
        pacing=pacing,
        # A "robust" time shorter than the provider's would be optimism, not robustness.
        factor=round(max(1.0, factor), 4),
        buffer_min=max(0, int(buffer)),
        visit_factor=settings.pacing_visit_factor.get(pacing, 1.0),
        source="settings",
    )


def build_time_matrix(points: Sequence[ItineraryPoint], *, provider: Router, mode: TravelMode) -> TimeMatrix:
    """One provider matrix call for all points; nominal seconds and metres with their source."""
    if not points:
        return TimeMatrix(keys=[], distances_m=[], nominal_s=[], source="none", mode=mode)
    raw = provider.matrix([LonLat(p.lon, p.lat) for p in points], mode=mode)
    n = len(points)
    durations = [[0.0 if i == j else float(raw.durations_s[i][j]) for j in range(n)] for i in range(n)]
    distances = [[0.0 if i == j else float(raw.distances_m[i][j]) for j in range(n)] for i in range(n)]
    return TimeMatrix(
        keys=[p.key for p in points],
        distances_m=distances,
        nominal_s=durations,
        source=raw.source,
        mode=mode,
        notes=list(raw.notes),
    )


def apply_robustness_policy(matrix: TimeMatrix, *, policy: RobustnessPolicy) -> TimeMatrix:
    """A copy of ``matrix`` with ``robust_min`` = ceil(nominal x factor + buffer) (0 on the diagonal)."""
    n = len(matrix.keys)
    robust = [[0 if i == j else policy.robust_minutes(matrix.nominal_s[i][j]) for j in range(n)] for i in range(n)]
    return matrix.model_copy(update={"robust_min": robust, "policy": policy})
