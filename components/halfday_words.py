"""Words for the half-day planner's codes, in Chinese and English (the core returns codes and facts only).

Every table maps a code the core can emit to ``(zh, en)``. tests/ui/test_half_day_page.py collects the codes from
the core (risks in core/halfday/score.py, reasons and exclusions in search.py, relax codes, warnings in
pipeline.py and travel.py, error codes, the goal's closed vocabularies, the packs' categories and tags) and fails
when one has no words here. The reservation flow's words are components/reservation_words.py's. Sentences are built in components/halfday_text.py.
"""

from __future__ import annotations

Words = dict[str, tuple[str, str]]

#: the page's labels follow the app's convention: short English / Chinese pairs
STAGES: Words = {
    "started": ("开始规划", "Starting"),
    "decompose_goal": ("理解你的目标", "Understanding your goal"),
    "get_memory": ("读取历史记忆", "Reading what I remember of you"),
    "analyze_user_profile": ("合成出行画像", "Building your profile"),
    "plan_time_slots": ("规划时间段", "Planning the time slots"),
    "search_places": ("检索候选地点", "Searching places"),
    "rank_places_for_plan": ("组合候选方案", "Composing plans"),
    "score_plans": ("为方案打分", "Scoring the plans"),
    "present_and_reserve": ("呈现方案与可预订项", "Presenting the plans"),
    "mock_reserve": ("试订", "Checking a reservation"),
}

#: the five dimensions of the score (core/halfday/score.py)
DIMENSIONS: Words = {
    "T": ("时间匹配度", "Time fit"),
    "D": ("动线合理性", "Route"),
    "P": ("人群匹配度", "People fit"),
    "C": ("价格合理性", "Cost"),
    "S": ("体验质量", "Experience"),
}
DIMENSION_HELP: Words = {
    "T": ("营业时间覆盖率与排队时间", "inside opening hours, short queues"),
    "D": ("站点间交通时间越短越好", "little travel between the stops"),
    "P": ("年龄、饮食与偏好的匹配", "suits the ages, diet and wishes"),
    "C": ("人均花费是否在预算内", "cost per person against the budget"),
    "S": ("评分、稀缺性与季节", "ratings, scarcity and season"),
}

#: what a person may want (core/halfday/goal_models.py PreferenceCode), as theme nouns
PREFERENCES: Words = {
    "museum": ("博物馆", "museums"),
    "art": ("艺术展览", "art"),
    "history": ("历史古迹", "history"),
    "park": ("公园", "parks"),
    "nature": ("自然风光", "nature"),
    "landmark": ("地标", "landmarks"),
    "temple": ("寺庙", "temples"),
    "shopping": ("逛街购物", "shopping"),
    "market": ("市集", "markets"),
    "theatre": ("演出", "shows"),
    "cafe": ("咖啡", "coffee"),
    "food": ("美食", "food"),
    "local_food": ("本地美食", "local food"),
    "science": ("科技", "science"),
    "night_view": ("夜景", "night views"),
    "photo": ("拍照", "photos"),
    "quiet": ("安静少人", "quiet places"),
    "kid_activity": ("亲子活动", "things for children"),
    "indoor": ("室内", "indoor places"),
    "outdoor": ("户外", "the outdoors"),
    "walk": ("散步", "a stroll"),
    "relax": ("放松休闲", "relaxing"),
}

#: the packs' place categories (``category:<code>`` in a plan's theme)
CATEGORIES: Words = {
    "address": ("地址", "address"),
    "airport": ("机场", "airport"),
    "cafe": ("咖啡馆", "café"),
    "family": ("亲子乐园", "family attraction"),
    "hotel": ("酒店", "hotel"),
    "landmark": ("地标", "landmark"),
    "market": ("市集", "market"),
    "museum": ("博物馆", "museum"),
    "park": ("公园", "park"),
    "restaurant": ("餐厅", "restaurant"),
    "shopping": ("购物街区", "shopping street"),
    "station": ("车站", "station"),
    "temple": ("寺庙", "temple"),
    "theatre": ("剧院", "theatre"),
}

