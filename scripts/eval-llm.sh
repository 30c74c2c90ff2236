#!/usr/bin/env bash
# Plan accuracy of the LLM planner on eval/plans.jsonl, per real model, next to the rule planner's
# (the same scorer: `scope-weaver plan --file`). Release build; models from scripts/fetch-models.sh.
#
#   bash scripts/eval-llm.sh [smollm] [qwen05] [qwen15]      (default: qwen05 qwen15)
#   bash scripts/eval-llm.sh rule+qwen15                     (only the default with that model: the
#                                                             model chooses between the rules'
#                                                             readings where they are unsure)
#   SCOPE_WEAVER_EVAL_EVERY=4 bash scripts/eval-llm.sh ...   (every 4th request only: a quick look)
#   SCOPE_WEAVER_EVAL_FILE=eval/plans-unseen.jsonl bash scripts/eval-llm.sh ...   (another set)
#
# The table goes to bench-results/llm-eval.md (and stdout); each planner's JSON to
# bench-results/llm-eval-<name>.json. A request the model cannot plan is answered by the rule
# planner (as in the product) and counted in the "rule fallbacks" column. Each model is scored twice:
# alone, and as the product runs it by default (`rule+KEY`: the rule planner's plan, the model
# choosing between its readings of a part it is unsure of; "by the model" counts the requests the
# model planned whole, "judged" those where it was asked to choose). The picker columns: steps the
# run would ask about (near-miss picker), and how many of the other steps are right.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

keys=("$@")
[ ${#keys[@]} -gt 0 ] || keys=(qwen05 qwen15)
cache="${SCOPE_WEAVER_CACHE:-$HOME/.cache/scope-weaver}"
cargo build --quiet --release -p cli --bin scope-weaver
bin="$CARGO_TARGET_DIR/release/scope-weaver"
out="$ROOT/bench-results"
mkdir -p "$out"
state="$(mktemp -d)"
trap 'rm -rf "$state"' EXIT

set_file="${SCOPE_WEAVER_EVAL_FILE:-$ROOT/eval/plans.jsonl}"
requests="$set_file"
every="${SCOPE_WEAVER_EVAL_EVERY:-1}"
if [ "$every" -gt 1 ]; then
    requests="$state/plans-every-$every.jsonl"
    awk -v k="$every" 'NR % k == 1' "$set_file" >"$requests"
    echo "== every ${every}th request: $(wc -l <"$requests") of $(wc -l <"$set_file")" >&2
fi

score() { # name, then env assignments
    local name="$1"
    shift
    echo "== $name" >&2
    # SCOPE_WEAVER_EVAL_* are this script's, not config levers: the binary would refuse them.
    env -u SCOPE_WEAVER_EVAL_EVERY -u SCOPE_WEAVER_EVAL_FILE SCOPE_WEAVER_STATE_DIR="$state/$name" "$@" \
        "$bin" --json plan --file "$requests" >"$out/llm-eval-$name.json"
}

score rule SCOPE_WEAVER_THINKER_BACKEND=rule
names=(rule)
for key in "${keys[@]}"; do
    model_key="${key#rule+}"
    model="$(bash "$ROOT/scripts/fetch-models.sh" "$cache/models" "$model_key")"
    # The model on every request (unless only `rule+KEY` was asked for), then the default with a
    # model: the rule planner's plan when it is sure of every step or asks the person, the
    # model's otherwise (`thinker_rules_first`).
    if [ "$key" = "$model_key" ]; then
        score "$key" SCOPE_WEAVER_THINKER_BACKEND=mistralrs SCOPE_WEAVER_THINKER_MODEL_PATH="$model" \
            SCOPE_WEAVER_THINKER_RULES_FIRST=false
        names+=("$key")
    fi
    score "rule+$model_key" SCOPE_WEAVER_THINKER_BACKEND=mistralrs \
        SCOPE_WEAVER_THINKER_MODEL_PATH="$model" SCOPE_WEAVER_THINKER_RULES_FIRST=true
    names+=("rule+$model_key")
done

python3 - "$out" "${names[@]}" >"$out/llm-eval.md" <<'EOF'
import json, sys
out, names = sys.argv[1], sys.argv[2:]
results = {n: json.load(open(f"{out}/llm-eval-{n}.json")) for n in names}
kinds = sorted({k for r in results.values() for k in r["by_kind"]})
print("| planner | " + " | ".join(kinds) + " | **all** | asks when it must | acts when clear | by the model | judged by the model | picker on | accepted right | rule fallbacks | mean time |")
print("|---|" + "---|" * len(kinds) + "---|---|---|---|---|---|---|---|---|")
for n, r in results.items():
    cells = [f"{r['by_kind'][k]['accuracy']:.1f}%" if k in r["by_kind"] else "–" for k in kinds]
    fb = r.get("rule_fallbacks", {"right": 0, "total": 0})
    by_model = [c for c in r["cases"] if c["usage"]["attempts"] > 0]
    model_cell = f"{len(by_model)} ({sum(c['right'] for c in by_model)} right)"
    judged = [c for c in r["cases"] if "readings chosen by" in c["usage"]["planner"]]
    judged_cell = f"{len(judged)} ({sum(c['right'] for c in judged)} right)" if judged else "–"
    picker = r["picker"]["configured"]
    print(f"| {n} | " + " | ".join(cells)
          + f" | **{r['accuracy']:.1f}%** ({r['right']}/{r['total']})"
          + f" | {r['asks_when_needed']['accuracy']:.1f}% | {r['acts_when_clear']['accuracy']:.1f}%"
          + f" | {model_cell} | {judged_cell} | {picker['picker_share']:.1f}% | {picker['precision']:.1f}%"
          + f" | {fb['total']} ({fb['right']} right) | {r['mean_latency_ms'] / 1000:.2f} s |")
EOF
cat "$out/llm-eval.md"
