#!/usr/bin/env bash
# Main job: build scope-weaver and run it.
#   scripts/run.sh                      # demo: the seed's request run end to end on a generated Downloads folder
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
REQUEST="Clean up my Downloads folder – remove duplicates, then organize the remaining files into subfolders by type"
echo "== scope-weaver run --root $DEMO \"$REQUEST\""
# The demo folder is a throwaway copy: its deletes are permanent rather than filling your trash.
# At a terminal you approve each change; otherwise --yes answers with the planner's choices.
YES=()
[ -t 0 ] || YES=(--yes)
SCOPE_WEAVER_DELETE_MODE=permanent "$BIN" run --root "$DEMO" "$REQUEST" "${YES[@]}"
echo
echo "== The folder afterwards"
"$BIN" scan "$DEMO" --tree
