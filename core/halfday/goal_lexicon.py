"""The word tables of stage 1's rule parser (core/halfday/goal.py): Chinese and English phrasings → codes.

Everything here is data: regular-expression fragments matched on the goal after NFKC normalisation and lower-casing
(full-width digits and punctuation become ASCII). English fragments are matched between non-letters, so ``park``
does not match ``parking``; Chinese fragments are matched as written.
"""

from __future__ import annotations

from datetime import time

from core.phrases import wish_lexicon as wx

#: a number written in digits or Chinese numerals (两百, 十二, 一千)
CN_DIGITS = "零〇一二两三四五六七八九十百千"
NUM = rf"(?:\d+(?:\.\d+)?|[{CN_DIGITS}]+)"
CN_VALUES = {ch: i for i, ch in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
CN_UNITS = {"十": 10, "百": 100, "千": 1000}
EN_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "both": 2, "a couple of": 2,
}  # fmt: skip
EN_NUM = r"(?:\d+|a couple of|an?|one|two|three|four|five|six|seven|eight|nine|ten)"

# ---- parts of the day ---------------------------------------------------------------------------------------------
#: the default hours of each part of the day (the product's document: 上午 09–12, 中午 11–14, 下午 13–18, 傍晚 16–19,
#: 晚上 18–22); "after dinner" starts at 19:00
PART_HOURS: dict[str, tuple[time, time]] = {
    "morning": (time(9, 0), time(12, 0)),
    "noon": (time(11, 0), time(14, 0)),
    "afternoon": (time(13, 0), time(18, 0)),
    "dusk": (time(16, 0), time(19, 0)),
    "evening": (time(18, 0), time(22, 0)),
    "after_dinner": (time(19, 0), time(22, 0)),
}
#: (pattern, part), longest first: one alternation, so "early evening" is not also "evening"
PART_WORDS: list[tuple[str, str]] = [
    (r"午饭后|午饭之后|午饭过后|吃完午饭|午餐后|after lunch", "afternoon"),
    (r"晚饭后|晚饭之后|吃完晚饭|晚餐后|after dinner", "after_dinner"),
    (r"early evening|late afternoon|傍晚|黄昏|dusk|sunset", "dusk"),
    (r"上午|早上|早晨|清晨|一早|今早|明早|大早上|in the morning|this morning|morning", "morning"),
    (r"中午|lunchtime|lunch time|midday|noon", "noon"),
    (r"下午(?!茶)|午后|this afternoon|afternoon", "afternoon"),
    (r"晚上|今晚|明晚|夜里|夜晚|晚间|tonight|this evening|evening|"
     r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow) night", "evening"),
]  # fmt: skip
#: the marker a part of the day gives its bare hours; "night" is pm except that its 12点 (and 0点) is midnight
PART_KIND = {
    "morning": "am", "noon": "noon", "afternoon": "pm", "dusk": "pm", "evening": "night", "after_dinner": "night",
}  # fmt: skip
NOW_WORDS = r"现在|马上|立刻|立即|这就|right now|(?<![a-z])now(?![a-z])"
HALF_DAY = r"半天|半日|half a day|half-day|half day"

# ---- dates: core.phrases.dates (one reader for the agent, the booking reader and this goal) -------------------

# ---- clocks: core.phrases.clock and, for ranges, core.phrases.clock_range (one rule with the agent's day window) ----
CLOCK_END_BEFORE = r"(?:until|till|by|before|到|至)\s*$"  # back by 5pm, 玩到5点: an end
CLOCK_END_AFTER = r"\s*(?:前|之前|以前|回家|回来|结束|为止)"  # 5点前回家: an end
CLOCK_START_BEFORE = r"(?:from|starting|start at|从)\s*$"  # from noon: noon is a clock, not the part of the day

# ---- durations ----------------------------------------------------------------------------------------------------
HOUR_UNITS_ZH = r"个?小时|个?钟头|个钟"
HOUR_UNITS_EN = r"hours?|hrs?|h(?![a-z])"
#: (pattern, minutes per unit, a fixed count of units or None): the groups are (count, "and a half")
DURATIONS: list[tuple[str, int, float | None]] = [
    (r"an hour and a half()()", 60, 1.5),
    (rf"({NUM})\s*个?\s*(半)?\s*(?:{HOUR_UNITS_ZH})", 60, None),
    (r"半\s*个?\s*(?:小时|钟头)()()", 60, 0.5),
    (rf"({NUM})\s*分钟()", 1, None),
    (rf"(\d+\.\d+|{EN_NUM})(\s+and\s+a\s+half)?\s*(?:{HOUR_UNITS_EN})", 60, None),
    (r"(\d+)\s*(?:minutes|mins?)()", 1, None),
]

