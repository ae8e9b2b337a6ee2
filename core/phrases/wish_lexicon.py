"""The word tables of the wish readers (the half-day planner's core/halfday/goal_wishes.py, the agent's
core/agent/trip_wishes.py): cuisines, drinks, the kind of each preference,
and the verbs after which a person says what they want (what follows one and is read by nothing else is an unread
wish). Data only, matched like goal_lexicon's tables (NFKC, lower-cased, English between non-letters).
"""

from __future__ import annotations

#: cuisine → Chinese and English words; the codes are the region packs' cuisine names (RegionPlace.cuisine)
CUISINES: dict[str, str] = {
    "shanghainese": r"本帮菜|上海菜|沪菜|本帮|上海本地菜|shanghainese|shanghai food|shanghai cuisine",
    "cantonese": r"粤菜|广东菜|广式|cantonese",
    "dim_sum": r"早茶|点心|茶点|dim sum|yum cha",
    "sichuan": r"川菜|四川菜|麻辣|sichuan|szechuan",
    "hunan": r"湘菜|湖南菜|hunan",
    "yunnan": r"云南菜|滇菜|yunnan",
    "japanese": r"日料|日本料理|日本菜|寿司|刺身|拉面|居酒屋|japanese|sushi|sashimi|ramen|izakaya",
    "korean": r"韩餐|韩国料理|韩国菜|韩式烤肉|korean|bibimbap",
    "thai": r"泰国菜|泰餐|泰式|thai",
    "indian": r"印度菜|咖喱|indian|curry",
    "italian": r"意大利菜|意餐|意面|披萨|比萨|italian|pizza|pasta",
    "french": r"法餐|法国菜|法式|french",
    "western": r"西餐|牛排|汉堡|western food|western|steak|burgers?",
    "hotpot": r"火锅|涮羊肉|hot ?pot|hotpot",
    "dumplings": r"小笼包?|生煎|饺子|汤包|馄饨|dumplings?|xiaolongbao|soup dumplings|wontons?",
    "noodles": r"面馆|吃面|拉面馆|noodles?",
    "seafood": r"海鲜|小龙虾|螃蟹|大闸蟹|seafood|crayfish|crabs?|lobster",
    "bbq": r"烧烤|烤串|撸串|bbq|barbecue",
    "dessert": r"甜品|甜点|蛋糕|冰淇淋|desserts?|cakes?|ice cream|sweets",
    "bakery": r"面包|烘焙|bakery|pastr(?:y|ies)|croissants?",
    "snacks": r"小吃|街头小吃|snacks?|street food",
}
#: drink → words; alcohol is met by a bar (cuisine ``bar`` or tag ``alcohol``), coffee and tea by their cuisine
DRINKS: dict[str, str] = {
    "alcohol": r"喝酒|喝一杯|喝两杯|小酌|酒吧|清吧|啤酒|精酿|红酒|葡萄酒|鸡尾酒|威士忌|白酒|黄酒|喝点酒|"
    r"a drink|drinks|drinking|bars?|pubs?|beers?|wine|cocktails?|whisk(?:e)?y|happy hour|pints?|brewery",
    "coffee": r"咖啡|喝咖啡|coffee|espresso|latte",
    "tea": r"喝茶|品茶|茶馆|茶室|下午茶|奶茶|teahouse|tea house|afternoon tea|(?<!ice )tea",
}
#: diet → words (a limit such as no_spicy, or a meal to have such as vegetarian)
DIETS: dict[str, str] = {
    "vegetarian": r"(?<!不)吃素|素食|素菜|素斋|vegetarian|veggie",
    "vegan": r"纯素|vegan",
    "halal": r"清真|穆斯林|halal|muslim",
    "light": r"减肥|减脂|轻食|低卡|健康餐|少油|控糖|on a diet|low-calorie|low calorie|low-cal|light meals?|healthy food",
    "no_spicy": r"不吃辣|不能吃辣|不要辣|怕辣|不辣|忌辣|no spicy|not spicy|non-spicy|can't eat spicy|no chili|mild food|"
    r"nothing spicy|not too spicy|no spice|can't (?:take|handle) (?:spicy|spice|chil(?:i|li))",
    "no_alcohol": r"不喝酒|不要酒|不能喝酒|禁酒|不喝酒精|no alcohol|alcohol-free|non-alcoholic|don't drink|without alcohol",
}
#: diet code → tags or cuisines of a meal that can serve it; a limit (no_spicy, no_alcohol) is a tag it must not have
DIET_SERVES: dict[str, set[str]] = {
    "vegetarian": {"vegetarian_friendly", "vegan_options", "cuisine:vegetarian"},
    "vegan": {"vegan_options", "cuisine:vegetarian"},
    "halal": {"halal"},
    "light": {"light_options"},
}
DIET_EXCLUDES: dict[str, str] = {"no_spicy": "spicy", "no_alcohol": "alcohol"}
#: a preference code's kind of wish (codes not listed are activities)
PREFERENCE_KIND: dict[str, str] = {
    "museum": "sight", "art": "sight", "history": "sight", "park": "sight", "nature": "sight",
    "landmark": "sight", "temple": "sight", "science": "sight", "night_view": "sight", "photo": "sight",
    "shopping": "shopping", "market": "shopping",
    "food": "food", "local_food": "food", "cafe": "drink",
    "kid_activity": "kids",
}  # fmt: skip
#: a diet said with one of these beside it is a meal to have, not only a limit (吃素食, a vegetarian lunch)
EAT_NEAR = r"吃|餐|饭|菜|馆|eat|eating|lunch|dinner|meal|food|restaurant|brunch"

