"""The words of a trip request's interests that the trip request (core/agent/trip_request.py: suggestions) and its
wish accounting (core/agent/trip_wishes.py) both read: the interests no tag of the packs says, and a party with
children. Data only."""

from __future__ import annotations

import re

#: a party with children (亲子, with kids): their places should suit them
KIDS_SAID = re.compile(
    r"亲子|带孩子|小孩|孩子|儿童|女儿|儿子|宝宝|\bkids?\b|family|\bchild(ren)?\b|\bson\b|\bdaughter\b", re.I
)

#: interests no tag of the packs says, read from the places' own names and aliases: (what the message says, what a
#: place's name says). A child who loves animals wants the zoo, the aquarium and the wildlife park.
INTEREST_NAMES = [
    (
        re.compile(
            r"动物|野生|海洋生物|水族|企鹅|熊猫|海豚|鲨鱼|\banimals?\b|\bwildlife\b|\bzoos?\b|\baquariums?\b"
            r"|\bsea (creatures|life|animals)\b|\bmarine\b|\bpenguins?\b|\bpandas?\b|\bdolphins?\b|\bsharks?\b",
            re.I,
        ),
        # whole words: "Zoomi" (a photo shop) is no zoo, "Ilmarinen" no marine park
        re.compile(
            r"动物|水族|海洋|海底|\b(?:zoos?|zool\w*|aquariums?|oceanarium|oceanogr\w*|wildlife|safari|ocean|marine|sea ?life)\b",
            re.I,
        ),
    ),
]