# ---- preferences: code → Chinese fragments, English fragments -------------------------------------------------------
PREFERENCES: dict[str, tuple[str, str]] = {
    "museum": ("博物馆|博物院|纪念馆", r"museums?"),
    "art": ("美术馆|看展|展览|画展|艺术|画廊|艺术展", r"art|arts|gallery|galleries|exhibitions?|exhibits?"),
    "history": ("历史|古迹|老街|古镇|老建筑|老洋房|弄堂|石库门|文物|古建",
                r"history|historic|historical|heritage|old town|old streets?|ancient"),
    "park": ("公园|绿地|草坪", r"parks?"),
    "nature": ("自然|植物园|花园|湿地|森林|赏花|看花|爬山|郊野", r"nature|gardens?|botanical|greenery|woods|forest|lake"),
    "landmark": ("地标|打卡|景点|观光|名胜", r"landmarks?|sights|sightseeing|iconic|must-see"),
    "temple": ("寺|庙|教堂|烧香|拜佛|道观", r"temples?|church|churches|cathedral|mosque|shrine"),
    "shopping": ("逛街|购物|商场|买东西|买点东西|买买买", r"shopping|malls?|shops|boutiques?"),
    "market": ("市集|集市|菜场|菜市场|夜市|农贸市场", r"markets?|bazaar|flea"),
    "theatre": ("演出|话剧|音乐会|看戏|戏剧|脱口秀|演唱会|剧场|剧院|音乐剧|相声",
                r"shows?|concerts?|theatre|theater|a play|the play|musicals?|opera|gig"),
    "cafe": ("咖啡|下午茶|喝茶|茶馆|奶茶|茶室|甜品", r"coffee|cafes?|café|cafés|tea|teahouse|afternoon tea"),
    "food": ("美食|好吃|吃饭|吃个饭|吃顿|吃东西|吃点|餐厅|饭店|大餐|火锅|晚饭|午饭|晚餐|午餐|聚餐|早饭|早餐",
             r"food|foodie|eat|eating|dinner|lunch|restaurants?|brunch|hotpot|hot pot|meal|breakfast"),
    "local_food": ("本帮菜|小吃|生煎|小笼|上海菜|本地菜|地道|特色菜|老字号|馄饨",
                   r"local food|street food|snacks?|dumplings?|shanghainese|xiaolongbao|local cuisine|local dishes"),
    "science": ("科技馆|科学|天文馆", r"science|technology museum|planetarium"),
    "night_view": ("夜景|夜游|灯光秀", r"night views?|night-views?|views? at night|skyline at night|city lights"),
    "photo": ("拍照|出片|摄影|拍夜景|拍拍", r"photos?|photograph\w*|instagram|pictures|pics"),
    "quiet": ("安静|人少|清净|清静|不挤|僻静|冷门|避开人群", r"quiet|peaceful|calm|less crowded|not crowded|uncrowded|tranquil"),
    "kid_activity": ("遛娃|亲子|游乐场|儿童乐园|乐园|带娃玩|放电",
                     r"kid-friendly|kid friendly|kids-friendly|family-friendly|child-friendly|playgrounds?|"
                     r"for the kids"),
    "indoor": ("室内", r"indoors?|inside"),
    "outdoor": ("户外|室外|晒太阳|露天|野餐", r"outdoors?|outside|sunshine|picnic"),
    "walk": ("散步|走走|溜达|逛逛|漫步|压马路|遛弯", r"walks?|stroll|wander|walking"),
    "relax": ("放松|休闲|躺平|发呆|悠闲|慢节奏|轻松", r"relax|relaxing|chill|unwind|laid-back|lazy"),
}  # fmt: skip
#: said as a negation, crowds mean a wish for quiet (不要人多, avoid crowds), not something to avoid
CROWD_WORDS = r"人多|拥挤|排队|人挤人|crowds?|crowded|busy|queues?|lines"
#: "not too tiring" avoids walking
TIRING = r"不要太累|别太累|不想太累|不能太累|不用太累|nothing too tiring|not too tiring|not too much walking"
NEGATORS_ZH = r"不想|不要|不去|不看|不逛|别|不喜欢|讨厌|避开|避免|不用|不爱|不太想|拒绝|不"
NEGATORS_EN = r"no|not|don't|dont|do not|avoid|without|hate|skip|nothing|never|rather not|won't"
CLAUSE_BREAK = r"[,，。.;；!！?？、:]|但|只|but|just|instead"

