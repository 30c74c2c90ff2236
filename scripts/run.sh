#!/usr/bin/env bash
# Main job: set up and launch the Scope Weaver desktop app on a generated demo folder (a "home"
# whose Downloads holds duplicates and a mix of real-format files: the seed's worked example;
# `scope-weaver demo DIR` writes it). Release builds (the local model needs the optimised kernels).
#   scripts/run.sh                      # the desktop app (needs a display; without one: the CLI demo)
#   scripts/run.sh --headless           # the same request end to end in the terminal (CLI)
#   scripts/run.sh --model qwen05 ...   # plan with a real local model: smollm | qwen05 | qwen15 | a .gguf
#                                       #   path (fetched by scripts/fetch-models.sh; sets thinker_backend
#                                       #   mistralrs and thinker_model_path for this run), as a person
#                                       #   with a model runs: the rules plan, the model chooses between
#                                       #   their readings where they are unsure (the worked example is
#                                       #   plain: the rules are sure of it)
#   scripts/run.sh --model qwen15 --model-plans ...   # the model plans every request itself
#                                       #   (thinker_rules_first false): the worked example by the model
#   scripts/run.sh scan ~/Downloads     # any scope-weaver CLI command
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

BIN="$CARGO_TARGET_DIR/release"
mode=""
args=()
while [ $# -gt 0 ]; do
    case "$1" in
        --headless) mode=headless ;;
        --model)
            [ $# -ge 2 ] || { echo "--model needs smollm, qwen05, qwen15 or a .gguf path" >&2; exit 2; }
            case "$2" in
                *.gguf) model="$2" ;;
                *) model="$(bash "$ROOT/scripts/fetch-models.sh" "" "$2")" ;;
            esac
            export SCOPE_WEAVER_THINKER_BACKEND=mistralrs SCOPE_WEAVER_THINKER_MODEL_PATH="$model"
            echo "== Planner: $model (mistral.rs)" >&2
            shift
            ;;
        --model-plans) export SCOPE_WEAVER_THINKER_RULES_FIRST=false ;;
        *) args+=("$1") ;;
    esac
    shift
done
set -- "${args[@]}"

make_demo() {
    local home="${SCOPE_WEAVER_DEMO_DIR:-$(mktemp -d)/home}"
    "$BIN/scope-weaver" demo "$home" >&2
    echo "$home"
}

REQUEST="Clean up my Downloads folder – remove duplicates, then organize the remaining files into subfolders by type"

headless_demo() {
    cargo build --quiet --release -p cli --bin scope-weaver
    local bin="$BIN/scope-weaver" home
    home="$(make_demo)"
    echo "== Demo folder: $home"
    "$bin" scan "$home/Downloads" --tree
    echo
    echo "== scope-weaver run --root $home \"$REQUEST\""
    # The demo folder is a throwaway copy: its deletes are permanent rather than filling your trash.
    # At a terminal you approve each change; otherwise --yes answers with the planner's choices.
    local yes=()
    [ -t 0 ] || yes=(--yes)
    SCOPE_WEAVER_DELETE_MODE=permanent "$bin" run --root "$home" "$REQUEST" "${yes[@]}"
    echo
    echo "== The folder afterwards"
    "$bin" scan "$home/Downloads" --tree
}

if [ "$mode" = headless ]; then
    headless_demo
    exit 0
fi
if [ $# -gt 0 ]; then
    cargo build --quiet --release -p cli --bin scope-weaver
    exec "$BIN/scope-weaver" "$@"
fi

if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
    echo "No display (DISPLAY/WAYLAND_DISPLAY unset): running the headless demo instead of the app." >&2
    headless_demo
    exit 0
fi

need_apt "${APP_BUILD_PACKAGES[@]}"
build_ui
cargo build --quiet --release -p scope-weaver-app -p cli
home="$(make_demo)"
echo "== Demo folder: $home"
echo "== Press Alt+Space for the bar (Settings changes the folder and the shortcut), and try:"
echo "   $REQUEST"
# The demo's deletes are permanent (a throwaway folder); its settings file stays beside it.
SCOPE_WEAVER_WORKING_ROOT="$home" SCOPE_WEAVER_DELETE_MODE=permanent \
    SCOPE_WEAVER_CONFIG="$home/../config.yaml" SCOPE_WEAVER_STATE_DIR="$home/../state" \
    exec "$BIN/scope-weaver-app"
