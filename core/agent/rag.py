"""SYSTEM1_RAG: BM25 retrieval over the region pack's facts (+ optional ``data/kb/<region>.json``).

Documents are the pack's places (names, aliases, district, address, category, tags, opening hours,
price, rating) and any extra knowledge facts. Chinese is tokenised into character bigrams (single
characters for one-character runs), other scripts into lower-cased words; category and tag codes
are expanded into their Chinese and English words so "博物馆" finds ``museum``.

A hit is only an answer when it *covers* the query: the IDF-weighted share of the query's terms
found in the top document must reach ``MIN_COVERAGE``. Otherwise the answer says the knowledge base
has nothing about it, and never invents.
"""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from core.i18n import CJK, has_cjk
from core.models.region import RegionPack, RegionPlace

K1 = 1.5
B = 0.75
MIN_COVERAGE = 0.6
MIN_SCORE = 1.0

CATEGORY_WORDS = {
    "landmark": "地标 景点 名胜 landmark sight sightseeing attraction",
    "restaurant": "餐厅 饭店 美食 吃饭 馆子 restaurant food eat dining",
    "museum": "博物馆 展览 展馆 museum exhibition gallery",
    "shopping": "购物 逛街 商场 shopping mall shop",
    "hotel": "酒店 宾馆 住宿 hotel stay accommodation",
    "park": "公园 绿地 park garden",
    "station": "车站 火车站 地铁站 station railway",
    "temple": "寺庙 寺 庙 temple",
    "theatre": "剧院 演出 剧场 theatre theater show",
    "family": "亲子 家庭 带孩子 family kids",
    "cafe": "咖啡 咖啡馆 cafe coffee",
    "market": "市场 菜场 集市 market",
    "airport": "机场 airport",
    "district": "片区 城区 街区 district neighbourhood",
    "address": "地址 address",
}
TAG_WORDS = {
    "indoor": "室内 indoor",
    "outdoor": "户外 室外 outdoor",
    "historic": "历史 古迹 老建筑 historic history",
    "rainy_day_ok": "雨天 下雨 rainy rain",
    "photo_spot": "拍照 打卡 出片 photo",
    "food": "美食 小吃 food",
    "free": "免费 free",
    "kid_friendly": "亲子 带孩子 儿童 kids children family",
    "premium": "高端 premium luxury",
    "quiet": "安静 人少 冷门 小众 quiet hidden",
    "local_favourite": "本地人 地道 老字号 冷门 local",
    "art": "艺术 美术 art",
    "night_view": "夜景 晚上 night view",
    "shopping": "购物 shopping",
    "budget": "便宜 实惠 平价 budget cheap",
    "nature": "自然 风景 nature",
    "transport": "交通 transport",
    "accessible": "无障碍 轮椅 accessible wheelchair",
    "science": "科学 科技 science",
    "vegetarian_friendly": "素食 vegetarian",
    "halal": "清真 halal",
}
# Words that ask rather than describe: removed from the query before matching.
QUERY_STOPWORDS = [
    "推荐一下",
    "推荐几个",
    "推荐",
    "请问",
    "一下",
    "有什么",
    "有哪些",
    "什么",
    "哪里",
    "哪儿",
    "哪家",
    "哪个",
    "好吃的",
    "好玩的",
    "好吃",
    "好玩",
    "值得去",
    "值得",
    "附近的",
    "附近",
    "的",
    "吗",
    "呢",
    "吧",
    "几点",
    "开门",
    "关门",
    "营业时间",
    "开放时间",
    "多少钱",
    "多少",
    "价格",
    "门票",
    "人均",
    "地址",
    "在哪里",
    "在哪",
    "介绍",
    "是什么",
    "我想",
    "想去",
    "我们",
    "帮我",
    "给我",
    "一家",
    "一个",
    "有没有",
    "可以",
    "适合",
    "去",
    "找",
    "个",
    "recommend",
    "recommendation",
    "recommendations",
    "suggest",
    "please",
    "what",
    "where",
    "which",
    "is",
    "are",
    "the",
    "a",
    "an",
    "in",
    "at",
    "of",
    "for",
    "to",
    "me",
    "some",
    "any",
    "good",
    "best",
    "nice",
    "place",
    "places",
    "spot",
    "spots",
    "can",
    "i",
    "we",
    "go",
    "find",
    "tell",
    "about",
    "open",
    "opening",
    "hours",
    "price",
    "how",
    "much",
    "does",
    "do",
    "when",
    "ticket",
    "tickets",
    "address",
    "near",
    "around",
    "there",
    "it",
    "and",
    "or",
    "worth",
    "visiting",
    "visit",
    "with",
    "on",
]
_STOP_RX = re.compile("|".join(re.escape(w) for w in sorted(QUERY_STOPWORDS, key=len, reverse=True) if has_cjk(w)))
_EN_STOP = {w for w in QUERY_STOPWORDS if not has_cjk(w)}
_CJK_RUN = re.compile(f"[{CJK}]+")
_WORD = re.compile(r"[a-z0-9][a-z0-9'\-]*")


