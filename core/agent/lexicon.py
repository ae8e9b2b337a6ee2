"""The router's lexicons: the words and patterns of each intent and risk, in Chinese and English (hard-rule verbs,
trip edits, questions, realtime needs, planning, constraints, negation)."""

from __future__ import annotations

import re

_CN_NUM = "一二两三四五六七八九十"


def _rx(*parts: str) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{p})" for p in parts), re.IGNORECASE)


URL = re.compile(r"https?://[^\s，。,;；\"'<>）)]+", re.IGNORECASE)


BROWSER = _rx(
    r"官网",
    r"官方网站",
    r"网站",
    r"网页",
    r"浏览器",
    r"上网查",
    r"网上查",
    r"打开.{0,6}(网|链接|页面)",
    r"\bwebsites?\b",
    r"\bofficial (site|page)\b",
    r"\bbrowse\b",
    r"\bbrowser\b",
    r"\bweb ?page\b",
    r"\bonline\b",
    URL.pattern,
)


PAYMENT = _rx(r"支付", r"付款", r"付钱", r"刷卡", r"买单", r"\bpay(ment)?\b", r"\bcharge my\b", r"\bcheckout\b")


REFUND = _rx(r"退款", r"退票", r"退钱", r"\brefund", r"\bmoney back\b")  # 退订 cancels a booking


BOOKING = _rx(
    r"(帮我|给我|替我|请|我要|我想)?(预订|预定|预约)(?!的)",
    r"(帮我|给我|替我|请|我要|我想)订(一|两|个|张|间|家|份|晚|房|票|位|桌|座)",
    r"(帮我|给我|替我)(订|买)",
    r"^\W*(请|麻烦你?|帮忙)?订(?!单|阅|正)",  # "订明天晚上七点的本帮菜": a message that starts by booking
    r"下单",
    r"买(票|门票|机票|车票)",
    r"\bbook (me|us|a|an|the|it|two|one|tickets?|rooms?|tables?)\b",
    r"^\W*(please\s+)?book\b(?!\s+(is|was|about|of|by)\b)",  # "book Lu Bo Lang tomorrow for 2"
    r"\b(please|can you|could you|would you|pls)\s+book\b",
    r"\bmake a (booking|reservation)\b",
    r"\breserve\b",
    r"\bbuy (a |the |two )?tickets?\b",
    r"\bbook (now|immediately|right away|for (me|us)|this|that|them|tonight|tomorrow)\b",
    r"(立即|马上|立刻|直接|现在)(预订|预定|订|下单|购买|买)",
)


#: a booking verb said anywhere in a message ("明天19:00订绿波廊", "a table for two at …", "帮忙订一下"): a booking
#: only with at least two of a day, a time and a party beside it (core.agent.features); alone it may be a question
BOOKING_VERB = _rx(
    r"(?<!修|装|签|预|选|制|拟|审|增|删)订(?!单|阅|正|制|金|购|婚|立|货|做|户|书|票价)",
    r"(预订|预定|预约|订座|订位|订桌)",
    r"\b(book|booking|reserve|reservation)\b",
    r"\b(get|grab|have|want|need|like)\s+(us\s+|me\s+)?a\s+table\b",
    r"\btable\s+for\s+(\d+|one|two|three|four|five|six|seven|eight|nine|ten|us)\b",
)


# "Can I still book …?" / "还能订到吗" asks about availability; it is not a request to book.
BOOKING_QUESTION = _rx(
    r"(能|可以|还能|订得)到",
    r"可订",
    r"能不能订",
    r"(可以|能|能不能|可不可以|还能|可否)(提前)?(预订|预定|预约|订)",  # "绿波廊可以预约吗" asks; "能帮我订" does not match
    r"(需要|需不需要|要不要|用不用|必须|得)(提前)?(预订|预定|预约|订)[^，,。.!！]{0,12}?(吗|么|嘛|\?|？)",
    r"\bcan (i|we|one)\s*(still )?book\b",  # "can you book …" is a request
    r"\b(do|does|did) (i|we|you|one) (need|have) to (book|reserve)\b",
    r"\bis it (still )?possible to book\b",
    r"\bbookable\b",
    r"\bavailable (to|for) book",
)