# ---- constraints --------------------------------------------------------------------------------------------------
DIETS: dict[str, str] = wx.DIETS  # shared with the agent's wish reader (core/phrases/wish_lexicon.py)
MOBILITY: dict[str, str] = {
    "wheelchair": r"轮椅|wheelchair",
    "stroller": r"婴儿车|推车|童车|宝宝车|stroller|pushchair|pram|buggy",
    "limited_walking": r"走不动|腿脚不好|腿脚不便|行动不便|不能走太多|不想走太多|不能走太远|不想走太远|走不远|少走路|膝盖不好|"
    r"不能久走|can't walk far|cannot walk far|can't walk much|limited mobility|bad knees|not much walking|"
    r"mobility issues",
}
WEATHER: dict[str, str] = {
    "rain": r"下雨|雨天|有雨|阴雨|大雨|小雨|暴雨|rain|rainy|raining|showers",
    "hot": r"太热|很热|高温|炎热|热死|怕热|酷暑|hot(?! ?pot)|heat|scorching|sweltering",
    "cold": r"太冷|很冷|降温|寒冷|冷死|怕冷|好冷|cold|freezing|chilly",
}
TRANSPORT: dict[str, str] = {
    "driving": r"(?<!不)开车|自驾|驾车|by car|drive|driving",
    "cycling": r"骑车|骑行|单车|自行车|cycling|bikes?|biking|bicycle|cycle",
    "transit": r"地铁|公交|公共交通|subway|metro|bus|public transport|transit",
    "walking": r"步行|走路去|走着去|全程走路|on foot|walking only",
}
CURRENCY = r"¥|￥|rmb|cny|yuan|元|块钱|块|kuai|\$|usd|dollars?"
PER_PERSON = r"人均|每人|每个人|一人|/人|per person|per head|a head|pp|p\.p\.|each|/person"
TOTAL = r"一共|总共|总预算|总计|合计|total|altogether|in all"
BUDGET_CUES_STRONG = r"人均|每人|每个人|预算|总预算|一共|总共|总计|合计|花费|消费|budget|spend(?:ing)?|total"
BUDGET_CUES_WEAK = (
    r"不超过|不要超过|最多|控制在|under|below|less than|no more than|max(?:imum)?|up to|within|around|about"
)

CUR_RX = rf"(?:{CURRENCY})"
AMOUNT = rf"({NUM})\s*(k|千|万)?"
#: an amount after a budget word, after a currency sign, or before a currency word
BUDGET_PATTERNS = [
    rf"(?:{BUDGET_CUES_STRONG}|{BUDGET_CUES_WEAK})[^\d{CN_DIGITS},，。;]{{0,8}}?{CUR_RX}?\s*{AMOUNT}",
    rf"(?:¥|￥|\$)\s*{AMOUNT}",
    rf"(?<![\d.]){AMOUNT}\s*(?:{CURRENCY})",
]
#: the longest leg between stops (每段路不超过20分钟, at most 15 minutes between stops); Chinese first, then English
LEG_PATTERNS = [
    rf"(?:路上|单程|每段路?|两地之间|地点之间|景点之间|步行|走路|交通|车程|通勤|之间)[^,，。;\d]{{0,6}}?({NUM})\s*分钟",
    rf"不想走(?:超过)?({NUM})\s*分钟",
    r"(?:at most|no more than|max(?:imum)?|under|less than|within|up to)\s*(\d+)\s*(?:min|mins|minutes)\s*"
    r"(?:walk|walking|between|of walking|each way|per leg|travel)",
    r"(?:walks?|walking|legs?|travel)\s*(?:longer than|of more than|over|more than)?\s*"
    r"(?:at most|no more than|max|under|less than|within)?\s*(\d+)\s*(?:min|mins|minutes)",
]  # fmt: skip

