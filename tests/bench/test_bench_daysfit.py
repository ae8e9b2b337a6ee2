"""``python -m core bench daysfit`` (bench/daysfit.py): each message's plan is measured and described as a person
sees it (visits per day, each day's first event, what was dropped), with the machine's load beside the seconds."""

from __future__ import annotations

from bench.__main__ import main


def test_the_daysfit_bench_reports_each_plan_and_the_load(capsys):
    import json

    assert main(["daysfit", "--repeats", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["benchmark"] == "daysfit" and out["repeats"] == 1 and len(out["load_avg_before"]) == 3
    rows = {r["message"]: r for r in out["rows"]}
    assert set(rows) >= {"Plan a 2-day trip in Shanghai", "规划2天上海行程", "plan 2 days in Shanghai with kids"}
    for row in rows.values():
        assert row["status"] == "OK" and row["median_s"] > 0 and row["first_run_s"] > 0
        assert len(row["visits_by_day"]) == len(row["first_event_by_day"]) == 2
        assert all(n >= 2 for n in row["visits_by_day"]), row  # at least two visits a day
        assert set(row["first_event_by_day"]) == {"visit"}, row  # no day begins with lunch
    assert "sh-circus-world" in rows["plan 2 days in Shanghai with kids, including Shanghai Circus World"]["dropped"]
