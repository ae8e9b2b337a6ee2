"""Recall by similarity: hashed character n-gram TF-IDF vectors compared by cosine, on numpy alone.

Why this vectoriser: the snippets are a person's own short messages and plans, in Chinese and English, often
mixed, and recall runs on the API's and the dashboard's machines with no network and no model files.

- Character n-grams need no word segmenter: Chinese has no spaces (a segmenter such as jieba would be a new dependency
  with its own dictionary), and character uni- and bigrams of a CJK run match 外滩夜景 with 外滩的夜景. English
  gets whole words plus character trigrams inside each word, so "restaurants" still meets "restaurant".
- Hashing (CRC-32, stable across processes, unlike Python's salted ``hash``) into a fixed space needs no stored
  vocabulary: a user's snippets are vectorised when recalled, so forgetting a snippet forgets everything it taught.
- TF-IDF over the user's own snippets weighs down what every snippet says (上海, trip) and up what sets one apart.
- A pretrained sentence encoder would know synonyms, but needs model weights (a download this project may not make)
  and a heavy runtime (torch); scikit-learn's HashingVectorizer does the same as this module with scipy and
  scikit-learn as new dependencies. At the few hundred snippets one person has, this is a handful of numpy calls.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections import Counter

import numpy as np
from numpy.typing import NDArray

DIMENSIONS = 1 << 18  # collisions stay rare at a person's vocabulary (tens of thousands of n-grams at most)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_WORD = re.compile(r"[a-z0-9]+")


def features(text: str) -> Counter[str]:
    """The n-grams of ``text``: CJK character uni- and bigrams; latin words and their character trigrams."""
    t = unicodedata.normalize("NFKC", text).lower()
    out: Counter[str] = Counter()
    for run in _CJK.findall(t):
        out.update(run)
        out.update(run[i : i + 2] for i in range(len(run) - 1))
    for word in _WORD.findall(_CJK.sub(" ", t)):
        out[f"w:{word}"] += 1
        padded = f"<{word}>"
        out.update(f"c:{padded[i : i + 3]}" for i in range(len(padded) - 2))
    return out


def _hashed(text: str) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """One text's sparse vector: unique bucket indices and sublinear term frequencies (1 + log tf)."""
    buckets: Counter[int] = Counter()
    for gram, n in features(text).items():
        buckets[zlib.crc32(gram.encode()) % DIMENSIONS] += n
    idx = np.fromiter(buckets.keys(), dtype=np.int64, count=len(buckets))
    tf = np.fromiter((1.0 + math.log(n) for n in buckets.values()), dtype=np.float64, count=len(buckets))
    return idx, tf


def similarities(query: str, documents: list[str]) -> list[float]:
    """The cosine similarity of ``query`` to each document in [0, 1], with IDF over the documents and the query."""
    if not documents:
        return []
    docs = [_hashed(d) for d in documents]
    q_idx, q_tf = _hashed(query)
    df = np.bincount(np.concatenate([q_idx, *(i for i, _ in docs)]), minlength=DIMENSIONS)
    n = len(docs) + 1
    idf = np.log((1 + n) / (1 + df)) + 1.0
    q = np.zeros(DIMENSIONS)
    q[q_idx] = q_tf * idf[q_idx]
    q_norm = float(np.linalg.norm(q))
    out = []
    for idx, tf in docs:
        w = tf * idf[idx]
        norm = float(np.linalg.norm(w))
        out.append(float(q[idx] @ w) / (q_norm * norm) if q_norm and norm else 0.0)
    return out
