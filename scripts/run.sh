#!/usr/bin/env bash
# Main job: build scope-weaver and run it.
#   scripts/run.sh                      # demo: a generated Downloads folder, scanned and organised (simulated)
#   scripts/run.sh scan ~/Downloads     # any scope-weaver command
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

cargo build --quiet -p cli --bin scope-weaver
BIN="$CARGO_TARGET_DIR/debug/scope-weaver"

if [ $# -gt 0 ]; then
    exec "$BIN" "$@"
fi

DEMO="${SCOPE_WEAVER_DEMO_DIR:-$(mktemp -d)/Downloads}"
mkdir -p "$DEMO/old"
printf 'quarterly report v1\n' > "$DEMO/report_v1.pdf"
printf 'quarterly report v1\n' > "$DEMO/report_final.pdf"
printf 'JPEG holiday\n' > "$DEMO/beach.jpg"
printf 'JPEG holiday\n' > "$DEMO/beach (1).jpg"
printf 'JPEG holiday\n' > "$DEMO/old/beach.jpg"
printf 'ID3 song\n' > "$DEMO/song.mp3"
printf 'a,b\n1,2\n' > "$DEMO/export.csv"
printf 'MZ installer\n' > "$DEMO/setup.exe"
printf 'meeting notes\n' > "$DEMO/notes.txt"

echo "== Demo folder: $DEMO"
"$BIN" scan "$DEMO" --tree
echo
echo "== Duplicates (remove-duplicates scan)"
"$BIN" tool remove-duplicates scan --root "$DEMO" path=.
echo
echo "== Sorting by type, simulated (organize-by-type organize); add --commit to apply"
"$BIN" tool organize-by-type organize --root "$DEMO" path=.