#: the packs' place tags (what the memory learns affinities for)
TAGS: Words = {
    "accessible": ("无障碍", "step-free access"),
    "alcohol": ("供应酒类", "serves alcohol"),
    "art": ("艺术", "art"),
    "budget": ("实惠", "budget-friendly"),
    "food": ("美食", "food"),
    "free": ("免费", "free entry"),
    "halal": ("清真", "halal"),
    "historic": ("历史", "historic places"),
    "indoor": ("室内", "indoor places"),
    "kid_friendly": ("亲子友好", "child-friendly places"),
    "light_options": ("轻食", "light dishes"),
    "local_favourite": ("本地人最爱", "local favourites"),
    "nature": ("自然", "nature"),
    "night_view": ("夜景", "night views"),
    "outdoor": ("户外", "outdoor places"),
    "photo_spot": ("拍照打卡", "photo spots"),
    "premium": ("高端", "premium places"),
    "quiet": ("安静", "quiet places"),
    "rainy_day_ok": ("雨天适宜", "good on rainy days"),
    "science": ("科技", "science"),
    "shopping": ("购物", "shopping"),
    "spicy": ("辣味", "spicy food"),
    "transport": ("交通", "transport"),
    "vegan_options": ("纯素可选", "vegan dishes"),
    "vegetarian_friendly": ("素食友好", "vegetarian-friendly"),
}

#: why a step is in a plan (core/halfday/search.py: ``matches_<preference>`` and these)
REASONS: Words = {
    "kid_friendly": ("适合孩子", "good for children"),
    "accessible": ("无障碍通行", "step-free access"),
    "light_options": ("有轻食可选", "light dishes on the menu"),
    "named_in_goal": ("你点名要去", "you asked for it"),
}
MATCHES: tuple[str, str] = ("符合“{}”", "matches {}")

#: a plan's risks (core/halfday/score.py); {place} is the step's name, the rest are the risk's facts
RISKS: Words = {
    "NO_MEAL_PLANNED": ("时段包含饭点,但方案里没有安排用餐。", "The time covers a meal, but no meal is planned."),
    "OPENING_HOURS_UNKNOWN": ("{place} 的营业时间未知,建议出发前确认。", "{place}: opening hours unknown; check first."),
    "CLOSES_SOON": ("{place} 在 {closes} 关门,离开时间较紧。", "{place} closes at {closes}, soon after you leave."),
    "QUEUE": ("{place} 通常排队约 {minutes} 分钟({day_type},{source})。",
              "{place}: expect a queue of about {minutes} min ({day_type}, {source})."),
    "BOOKING_TOO_LATE": ("{place} 需提前 {lead_time_hours} 小时预约,现在可能已来不及。",
                         "{place} needs booking {lead_time_hours} h ahead; it may be too late now."),
    "NEEDS_BOOKING_AHEAD": ("{place} 需提前 {lead_time_hours} 小时预约。",
                            "{place} must be booked {lead_time_hours} h ahead."),
    "BOOKING_RECOMMENDED": ("{place} 建议预订座位(提前 {lead_time_hours} 小时截止)。",
                            "{place}: booking a table is advised (closes {lead_time_hours} h ahead)."),
    "PRICE_UNKNOWN": ("{place} 的价格未知。", "{place}: price unknown."),
    "LONG_LEG": ("去 {place} 的路程较长:{mode} 约 {minutes} 分钟。", "Long leg to {place}: {minutes} min {mode}."),
    "OUTDOOR_WEATHER": ("{place} 在户外,注意天气({weather})。", "{place} is outdoors; mind the weather ({weather})."),
    "ACCESS_UNKNOWN": ("{place} 是否无障碍未知。", "{place}: step-free access not known."),
    "OVER_BUDGET": ("人均约 ¥{cost_per_person:g},超出预算 ¥{budget_per_person:g}。",
                    "About ¥{cost_per_person:g} per person, over the ¥{budget_per_person:g} budget."),
    "TRAVEL_ESTIMATED": ("路程时间为估算({source}),不是实时路况。",
                         "Travel times are estimates ({source}), not live traffic."),
}  # fmt: skip