_BOOKED_THING = r"预订|预定|预约|订位|订座|订单|订房|机票|酒店|门票"
_CLAUSE = r"[^，,。.!！?？;；\n]"


# Cancelling a reservation (its own intent: it never books). "取消外滩" is a trip edit, not this.
CANCEL_BOOKING = _rx(
    rf"取消{_CLAUSE}{{0,30}}?({_BOOKED_THING})",
    rf"(把|将){_CLAUSE}{{0,30}}?(预订|预定|预约|订位|订座|订单){_CLAUSE}{{0,4}}?取消",
    r"(预订|预定|预约|订位|订单)(也)?(不要了|取消)",
    r"退订",
    r"\bcancel\b[^,.;!?\n]{0,40}?\b(booking|reservation|order|ticket|flight|hotel|table|visit|seat)s?\b",
)


# Listing one's own reservations: read-only, never a request to book.
LIST_BOOKINGS = _rx(
    r"我(们)?的(所有|全部)?(预订|预定|预约|订单|订位)",
    r"我(们)?(都|已经)?(订|预订|预定|预约)了(什么|哪些|啥|几个|多少|些什么)",
    r"(查看|查询|查一下|看看|看一下|列出|显示)(一下)?(我|我们)?(的)?(所有|全部)?(预订|预定|预约|订单)",
    r"(预订|预约)(记录|列表|清单)",
    r"\bmy (bookings?|reservations?|orders?)\b",
    r"\bwhat (have|did) (i|we) (booked|book|reserved|reserve)\b",
    r"\b(show|list|see|view|check)\b[^.?!\n]{0,20}\b(bookings|reservations)\b",
    r"\b(do|did) (i|we) have (any )?(bookings?|reservations?)\b",
    r"\bwhat('s| is) booked\b",
)


BULK_WRITE = _rx(
    r"批量",
    r"全部删",
    r"全都删",
    r"删(除|掉)?(所有|全部)",
    r"清空",
    r"所有行程",
    r"\bdelete (all|every)",
    r"\bbulk\b",
    r"\bclear (the |my )?(trip|itinerary|plan)\b",
    r"\bremove (all|everything)\b",
    r"\bwipe\b",
)


# Explicit trip CRUD: delete / add / move / reprioritise / rename / swap days.
CRUD_DELETE = _rx(
    r"删除",
    r"删掉",
    r"删了",
    r"去掉",
    r"移除",
    r"拿掉",
    r"不去了?",
    r"取消(?!.*(预订|订单|预约))",
    r"\b(delete|remove|drop)\b",
    r"\bskip\b",
    r"\btake out\b",
)


CRUD_ADD = _rx(
    r"加上",
    r"添加",
    r"加入",
    r"增加",
    r"加个",
    r"加一个",
    r"再加",
    r"也去",
    r"加到",  # 把外滩加到我的行程, 加到第二天
    r"加进",
    r"放进",
    r"\badd\b",
    r"\binclude\b",
    r"\bput .{1,40} in\b",
)


CRUD_MOVE = _rx(r"(移|挪|换|调|放|改)到", r"提前到", r"推迟到", r"\bmove\b", r"\breschedule\b", r"\bshift\b")


CRUD_PRIORITY = _rx(
    r"必去",
    r"设为(必|可选|优先)",
    r"优先级",
    r"改成可选",
    r"不是必去",
    r"\bmust[- ]visit\b",
    r"\bprioriti[sz]e\b",
    r"\bmake .{1,40} (optional|a must)\b",
    r"\bpriority\b",
)


CRUD_RENAME = _rx(r"重命名", r"改名", r"名字改", r"\brename\b")


CRUD_SWAP = _rx(r"(对调|互换|交换|调换)", r"\bswap\b", r"\bswitch day")


