"""Numbers written in Chinese numerals or digits, as messages say them (三个人, 十二点, 两位)."""

from __future__ import annotations


def cn_number(text: str) -> int | None:
    """'3' -> 3, '三' -> 3, '十二' -> 12, '两' -> 2."""
    if text.isdigit():
        return int(text)
    digits = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
    if text == "十":
        return 10
    if "十" in text:
        a, _, b = text.partition("十")
        return (digits.get(a, 1) if a else 1) * 10 + (digits.get(b, 0) if b else 0)
    return digits.get(text)