#: soft filters loosened when the plans were not feasible enough (core/halfday/models.py RelaxCode)
RELAX: Words = {
    "crowd": ("放宽了人流限制", "allowed busier places"),
    "preferences": ("放宽了偏好匹配", "widened beyond your stated interests"),
    "budget": ("预算放宽了 30%", "allowed up to 30% over the budget"),
    "walk_limit": ("放宽了步行距离", "allowed longer walks"),
    "indoor": ("加入了户外地点", "included outdoor places"),
    "distance": ("扩大了搜索范围", "searched farther away"),
}

#: warnings of the run (core/halfday/pipeline.py, core/halfday/travel.py) and the composer's notes
WARNINGS: Words = {
    "ORIGIN_UNRESOLVED": ("没有找到你填写的出发地,方案从第一站开始。",
                          "The start place was not found; the plans begin at their first stop."),
    "TRAVEL_BREAKER_OPEN": ("路线服务暂时不可用,已改用本地估算。",
                            "The routing service is paused after failures; local estimates are used."),
    "TRAVEL_SERVICE_FAILED": ("路线服务没有应答,已改用本地估算。",
                              "The routing service did not answer; local estimates are used."),
    "TRAVEL_FROM_LOCAL_ESTIMATE": ("部分路程来自本地缓存估算,可能与实时情况有偏差。",
                                   "Some travel times come from local estimates and may differ from live conditions."),
    "fewer_than_two_distinct_plans": ("只找到一套足够不同的方案。", "Only one sufficiently different plan was found."),
}  # fmt: skip

#: a fatal end of planning (done type error) and refusals of the core
ERRORS: Words = {
    "TOOL_OUTPUT_INVALID": ("规划工具连续两次返回了无效结果,规划已停止。",
                            "A planning tool returned invalid output twice, so planning stopped."),
    "TOOL_INPUT_INVALID": ("规划工具收到了无效输入,规划已停止。",
                           "A planning tool was given invalid input, so planning stopped."),
    "TOOL_FAILED": ("规划工具没有给出有效结果。", "A planning tool could not give a valid answer."),
    "TOOL_EMPTY": ("没有找到符合条件的结果。", "Nothing matched."),
    "DATABASE_UNREACHABLE": ("数据库暂时无法访问,请稍后重试。", "The database cannot be reached right now; try again soon."),
    "INTERNAL_ERROR": ("规划时出现内部错误。", "Something went wrong inside the planner."),
    "AMBIGUOUS_PLACE": ("这个地名可以指好几个地方,请说得更具体些。", "That name fits several places; please be more specific."),
    "NO_FEASIBLE_PLAN": ("在这个时间段里找不到可行的方案。", "No workable plan fits this time window."),
    "OMNI_ERROR": ("规划没有完成。", "Planning did not finish."),
    "INVALID_INPUT": ("输入有误,请修改后重试。", "Something in the input is not valid; please change it."),
    "UNRESOLVED_POINT": ("有地点无法识别。", "A place could not be found."),
    "PLACE_NOT_FOUND": ("这个地区没有这个地点。", "No such place in this region."),
    "PROVIDER_ERROR": ("地图服务出错。", "The map service returned an error."),
    "PROVIDER_UNAVAILABLE": ("地图服务暂时不可用。", "The map service is unavailable."),
    "PROVIDER_QUOTA_EXCEEDED": ("地图服务配额已用完。", "The map service's quota is used up."),
    "PROVIDER_AUTH_FAILED": ("地图服务拒绝了密钥。", "The map service refused the key."),
    "PROVIDER_RATE_LIMITED": ("地图服务请求过于频繁。", "The map service is rate-limiting requests."),
    "PROVIDER_TIMEOUT": ("地图服务超时。", "The map service timed out."),
    "ROUTE_NOT_FOUND": ("找不到路线。", "No route was found."),
    "OUTSIDE_COVERAGE": ("地点超出了地区数据的范围。", "A place is outside the region's coverage."),
}  # fmt: skip

