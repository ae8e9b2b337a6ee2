"""Writes tests/agent/data/slots_eval.jsonl (issue 22 §1): trip and booking messages in Chinese, English and both,
grown from the Shanghai pack's real place names. Each line's expected slots are the values put into its words (a
person reading the message reads the same), never the readers' output. ``python -m bench.slots_grow`` rewrites it.
Dates are against TODAY, a Friday."""

from __future__ import annotations

import csv
import json
import random

from core.config import PROJECT_ROOT

TODAY = "2026-11-27"
OUT = PROJECT_ROOT / "tests" / "agent" / "data" / "slots_eval.jsonl"
#: day words and the date each names against TODAY (Friday 2026-11-27)
DAYS_ZH = [
    ("明天", "2026-11-28"),
    ("后天", "2026-11-29"),
    ("下周六", "2026-12-05"),
    ("周日", "2026-11-29"),
    ("12月3日", "2026-12-03"),
    ("１２月５号", "2026-12-05"),
    ("下周三", "2026-12-02"),
    ("今天", "2026-11-27"),
]
DAYS_EN = [
    ("tomorrow", "2026-11-28"),
    ("tmrw", "2026-11-28"),
    ("next Saturday", "2026-12-05"),
    ("Sunday", "2026-11-29"),
    ("Dec 3", "2026-12-03"),
    ("the day after tomorrow", "2026-11-29"),
    ("on Dec 5th", "2026-12-05"),
]
TIMES_ZH = [
    ("晚上七点", "19:00"),
    ("晚上７点半", "19:30"),
    ("晚上6点一刻", "18:15"),
    ("19:30", "19:30"),
    ("中午12点", "12:00"),
    ("下午五点半", "17:30"),
    ("晚上六点三刻", "18:45"),
    ("18:00", "18:00"),
]
TIMES_EN = [
    ("7pm", "19:00"),
    ("6:30 pm", "18:30"),
    ("6.30pm", "18:30"),
    ("19:30", "19:30"),
    ("noon", "12:00"),
    ("half past 7 in the evening", "19:30"),
    ("7 p.m.", "19:00"),
    ("8pm", "20:00"),
]
PARTY_ZH = [
    ("两个人", 2),
    ("两位", 2),
    ("3人", 3),
    ("一家三口", 3),
    ("我们四个", 4),
    ("５位", 5),
    ("2大1小", 3),
    ("我们俩", 2),
    ("六个人", 6),
]
PARTY_EN = [
    ("for 3 people", 3),
    ("a table for two", 2),
    ("party of 4", 4),
    ("2 adults and 1 child", 3),
    ("for 2", 2),
    ("5 guests", 5),
    ("just me", 1),
]
COUNT_ZH = [("两天", 2), ("三天", 3), ("3日游", 3), ("一天", 1), ("４天", 4), ("两天一夜", 2)]
COUNT_EN = [("two-day", 2), ("3-day", 3), ("one-day", 1), ("4 days", 4), ("2 days", 2), ("weekend", 2)]
ORD_EN = {1: "first", 2: "second", 3: "third"}
ZH_NUM = {1: "一", 2: "二", 3: "三", 4: "四"}


def places() -> tuple[list[tuple[str, str, str]], list[tuple[str, str, str]]]:
    """(sights, bookable restaurants) as (id, zh name, en name)."""
    rows = list(csv.DictReader((PROJECT_ROOT / "data/regions/shanghai/places.csv").open(encoding="utf-8")))
    sights = [
        (r["id"], r["name_zh"], r["name_en"])
        for r in rows
        if r["category"] in ("landmark", "museum", "park", "temple", "shopping")
        and "(" not in r["name_zh"]
        and "(" not in r["name_en"]
    ]
    food = [
        (r["id"], r["name_zh"], r["name_en"])
        for r in rows
        if r["category"] == "restaurant" and r["needs_reservation"] == "true" and "(" not in r["name_zh"]
    ]
    return sights, food


def grow(seed: int = 22) -> list[dict]:
    rnd = random.Random(seed)
    sights, food = places()
    lines: list[dict] = []
    for i in range(120):
        en = i % 2 == 1
        days_said, days = rnd.choice(COUNT_EN if en else COUNT_ZH)
        picks = rnd.sample(sights, k=min(4, days + 2))
        day_places: dict[str, list[str]] = {}
        parts = []
        for d in range(1, min(days, 2) + 1):
            ids = picks[(d - 1) * 2 : d * 2]
            day_places[str(d)] = [p[0] for p in ids]
            names = [p[2] if en else p[1] for p in ids]
            if en:
                marker = rnd.choice([f"day {d}: ", f"on the {ORD_EN[d]} day ", f"Day {d} - "])
                parts.append(marker + " and ".join(names))
            else:
                marker = rnd.choice([f"第{ZH_NUM[d]}天", f"第{d}天", f"D{d} "])
                parts.append(marker + rnd.choice(["", "去", "想去"]) + rnd.choice(["和", "、", "，"]).join(names))
        start = rnd.choice([None, None, *[s for s in sights if s[0] not in {p[0] for p in picks}][:6]])
        if en:
            text = rnd.choice(
                ["Plan a {c} trip to Shanghai", "can you plan a {c} trip in Shanghai", "{c} trip to Shanghai please"]
            ).format(c=days_said)
            text += ", " + "; ".join(parts)
            if start:
                text += rnd.choice([f", starting from {start[2]}", f". Starting from {start[2]}."])
        else:
            text = rnd.choice(["帮我规划{c}上海行程，", "上海{c}怎么玩？", "想在上海玩{c}，"]).format(c=days_said)
            text += rnd.choice(["，", "；", " "]).join(parts)
            if start:
                text += rnd.choice([f"，从{start[1]}出发", f"。我们住在{start[1]}附近"])
        if days == 1:
            day_places = {"1": day_places["1"]}
        lines.append(
            {
                "kind": "trip",
                "lang": "en" if en else "zh",
                "text": text,
                "expect": {
                    "days": days,
                    "day_places": day_places,
                    "start": start[0] if start else None,
                    "city": "shanghai",
                },
            }
        )
    for i in range(110):
        en = i % 2 == 1
        venue = rnd.choice(food)
        day_said, day = rnd.choice(DAYS_EN if en else DAYS_ZH)
        time_said, hhmm = rnd.choice(TIMES_EN if en else TIMES_ZH)
        party_said, party = rnd.choice(PARTY_EN if en else PARTY_ZH)
        if en:
            text = rnd.choice(
                [
                    "Book {v} {d} at {t} {p}",
                    "can you book {v} for {d}, {t}, {p}?",
                    "Please reserve {v} {p} {d} {t}",
                    "book me {v} {d} {t} {p} pls",
                ]
            )
            text = text.format(v=venue[2], d=day_said, t=time_said.replace("at ", ""), p=party_said)
        else:
            text = rnd.choice(
                ["帮我订{d}{t}{p}的{v}", "订{v}，{d}{t}，{p}", "{d}{t}想订{v}，{p}", "帮我预订{v} {d} {t} {p}"]
            )
            text = text.format(v=venue[1], d=day_said, t=time_said, p=party_said)
        lines.append(
            {
                "kind": "booking",
                "lang": "en" if en else "zh",
                "text": text,
                "expect": {"venue": venue[0], "date": day, "time": hhmm, "party": party, "city": "shanghai"},
            }
        )
    return lines


if __name__ == "__main__":
    rows = grow()
    OUT.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    print(len(rows), OUT)
