"""Opening hours → minute intervals for the trip's actual dates."""

from datetime import date

from core.itinerary.opening import DAY_MIN, PAST_MIDNIGHT_MIN, opening_windows

TZ = "Asia/Shanghai"
MON, TUE, FRI, SAT = date(2025, 6, 2), date(2025, 6, 3), date(2025, 6, 6), date(2025, 6, 7)


def spans(ow, day):
    return [(iv.start, iv.end) for iv in ow.by_date[day]]


def test_weekdays_and_closed_day():
    ow = opening_windows("Tu-Su 09:00-17:00; Mo off", [MON, TUE], timezone=TZ)
    assert ow.source == "opening_hours"
    assert spans(ow, MON) == []
    assert ow.is_closed_on(MON) and not ow.is_closed_on(TUE)
    assert spans(ow, TUE) == [(9 * 60, 17 * 60)]


def test_split_hours_give_two_intervals():
    ow = opening_windows("Mo-Su 11:00-14:00,17:00-21:00", [TUE], timezone=TZ)
    assert spans(ow, TUE) == [(11 * 60, 14 * 60), (17 * 60, 21 * 60)]


def test_past_midnight_runs_on_and_the_tail_belongs_to_the_next_date():
    ow = opening_windows("Fr 22:00-02:00", [FRI, SAT], timezone=TZ)
    # Friday 22:00 to Saturday 02:00 is one interval of Friday, past 24:00.
    assert spans(ow, FRI) == [(22 * 60, 24 * 60 + 2 * 60)]
    # Saturday's own early hours are open too (the OSM meaning), but Saturday evening is not.
    assert spans(ow, SAT) == [(0, 2 * 60)]


def test_hours_ending_at_midnight_do_not_swallow_the_next_morning():
    ow = opening_windows("Mo-Su 10:00-24:00", [TUE], timezone=TZ)
    assert spans(ow, TUE) == [(600, DAY_MIN)]


def test_always_open_blank_and_unparsable():
    always = opening_windows("24/7", [TUE], timezone=TZ)
    assert spans(always, TUE) == [(0, DAY_MIN + PAST_MIDNIGHT_MIN)]
    blank = opening_windows("", [TUE], timezone=TZ)
    assert blank.source == "no_opening_hours" and spans(blank, TUE) == [(0, DAY_MIN + PAST_MIDNIGHT_MIN)]
    bad = opening_windows("open when we feel like it", [TUE], timezone=TZ)
    assert bad.source == "opening_hours_unparsed" and bad.error
    assert spans(bad, TUE) == [(0, DAY_MIN + PAST_MIDNIGHT_MIN)]


def test_public_holidays_use_the_regions_country():
    national_day = date(2025, 10, 1)  # a Wednesday, and a public holiday in China
    closed = opening_windows("Mo-Su 09:00-17:00; PH off", [national_day], timezone=TZ, country="CN")
    assert spans(closed, national_day) == []
    no_country = opening_windows("Mo-Su 09:00-17:00; PH off", [national_day], timezone=TZ)
    assert spans(no_country, national_day) == [(540, 1020)]
