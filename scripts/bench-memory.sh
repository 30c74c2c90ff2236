#!/usr/bin/env bash
# Memory of the CLI holding a sandbox (issue 22): peak RSS (`/usr/bin/time -f %M`) of
# `scope-weaver scan` (which also looks for duplicates: here every file has the same byte, so all
# are hashed and form one group) and of a read-only tool run (`analyze-directory analyze`) over
# generated trees of 100,000 and 1,000,000 files, release build, a fresh state folder each. The trees are made once under
# $CARGO_TARGET_DIR/bench-trees (1-byte files, 50 to a folder, 20 folders to a parent). The
# table goes to bench-results/memory.md. `bash scripts/bench-memory.sh [FILES...]`
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
ensure_toolchain
cargo build --release -p cli --bin scope-weaver
BIN="$CARGO_TARGET_DIR/release/scope-weaver"
TREES="$CARGO_TARGET_DIR/bench-trees"
counts=("$@")
[ ${#counts[@]} -eq 0 ] && counts=(100000 1000000)
mkdir -p "$ROOT/bench-results" "$TREES"
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT
out="$ROOT/bench-results/memory.md"
{
    echo "| files | folders | scan: peak RSS | scan: time | analyze tool run: peak RSS | analyze: time | RSS a file (analyze) |"
    echo "|---|---|---|---|---|---|---|"
} >"$out"
for n in "${counts[@]}"; do
    tree="$TREES/files-$n"
    if [ ! -f "$tree/.complete" ]; then
        rm -rf "$tree"
        python3 - "$tree" "$n" <<'PY'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
per_dir, per_parent = 50, 20
for i in range(n):
    d = i // per_dir
    folder = os.path.join(root, f"p{d // per_parent:04d}", f"d{d % per_parent:02d}")
    if i % per_dir == 0:
        os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"file-{i:07d}.txt"), "wb") as f:
        f.write(b"x")
open(os.path.join(root, ".complete"), "w").close()
PY
    fi
    # Warm: the tree's metadata in the page cache, as after any earlier look at it.
    find "$tree" -printf '%s %T@\n' >/dev/null
    folders=$(find "$tree" -type d | wc -l)
    measure() {
        /usr/bin/time -f "%M %e" -o "$state/time" env SCOPE_WEAVER_STATE_DIR="$state" "$@" >/dev/null
        cat "$state/time"
    }
    read -r scan_kb scan_s < <(measure "$BIN" --json scan "$tree")
    read -r tool_kb tool_s < <(measure "$BIN" --json tool --root "$tree" analyze-directory analyze path=. duplicates=false)
    printf '| %s | %s | %s MB | %s s | %s MB | %s s | %s bytes |\n' "$n" "$folders" \
        "$((scan_kb / 1024))" "$scan_s" "$((tool_kb / 1024))" "$tool_s" "$((tool_kb * 1024 / n))" >>"$out"
done
cat "$out"