WEATHER = _rx(
    r"天气",
    r"天汽",
    r"天起(怎么样|如何|预报)",
    r"\bw(e|ea|ae)a?th?(e|a)?r\b(?! or not)",
    r"\bweahter\b",
    r"气温",
    r"温度",
    r"下雨吗",
    r"会下雨",
    r"降雨",
    r"下雪",
    r"冷不冷",
    r"热不热",
    r"\bweather\b",
    r"\bforecast\b",
    r"\btemperature\b",
    r"\bwill it rain\b",
    r"\braining\b",
)


TRAVEL_TIME = _rx(
    r"多久",
    r"多长时间",
    r"多少分钟",
    r"多远",
    r"怎么(去|走)",
    r"要开多久",
    r"路上.{0,3}时间",
    r"\bhow long\b",
    r"\bhow far\b",
    r"\btravel time\b",
    r"\bdistance (from|between)\b",
    r"\bhow do i get\b",
    r"\bminutes from\b",
)


FROM_TO = [
    re.compile(
        r"从(?P<a>.+?)(到|去|至)(?P<b>.+?)(要|需要|得|大概|开车|步行|走路|坐车|骑车|多久|多长|多少|多远|怎么|有多|的距离|$)"
    ),
    re.compile(
        r"(?P<a>[^\s，,。]{1,40}?)(到|去)(?P<b>[^\s，,。]{1,40}?)(要|需要|得|大概|开车|步行|走路|多久|多长|多少|多远|怎么|有多)"
    ),
    re.compile(r"\bfrom (?P<a>.+?) to (?P<b>.+?)(\?|$| by | on foot| walking| driving)", re.IGNORECASE),
    re.compile(r"\bbetween (?P<a>.+?) and (?P<b>.+?)(\?|$)", re.IGNORECASE),
]


WALKING = _rx(r"步行", r"走路", r"走过去", r"\bwalk", r"\bon foot\b")


FACT_QUERY = _rx(
    r"推荐",
    r"哪里",
    r"哪儿",
    r"哪家",
    r"哪个",
    r"营业时间",
    r"开放时间",
    r"几点(开|关)",
    r"开门",
    r"关门",
    r"门票",
    r"多少钱",
    r"价格",
    r"人均",
    r"地址",
    r"在哪",
    r"介绍",
    r"是什么",
    r"有什么",
    r"有哪些",
    r"值得",
    r"好吃",
    r"评分",
    r"特色",
    r"适合",
    r"需要预约吗",
    r"要预约吗",
    r"\brecommend",
    r"\bsuggest",
    r"\bwhere (is|are|can)\b",
    r"\bwhat (is|are)\b",
    r"\bopening hours\b",
    r"\bwhen does\b",
    r"\bopen\b",
    r"\bhours\b",
    r"\bwhat time\b",
    r"\bclos(e|es|ing)\b",
    r"\bprice\b",
    r"\bhow much\b",
    r"\bticket\b",
    r"\baddress\b",
    r"\bbest\b",
    r"\bgood (place|spot)s?\b",
    r"\btell me about\b",
    r"\bany\b.{1,30}\bnear\b",
    r"\bworth\b",
)


AVAILABILITY = _rx(
    r"有房",
    r"有没有房",
    r"空房",
    r"余票",
    r"有票",
    r"还有票",
    r"订得到",
    r"能订到",
    r"还能订",
    r"可订",
    r"限量",
    r"售罄",
    r"查房",
    r"\bavailab",
    r"\bvacanc",
    r"\bsold out\b",
    r"\bcan (i |we |you )?(still )?book\b",
    r"\bbookable\b",
    r"\blimited\b",
    r"\bin stock\b",
)