# ---- the party ----------------------------------------------------------------------------------------------------
CHILD_ZH = r"孩子|小孩|娃|宝宝|小朋友|儿子|女儿|闺女|宝贝|男孩|女孩|孙子|孙女|外孙|婴儿"
CHILD_EN = r"kids?|children|child|sons?|daughters?|toddlers?|bab(?:y|ies)|boys?|girls?|little ones?"
CHILD_PAIRS = r"俩娃|两娃|二宝|俩孩子|双胞胎|龙凤胎|一儿一女|twins"
CHILD_PLURAL = r"孩子们|娃们|kids|children|little ones"
#: phrases that name children without bringing one ("kid-friendly places")
CHILD_NOT_PARTY = (
    r"kid-friendly|kid friendly|kids-friendly|child-friendly|family-friendly|children's|for the kids|儿童乐园"
)
SPOUSE = (
    r"老婆|老公|妻子|丈夫|太太|媳妇|爱人|对象|女朋友|男朋友|女友|男友|wife|husband|partner|spouse|girlfriend|boyfriend"
)
FRIEND_ZH = r"朋友|同事|同学|闺蜜|哥们|兄弟|姐妹"
FRIEND_EN = r"friends?|colleagues?|coworkers?|co-workers?"
PARENTS = r"爸妈|父母|爸爸妈妈|双亲|my parents|parents"
PARENT_ONE = r"我妈|老妈|妈妈|母亲|我爸|老爸|爸爸|父亲|(?<![a-z])mom|(?<![a-z])mum|mother|(?<![a-z])dad|father"
GRANDPARENTS = r"爷爷奶奶|外公外婆|姥姥姥爷|grandparents"
GRANDPARENT_ONE = r"爷爷|奶奶|外公|外婆|姥姥|姥爷|grandma|grandpa|grandmother|grandfather|granny"
ELDERLY = r"老人|长辈|老年人|elderly|seniors?|old folks"
COUPLE = r"我们俩|我俩|咱俩|两口子|情侣|约会|夫妻|小两口|the two of us|two of us|(?<![a-z])date(?![a-z])|couple(?! of)"
ALONE = r"我一个人|独自|自己一个人|solo|alone|by myself|just me|on my own"
_PN = rf"({NUM}|{EN_NUM})"
#: counts said: each pattern's first group is the number
CHILD_COUNT = [
    rf"(?<![\d.]){_PN}\s*(?:个|位|名)?\s*(?:{CHILD_ZH})",
    rf"(?<![a-z\d.]){_PN}\s+(?:little\s+)?(?:{CHILD_EN})(?![a-z])",
]
ADULTS_COUNT = [rf"{_PN}\s*(?:个|位|名)?\s*(?:大人|成人|成年人)", rf"(?<![a-z]){_PN}\s+adults?"]
PEOPLE_COUNT = [rf"(?<![每均\d.]){_PN}\s*(?:个|位|名)?\s*人(?!均|\s*\d)", rf"(?<![a-z]){_PN}\s+(?:people|persons|of us)",
                rf"party of {_PN}", r"we are (\d+|two|three|four|five|six|seven|eight|nine|ten)"]  # fmt: skip
FAMILY = rf"(?:一家|(?<![a-z])family of )\s*{_PN}\s*口?"
ELDERLY_COUNT = rf"{_PN}\s*(?:个|位|名)?\s*(?:老人|老年人)"
FRIENDS_COUNT = [rf"{_PN}\s*(?:个|位)?\s*(?:{FRIEND_ZH})", rf"(?<![a-z]){_PN}\s+(?:{FRIEND_EN})"]
#: ages: (pattern, divisor to years); 5岁 (ages 60+ mark seniors), 8个月的宝宝, 6 year old, 6yo, 18-month-old
AGE_PATTERNS = [
    (rf"({NUM})\s*周?岁", 1),
    (rf"({NUM})\s*个?月大?的?\s*(?:宝宝|婴儿|孩子|娃|宝贝)", 12),
    (r"(?<![\d.])(\d{1,2})[\s-]*(?:years?|yrs?)[\s-]*old", 1),
    (r"(?<![\d.])(\d{1,2})\s*y/?o(?![a-z])", 1),
    (r"(?<![\d.])(\d{1,2})[\s-]*months?[\s-]*old", 12),
]
#: a list of ages after "aged" or a child word: aged 4 and 9, kids, 3 and 7, my son (8)
AGE_LIST = (
    rf"(?:(?<![a-z])aged?|ages|(?<![a-z])(?:{CHILD_EN})\s*[,(:]?)\s*(\d{{1,2}}(?:\s*(?:,|and|&)\s*\d{{1,2}})*)"
    r"(?!\s*(?:am|pm|:|点|小时|hours?|h(?![a-z])|\d))"
)