def tokenize(text: str) -> list[str]:
    """Character bigrams for Chinese runs (a lone character as itself), lower-cased words otherwise."""
    text = (text or "").lower()
    out: list[str] = []
    for run in _CJK_RUN.findall(text):
        if len(run) == 1:
            out.append(run)
        else:
            out.extend(run[i : i + 2] for i in range(len(run) - 1))
    for w in _WORD.findall(_CJK_RUN.sub(" ", text)):
        w = w.strip("'-")
        if w:
            out.append(w)
    return out


def query_tokens(query: str, vocab: dict[str, int] | None = None) -> list[str]:
    """The query's terms without asking words. With a vocabulary, a bigram that only straddles the
    boundary of two known words ("冷门|景点" -> "门景") is dropped: it is an artefact, not a term."""
    q = _STOP_RX.sub(" ", query.lower())
    out: list[str] = []
    for run in _CJK_RUN.findall(q):
        grams = [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        for i, g in enumerate(grams):
            if (
                vocab is not None
                and len(grams) >= 3
                and g not in vocab
                and 0 < i < len(grams) - 1
                and grams[i - 1] in vocab
                and grams[i + 1] in vocab
            ):
                continue
            out.append(g)
    for w in _WORD.findall(_CJK_RUN.sub(" ", q)):
        w = w.strip("'-")
        if w and w not in _EN_STOP:
            out.append(w)
    return out


def _norm_name(text: str) -> str:
    return re.sub(r"[\s\W_]+", "", (text or "").lower())


@dataclass
class KBDoc:
    doc_id: str
    title: str
    text: str
    place: RegionPlace | None = None
    facts: dict[str, Any] = field(default_factory=dict)
    source: str = ""


def place_document(place: RegionPlace, region: str) -> KBDoc:
    parts = [
        place.name_zh,
        place.name_en,
        *place.aliases,
        place.district,
        place.address,
        place.category,
        CATEGORY_WORDS.get(place.category, ""),
        *place.tags,
        *(TAG_WORDS.get(t, "") for t in place.tags),
    ]
    facts = {
        "place_id": place.id,
        "name": place.name_zh,
        "name_en": place.name_en,
        "category": place.category,
        "district": place.district,
        "address": place.address,
        "opening_hours": place.opening_hours,
        "price_per_person": place.price_per_person,
        "rating": place.rating,
        "visit_minutes": place.visit_minutes,
        "needs_reservation": place.needs_reservation,
        "tags": list(place.tags),
    }
    return KBDoc(
        doc_id=place.id,
        title=place.name_zh,
        text=" ".join(p for p in parts if p),
        place=place,
        facts=facts,
        source=f"region_pack:{region}",
    )


def load_kb_facts(kb_dir: Path | None, region: str) -> list[KBDoc]:
    """Extra facts in ``data/kb/<region>.json``: ``{"facts": [{"id", "title", "text", "place_id"?, "source"}]}``."""
    if kb_dir is None:
        return []
    path = Path(kb_dir) / f"{region}.json"
    if not path.is_file():
        return []
    data = json.loads(path.read_text(encoding="utf-8"))
    docs = []
    for item in data.get("facts", []):
        docs.append(
            KBDoc(
                doc_id=str(item["id"]),
                title=str(item["title"]),
                text=f"{item['title']} {item['text']} {' '.join(item.get('keywords', []))}",
                facts={
                    "fact_id": item["id"],
                    "title": item["title"],
                    "text": item["text"],
                    "place_id": item.get("place_id"),
                    "url": item.get("url"),
                },
                source=str(item.get("source", f"kb:{region}")),
            )
        )
    return docs


class BM25Index:
    """Okapi BM25 over a small corpus (numpy; a term-document matrix of raw counts)."""

    def __init__(self, docs: list[KBDoc]):
        self.docs = docs
        tokenised = [tokenize(d.text) for d in docs]
        vocab: dict[str, int] = {}
        for toks in tokenised:
            for t in toks:
                vocab.setdefault(t, len(vocab))
        self.vocab = vocab
        tf = np.zeros((len(docs), max(len(vocab), 1)), dtype=np.float32)
        for i, toks in enumerate(tokenised):
            for t in toks:
                tf[i, vocab[t]] += 1
        self.tf = tf
        self.doc_len = tf.sum(axis=1)
        self.avgdl = float(self.doc_len.mean()) if len(docs) else 1.0
        df = (tf > 0).sum(axis=0)
        n = len(docs)
        self.idf = np.log(1 + (n - df + 0.5) / (df + 0.5)).astype(np.float32)
        self.max_idf = float(math.log(1 + (n + 0.5) / 0.5)) if n else 1.0

    def term_idf(self, term: str) -> float:
        j = self.vocab.get(term)
        return float(self.idf[j]) if j is not None else self.max_idf

    def scores(self, terms: list[str]) -> np.ndarray:
        out = np.zeros(len(self.docs), dtype=np.float32)
        norm = K1 * (1 - B + B * self.doc_len / max(self.avgdl, 1e-9))
        for t in dict.fromkeys(terms):
            j = self.vocab.get(t)
            if j is None:
                continue
            f = self.tf[:, j]
            out += self.idf[j] * f * (K1 + 1) / (f + norm)
        return out

    def coverage(self, terms: list[str], doc_index: int) -> float:
        """IDF-weighted share of the query terms present in one document (unknown terms weigh the most)."""
        uniq = list(dict.fromkeys(terms))
        if not uniq:
            return 0.0
        total = sum(self.term_idf(t) for t in uniq)
        hit = sum(self.term_idf(t) for t in uniq if t in self.vocab and self.tf[doc_index, self.vocab[t]] > 0)
        return hit / total if total else 0.0


@dataclass
class RetrievalHit:
    doc: KBDoc
    score: float
    coverage: float


@dataclass
class Retrieval:
    query: str
    terms: list[str]
    hits: list[RetrievalHit]
    covered: bool
    missing_terms: list[str]


class KnowledgeBase:
    def __init__(self, pack: RegionPack, *, kb_dir: Path | None = None):
        self.pack = pack
        docs = [place_document(p, pack.name) for p in pack.places] + load_kb_facts(kb_dir, pack.name)
        self.index = BM25Index(docs)
        self._names = [
            [
                n
                for n in {
                    _norm_name(d.place.name_zh),
                    _norm_name(d.place.name_en),
                    *(_norm_name(a) for a in d.place.aliases),
                }
                if len(n) >= 2 and not (n.isascii() and len(n) < 4)
            ]
            if d.place
            else []
            for d in docs
        ]

    def search(self, query: str, *, k: int = 5) -> Retrieval:
        terms = query_tokens(query, self.index.vocab)
        if not terms or not self.index.docs:
            return Retrieval(query=query, terms=terms, hits=[], covered=False, missing_terms=terms)
        scores = self.index.scores(terms)
        # A place named in full in the query ("豫园", "Shanghai Museum") is what the user asks about.
        qn = _norm_name(query)
        for i, names in enumerate(self._names):
            best = max((len(n) for n in names if n in qn), default=0)
            if best:
                scores[i] += 3.0 + best * (1.0 if best >= 4 else 0.8)
                if any(n == qn or qn.endswith(n) or qn.startswith(n) for n in names if len(n) == best):
                    scores[i] += 1.0
        order = np.argsort(-scores, kind="stable")[: max(k * 3, k)]
        hits = [
            RetrievalHit(doc=self.index.docs[i], score=float(scores[i]), coverage=self.index.coverage(terms, int(i)))
            for i in order
            if scores[i] > 0
        ]
        # Rank by relevance, then prefer documents that cover more of the query.
        hits.sort(key=lambda h: (-(h.score * (0.5 + h.coverage)), h.doc.doc_id))
        hits = hits[:k]
        covered = bool(hits) and hits[0].coverage >= MIN_COVERAGE and hits[0].score >= MIN_SCORE
        relevant = [h for h in hits if h.coverage >= MIN_COVERAGE] if covered else []
        missing = [t for t in dict.fromkeys(terms) if t not in self.index.vocab]
        return Retrieval(query=query, terms=terms, hits=relevant, covered=covered, missing_terms=missing)


_KB_CACHE: dict[tuple[str, int, str], KnowledgeBase] = {}
_KB_LOCK = threading.Lock()


def knowledge_base(pack: RegionPack, *, kb_dir: Path | None = None) -> KnowledgeBase:
    key = (pack.name, id(pack), str(kb_dir))
    with _KB_LOCK:
        kb = _KB_CACHE.get(key)
        if kb is None:
            kb = _KB_CACHE[key] = KnowledgeBase(pack, kb_dir=kb_dir)
        return kb