#: places left out of the search (core/halfday/search.py), named when no plan was possible
EXCLUDED: Words = {
    "too_young": ("有年龄限制", "too young to enter"),
    "alcohol_venue_with_children": ("带孩子不宜的酒吧类场所", "bars, with children along"),
    "disliked_before": ("你以前不喜欢", "you disliked it before"),
    "closed_in_window": ("这段时间不营业", "closed in this window"),
    "outdoor_in_rain": ("下雨天的户外地点", "outdoors, on a rainy day"),
    "over_budget": ("超出预算", "over the budget"),
    "queue_too_long": ("排队太久", "queues too long"),
    "no_preference_match": ("不符合你的偏好", "not what you asked for"),
}
EXCLUDED_DIET: tuple[str, str] = ("不符合饮食要求({})", "cannot serve {}")
EXCLUDED_AVOIDED: tuple[str, str] = ("你说不想去的{}", "{}, which you wanted to avoid")

#: what the goal did not say (core/halfday/goal_models.py MissingCode): the question to ask
MISSING: Words = {
    "time_window": ("你想什么时候出发?", "When would you like to go?"),
    "time_window_past": ("这个时间段已经过去了,换个时间吧?", "That time has already passed. When instead?"),
    "time_window_invalid": ("这个时间段无法规划(结束早于开始,或日期太远),换个时间吧?",
                            "That time cannot be planned (it ends before it starts, or is too far off). When instead?"),
}  # fmt: skip
#: what the parser assumed (AssumptionCode)
ASSUMED: Words = {
    "date_today": ("日期按今天计", "assumed today"),
    "date_next_weekday": ("按最近的那一天计", "assumed the next such day"),
    "part_of_day_default_hours": ("按该时段的常规时间计", "used the usual hours of that part of the day"),
    "end_from_duration": ("结束时间按时长推算", "end time from the duration"),
    "end_default_half_day": ("默认半天(4 小时)", "assumed half a day (4 hours)"),
    "party_default_one_adult": ("默认一位成人", "assumed one adult"),
    "child_age_unknown": ("孩子年龄未知", "child's age unknown"),
    "start_moved_to_now": ("时段已开始,从现在算起", "the time had begun, so it starts now"),
}
DIET: Words = {
    "vegetarian": ("素食", "vegetarian"),
    "vegan": ("纯素", "vegan"),
    "halal": ("清真", "halal"),
    "light": ("轻食/减脂", "light food"),
    "no_spicy": ("不吃辣", "no spicy food"),
    "no_alcohol": ("不喝酒", "no alcohol"),
}
MOBILITY: Words = {
    "wheelchair": ("轮椅", "wheelchair"),
    "stroller": ("婴儿车", "stroller"),
    "limited_walking": ("不宜多走路", "limited walking"),
}
WEATHER: Words = {"rain": ("下雨", "rain"), "hot": ("炎热", "heat"), "cold": ("寒冷", "cold")}
TRANSPORT: Words = {
    "walking": ("步行", "walking"),
    "driving": ("驾车", "by car"),
    "cycling": ("骑行", "cycling"),
    "transit": ("公共交通", "by public transport"),
    "none": ("同一地点", "same place"),
}
#: where a figure comes from
SOURCES: Words = {
    "offline_estimate": ("离线直线估算", "straight-line estimate"),
    "mixed": ("部分为估算", "partly estimated"),
    "amap": ("高德", "AMap"),
    "osrm": ("OSRM", "OSRM"),
    "valhalla": ("Valhalla 路网", "Valhalla street network"),
    "same_place": ("同一地点", "same place"),
    "pack": ("地区数据", "region pack"),
    "unknown": ("未知", "unknown"),
    "opening_hours": ("地区数据中的营业时间", "opening hours in the region pack"),
    "no_opening_hours": ("无营业时间信息", "no opening hours listed"),
    "opening_hours_unparsed": ("营业时间无法解析", "opening hours could not be read"),
    "settings": ("设置", "settings"),
    "pack_estimate": ("地区数据的典型值", "typical figure from the region pack"),
}
DAY_TYPES: Words = {
    "weekday": ("工作日", "weekday"),
    "weekend": ("周末", "weekend"),
    "public_holiday": ("节假日", "public holiday"),
}
PARTY_SOURCE: Words = {
    "goal": ("来自你的描述", "from your goal"),
    "memory": ("来自家庭档案", "from your family profile"),
    "default": ("默认", "by default"),
}
CROWD: Words = {"low": ("尽量避开人多", "avoid crowds"), "medium": ("人流适中", "some crowds are fine"),
                "high": ("不介意人多", "crowds are fine")}  # fmt: skip

