"""Typed settings in one place (environment variables prefixed ``OMNI_``)."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

PROJECT_ROOT = Path(__file__).resolve().parent.parent


class Settings(BaseSettings):
    """Runtime settings. Every field can be set as ``OMNI_<NAME>``."""

    model_config = SettingsConfigDict(env_prefix="OMNI_", extra="ignore")

    provider: Literal["offline", "amap"] = "offline"
    region: str = "shanghai"
    data_dir: Path = PROJECT_ROOT / "data"

    # Remote providers
    amap_key: SecretStr | None = None
    amap_base_url: str = "https://restapi.amap.com"
    http_timeout_s: float = Field(default=10.0, gt=0)
    http_retries: int = Field(default=3, ge=0, le=10)
    breaker_fail_max: int = Field(default=5, ge=1)
    breaker_reset_s: float = Field(default=60.0, gt=0)
    amap_min_interval_s: float = Field(
        default=1.0, ge=0, description="Spacing between AMap calls; ~1 s avoids CUQPS errors on a personal key"
    )

    # Planning
    tie_tolerance: float = Field(
        default=0.02, ge=0, le=0.5, description="Relative difference under which two totals count as a near-tie."
    )
    top_k: int = Field(default=5, ge=1, le=50, description="Alternatives listed beside the best route per strategy.")
    max_stops: int = Field(default=100, ge=50, le=500)
    exact_limit: int = Field(default=13, ge=2, le=18, description="Largest stop count solved exactly by Held-Karp.")
    solver_time_limit_s: float = Field(default=1.0, gt=0, le=60)
    solver_seed: int = 0
    fuzzy_min_score: float = Field(default=72.0, ge=0, le=100)

    def region_dir(self, region: str | None = None) -> Path:
        return self.data_dir / "regions" / (region or self.region)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