REALTIME = _rx(
    r"\bcan (i |we |you )?(still )?book\b",
    r"\bbookable\b",
    r"查房",
    r"官网",
    r"有房",
    r"有没有房",
    r"空房",
    r"余票",
    r"有票",
    r"还有票",
    r"订得到",
    r"能订到",
    r"还能订",
    r"可订",
    r"今天",
    r"今晚",
    r"现在",
    r"此刻",
    r"实时",
    r"限量",
    r"排队",
    r"人多吗",
    r"售罄",
    r"抢",
    r"\btoday\b",
    r"\btonight\b",
    r"\bright now\b",
    r"\bnow\b",
    r"\blive\b",
    r"\bsold out\b",
    r"\blimited\b",
    r"\bavailab",
    r"\bvacanc",
    r"\bin stock\b",
    r"\bqueue\b",
)


PLANNING = _rx(
    r"规划",
    r"计划",
    r"安排",
    r"行程",
    r"攻略",
    r"路线",
    r"几天",
    r"(?<!第)[0-9" + _CN_NUM + r"]+\s*(天|日)(游|行|的)?(?!落|出|本)",
    r"赶得上",
    r"赶不上",
    r"来得及",
    r"来不及",
    r"一日游",
    r"半日游",
    r"周末游",
    r"怎么玩",
    r"\bplan\b",
    r"\bitinerary\b",
    r"\bschedule\b",
    r"\b\d+[- ]?days?\b",
    r"\bday trip\b",
    r"\bweekend\b",
    r"\bmake it (in time|before)\b",
    r"\broute for\b",
)


DAYS = re.compile(
    r"(?<![第0-9" + _CN_NUM + r"])(?P<n>[0-9]+|[" + _CN_NUM + r"]+)\s*(天|日(?!落|出|本)|days?\b|-day\b)", re.IGNORECASE
)


CONDITIONAL = [
    re.compile(r"(如果|要是|假如|假设|万一|若是?|倘若)(?P<cond>.+?)(的话)?[，,]?\s*(就|那就|则|便)(?P<then>.+)"),
    re.compile(
        r"(?P<cond>(赶不上|来不及|赶得上|下雨|太晚|排队太长|关门|满了|没票|没房|太累|太远|堵车).*?)(的话)?[，,]?\s*(就|那就|则)(?P<then>.+)"
    ),
    re.compile(
        r"\bif (?P<cond>.+?)[,;]?\s*(then |we'll |i'll |let's |go |switch |change |otherwise )(?P<then>.+)",
        re.IGNORECASE,
    ),
    re.compile(r"(?P<cond>.+?)[,;]?\s*\botherwise\b\s*(?P<then>.+)", re.IGNORECASE),
    re.compile(r"(?P<cond>.+?)[，,]?\s*(否则|不然)(?P<then>.+)"),
]


CONSTRAINT_MARKERS = _rx(
    r"\+",
    r"又要",
    r"还要",
    r"但不要",
    r"不要",
    r"不想",
    r"并且",
    r"而且",
    r"同时",
    r"既要",
    r"顺便",
    r"最好",
    r"冷门",
    r"小众",
    r"人少",
    r"预算",
    r"带(孩子|老人|小孩)",
    r"亲子",
    r"无障碍",
    r"轮椅",
    r"素食",
    r"清真",
    r"便宜",
    r"免费",
    r"室内",
    r"雨天",
    r"夜景",
    r"不排队",
    r"还能订到",
    r"能订到",
    r"必须",
    r"一定要",
    r"\bbut not\b",
    r"\bwithout\b",
    r"\bbudget\b",
    r"\bcheap\b",
    r"\bfree\b",
    r"\bkids?\b",
    r"\bwheelchair\b",
    r"\bvegetarian\b",
    r"\bhalal\b",
    r"\bindoor\b",
    r"\bhidden gems?\b",
    r"\bcan (i |we |you )?(still )?book\b",
    r"\bwith\b",
    r"\boff the beaten\b",
    r"\bquiet\b",
    r"\bmust\b",
    r"\bavoid\b",
    r"\band also\b",
    r"\bas well as\b",
    r"\bno more than\b",
)


PRONOUNS = _rx(
    r"这个",
    r"那个",
    r"那家",
    r"这家",
    r"那里",
    r"这里",
    r"那儿",
    r"它",
    r"他们",
    r"上次",
    r"刚才那",
    r"\bit\b",
    r"\bthat one\b",
    r"\bthis one\b",
    r"\bthere\b",
    r"\bthose\b",
    r"\bthe same\b",
)