TABLES: dict[str, Words] = {
    "stages": STAGES,
    "dimensions": DIMENSIONS,
    "preferences": PREFERENCES,
    "categories": CATEGORIES,
    "tags": TAGS,
    "reasons": REASONS,
    "risks": RISKS,
    "relax": RELAX,
    "warnings": WARNINGS,
    "errors": ERRORS,
    "excluded": EXCLUDED,
    "missing": MISSING,
    "assumed": ASSUMED,
    "diet": DIET,
    "mobility": MOBILITY,
    "weather": WEATHER,
    "transport": TRANSPORT,
    "sources": SOURCES,
    "day_types": DAY_TYPES,
}


def pick(pair: tuple[str, str], lang: str) -> str:
    return pair[0] if lang == "zh" else pair[1]


def word(table: Words, code: str, lang: str, *, fallback: str | None = None) -> str:
    """The words for ``code``; an unknown code reads as itself without underscores (never raw, never None)."""
    pair = table.get(code)
    if pair is not None:
        return pick(pair, lang)
    return fallback if fallback is not None else code.replace("_", " ").replace(":", " ").lower()


def bilingual(table: Words, code: str) -> str:
    """'English / 中文' for a label."""
    pair = table.get(code)
    if pair is None:
        return code.replace("_", " ").lower()
    return f"{pair[1]} / {pair[0]}"


def excluded_reason(code: str, lang: str) -> str:
    """A search exclusion in words (``diet_<code>`` and ``avoided_<preference>`` included)."""
    if code.startswith("diet_") and code[5:] in DIET:
        return pick(EXCLUDED_DIET, lang).format(word(DIET, code[5:], lang))
    if code.startswith("avoided_") and code[8:] in PREFERENCES:
        return pick(EXCLUDED_AVOIDED, lang).format(word(PREFERENCES, code[8:], lang))
    return word(EXCLUDED, code, lang)


def reason(code: str, lang: str) -> str:
    """Why a step is in its plan."""
    if code.startswith("matches_") and code[8:] in PREFERENCES:
        return pick(MATCHES, lang).format(word(PREFERENCES, code[8:], lang))
    return word(REASONS, code, lang)


def theme(code: str, lang: str) -> str:
    """A plan's theme code: a preference, or ``category:<code>``."""
    if code.startswith("category:"):
        return word(CATEGORIES, code.split(":", 1)[1], lang)
    return word(PREFERENCES, code, lang)


def has_words(table: Words, code: str) -> bool:
    pair = table.get(code)
    return pair is not None and all(isinstance(s, str) and s.strip() for s in pair)