# ---- what a person says they want: the verbs, and where the thing wanted ends ----------------------------------
WANT_VERBS_ZH = r"品尝|尝尝|参观|体验|学习|拜访|吃|喝|尝|看|玩|逛|买|做|学|去|听|泡|打|骑|划|滑|坐|爬|钓"
WANT_VERBS_EN = (
    r"eat|drink|try|taste|see|visit|do|play|watch|buy|go|learn|take|ride|hear|attend|experience|have|check out|"
    r"go to|go for|grab|then|plus|also"
)
#: a list of things wanted after a colon (Saturday 2pm to 6pm: a pottery class and ...), and the next thing of a
#: list (go-karting and a foot massage): each is read, so none is dropped
LIST_START_EN = r":\s*|(?<![a-z])and\s+"
#: what a half day should be like that no reader maps (romantic, with a view, 浪漫, 有情调): kept in the person's
#: words as a wish not understood, never dropped
QUALITIES = (
    r"浪漫|有情调|有氛围|氛围感|景观好|风景好|有景|看风景|高档|热闹|刺激|(?<![a-z])(?:romantic|cozy|cosy|lively|fancy|"
    r"upscale|luxurious|adventurous|exciting|thrilling)(?![a-z])|(?<![a-z])with (?:a |great |nice |good )?views?(?![a-z])"
)
#: verbs said with their object as one activity (滑冰, 钓鱼, 爬山): an unread phrase keeps the verb
DOING_VERBS_ZH = r"体验|学习|玩|做|学|打|泡|骑|划|滑|爬|钓|坐"
#: the thing wanted ends before one of these (Chinese)
WANT_END_ZH = (
    r"[,，。.;；!！?？、\s]|再|然后|和|跟|还有|或者|以及|之后|以后|的时候|吧|呢|啊|了|也|都|就|顺便|最好|"
    r"上午|下午|中午|晚上|傍晚|今天|明天|后天|周|人均|预算|不要|不想|别|带|一起|附近|旁边|那边|里"
)
#: the thing wanted ends before one of these (English)
WANT_END_EN = (
    r"[,.;!?]|\b(?:and|then|with|on|at|for|before|after|while|near|around|but|in|by|from|to|or|so|if|"
    r"this|tomorrow|today|tonight|next|we|i|my|our|please)\b"
)
#: measure words between a verb and the thing (喝杯咖啡, 吃顿火锅, 看场演出)
MEASURES_ZH = "一两几杯点个顿些份碗场次趟回"
#: words that say nothing wanted on their own (去一下, do something, go out)
FILLERS_ZH = frozenset(
    "东西 一下 一趟 一圈 玩 走走 看看 逛逛 转转 点什么 什么 哪里 哪儿 好玩的 有意思的 点 个 一个 玩玩 吃的 喝的 饭 "
    "外面 外边 附近 那里 这里 那儿 这儿 家 回家 一趟吧 点东西 好吃的 一顿 顿 逛 看 吃 喝".split()
)
FILLERS_EN = frozenset(
    "something anything stuff things thing fun it out around there here home back some a an the bit together "
    "somewhere anywhere nice good great cool what lot lots more time day afternoon morning evening out and".split()
)
DETERMINERS_EN = r"^(?:some|a|an|the|a bit of|a little|any|our|my|nice|good|great|local|great)\s+"