# ---- named places -------------------------------------------------------------------------------------------------
#: words after which a Chinese place name may follow (去豫园, 逛田子坊, 在新天地附近)
PLACE_TRIGGERS_ZH = r"去|到|逛|参观|打卡|在|看看|游览|走到"
#: a name is cut where one of these begins (at its third character or later)
PLACE_CUTS = (
    "附近|周边|一带|那边|那里|这边|旁边|边上|里面|门口|一下|一趟|一圈|然后|上午|下午|中午|晚上|傍晚|人均|预算|野餐|"
    "的|了|吧|呢|啊|呀|嘛|看|吃|喝|玩|逛|走|拍|买|坐|骑|散|遛|溜|听|找|跑|爬|晒|喂|划|放|约|打|带|还|再|等|也|都|就|"
    "过|待|呆|转|参|游|聊|拜|烧|学|出|晨练|锻炼|运动|健身|，|,"
)
#: a piece starting with a time word is no name (到下午4点)
PLACE_TIME_START = r"上午|下午|中午|晚上|傍晚|早上|今|明|后天|周|星期|礼拜|现在|马上"
PLACE_JOINS = r"和|跟|、|或者|或|还有|以及|与"
#: a piece that starts with a verb is an activity, not a name (去吃本帮菜, 去打卡)
PLACE_VERB_START = "吃喝看玩逛走拍买坐骑散遛溜听找跑爬晒喂划滑放约打带减出回休住躺发待呆泡钓过聊享参转游做学拜烧尝品体"
PLACE_GENERIC = frozenset(
    "公园 博物馆 美术馆 展 展览 商场 街 逛街 外面 户外 室外 室内 附近 地方 哪 哪里 哪儿 那里 这里 那儿 这儿 玩 餐厅 饭店 "
    "咖啡馆 咖啡店 咖啡厅 茶馆 书店 游乐场 乐园 市集 集市 菜场 菜市场 家 景点 寺庙 教堂 动物园 植物园 海边 江边 河边 湖边 "
    "郊区 郊外 市区 市中心 城里 公司 学校 超市 电影院 影院 科技馆 水族馆 海洋馆 图书馆 老街 古镇 步行街 夜市 小吃街 酒吧 "
    "甜品店 朋友 老婆 老公 孩子 爸妈 父母 老人 宝宝 娃 滨江 商圈 网红店 馆 山 湖 寺 庙 江 河 海 出发 外地 周边 家里 "
    "室内场馆 儿童乐园 亲子乐园 游乐园 商店 公司 单位 医院".split()
)
#: generic heads: a piece that is only modifiers followed by one of these is no name (一个安静的公园, 网红地标)
PLACE_GENERIC_HEADS = (
    "海洋馆", "水族馆", "博物馆", "美术馆", "科技馆", "动物园", "植物园", "游乐场", "咖啡馆", "地标", "建筑", "地方", "景点",
    "公园", "商场", "餐厅", "饭店", "店", "馆", "街",
)  # fmt: skip
PLACE_MODIFIERS = frozenset(
    "安静 好玩 有趣 有意思 网红 热门 小众 人少 大 小 新 老 近 远 漂亮 好看 历史 文艺 适合孩子 附近 周边 一个 个 一家 家 "
    "这个 那个 几个 某个 一些 些 室内 户外".split()
)
#: capitalised English words that are no place names (days, months, pronouns, cuisines)
EN_NOT_PLACES = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday january february march april may june july august "
    "september october november december jan feb mar apr jun jul aug sep sept oct nov dec i i'm this next tomorrow "
    "today tonight chinese shanghainese cantonese western japanese korean english mum mom dad grandma grandpa thai indian "
    "italian french sichuan szechuan hunan yunnan mexican vietnamese spanish greek turkish".split()
)