DATE = _rx(
    r"今天",
    r"明天",
    r"\btomm?orr?ow\b",
    r"\btmrw?\b",
    r"后天",
    r"大后天",
    r"下?周[一二三四五六日天末]",
    r"下?星期[一二三四五六日天]",
    r"\d{1,2}月\d{1,2}[日号]",
    r"\d{4}-\d{2}-\d{2}",
    r"\btoday\b",
    r"\btomorrow\b",
    r"\bnext (week|mon|tue|wed|thu|fri|sat|sun)",
    r"\b(mon|tues|wednes|thurs|fri|satur|sun)day\b",
    r"\bon the \d",
)


PARTY = _rx(
    r"[0-9" + _CN_NUM + r"]+\s*(个人|人|位|口)",
    r"一家",
    r"全家",
    r"情侣",
    r"独自",
    r"一个人",
    r"带(孩子|老人|父母)",
    r"\b\d+ (people|persons|adults|of us)\b",
    r"\bfamily\b",
    r"\bcouple\b",
    r"\bsolo\b",
    r"\bwith kids\b",
)


BUDGET = _rx(r"预算", r"\d+\s*(元|块|rmb|cny|¥)", r"¥\s*\d+", r"便宜", r"\bbudget\b", r"\$\s*\d+", r"\bcheap\b")


CITY = _rx(
    r"上海",
    r"北京",
    r"杭州",
    r"苏州",
    r"南京",
    r"广州",
    r"深圳",
    r"成都",
    r"西安",
    r"重庆",
    r"东京",
    r"京都",
    r"大阪",
    r"横滨",
    r"香港",
    r"澳门",
    r"台北",
    r"首尔",
    r"新加坡",
    r"\bshanghai\b",
    r"\bbeijing\b",
    r"\bhangzhou\b",
    r"\bsuzhou\b",
    r"\btokyo\b",
    r"\bkyoto\b",
    r"\bosaka\b",
    r"\byokohama\b",
    r"\bhong kong\b",
    r"\bseoul\b",
)


# A risky or editing verb the user explicitly negates ("不要订票", "don't book", "no booking", "不要删除外滩")
# is not a request to do it. The negation must sit right before the verb (optionally "帮我/want to"), so
# "别忘了帮我订票" or "don't forget to book" stay requests. The match runs to the end of the clause, so
# "不要订太贵的，帮我订一间" keeps its second clause.
_NEG_ZH_VERBS = (
    r"预订|预定|预约|订|买|下单|支付|付款|付钱|刷卡|退款|退票|退钱|退订|取消|删除|删掉|删|去掉|移除|拿掉|清空|"
    r"批量|加上|添加|加入|移|挪|改|换|对调|互换|交换|重命名|保存"
)


NEGATED_ACTION = _rx(
    r"(不要|不想|不用|不需要|无需|不必|别|先别|暂时不|暂不|并不想|没打算|不打算)\s*(帮我|给我|替我|帮忙|去|再|自动)?\s*((把|将)[^，,。.!！?？;；\n]{1,20}?)?("
    + _NEG_ZH_VERBS
    + r")[^，,。.!！?？;；\n]*",
    r"\b(don'?t|do not|dont|never|no need to|not going to|won'?t|please don'?t)\s+(want to\s+|need to\s+|wanna\s+|"
    r"actually\s+)?(book|reserve|pay|refund|cancel|buy|purchase|checkout|delete|remove|drop|clear|wipe|add|move|"
    r"rename|swap|save)\b[^,.;!?\n]*",
    r"\bno (booking|reservation|payment|refund|purchase|changes?|edits?)s?\b",
    r"\bwithout (booking|reserving|paying|buying)\b",
)


SAVE = _rx(r"保存", r"存到", r"存下", r"写入", r"记到", r"更新到我的行程", r"\bsave\b", r"\bpersist\b", r"\bstore it\b")
