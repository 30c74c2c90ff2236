#!/usr/bin/env bash
# The LLM planner on real GGUF models against llama.cpp, same machine, same run, same file, same
# prompt text: model load, prefill tokens/s, time to first token, decode tokens/s (cold and with
# the prompt's fixed prefix cached), the worked example planned cold (load included) and warm, and
# peak memory. Ours: crates/thinker/benches/llm.rs (release); the peer: node-llama-cpp's prebuilt
# llama.cpp (scripts/bench/llama_cpp.mjs), installed from npm into the cache outside the clone.
#
#   bash scripts/bench-llm.sh [smollm] [qwen05] [qwen15]      (default: all three)
#
# The table goes to bench-results/llm.md (and stdout); the raw JSON to bench-results/llm.jsonl.
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

keys=("$@")
[ ${#keys[@]} -gt 0 ] || keys=(smollm qwen05 qwen15)
cache="${SCOPE_WEAVER_CACHE:-$HOME/.cache/scope-weaver}"
threads="$(nproc)"

peer="$cache/llama-cpp"
if [ ! -f "$peer/node_modules/node-llama-cpp/dist/index.js" ]; then
    ensure_node
    mkdir -p "$peer"
    # The prebuilt binaries come with the npm packages; nothing is compiled or downloaded besides.
    (cd "$peer" && NODE_LLAMA_CPP_SKIP_DOWNLOAD=true npm install --no-audit --no-fund --loglevel=error node-llama-cpp@3)
fi
export NODE_LLAMA_CPP_MODULE="$peer/node_modules/node-llama-cpp/dist/index.js"

mapfile -t models < <(bash "$ROOT/scripts/fetch-models.sh" "$cache/models" "${keys[@]}")
cargo bench --quiet -p thinker --bench llm --no-run

out="$ROOT/bench-results"
mkdir -p "$out"
results="$out/llm.jsonl"
: >"$results"
for model in "${models[@]}"; do
    prompts="$(mktemp)"
    echo "== $(basename "$model"): mistral.rs" >&2
    SCOPE_WEAVER_BENCH_MODEL="$model" SCOPE_WEAVER_BENCH_PROMPT_OUT="$prompts" \
        cargo bench --quiet -p thinker --bench llm | tail -n1 | tee -a "$results"
    echo "== $(basename "$model"): llama.cpp" >&2
    node "$ROOT/scripts/bench/llama_cpp.mjs" "$model" "$prompts" "$threads" | tail -n1 | tee -a "$results"
    rm -f "$prompts"
done

python3 - "$results" "$threads" >"$out/llm.md" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
threads = sys.argv[2]
by_model = {}
for r in rows:
    by_model.setdefault(r["model"], {})[r["engine"]] = r
f = lambda v, d=1: "–" if v is None else f"{v:,.{d}f}"
print(f"Threads: {threads}. Greedy, the planner's own prompt for the worked example (system rules and "
      "skill catalogue + folder, guidance of the best-matching skills, request).\n")
print("| model | engine | load | prompt tokens | prefill tok/s | first token | decode tok/s | first token, prefix cached | peak RSS |")
print("|---|---|---|---|---|---|---|---|---|")
for model, engines in by_model.items():
    for name in ("mistral.rs", "llama.cpp"):
        r = engines.get(name)
        if not r:
            continue
        print(f"| {model} | {name} | {f(r['load_ms'] / 1000, 2)} s | {r['prompt_tokens']} | "
              f"{f(r['prefill_tok_s'])} | {f(r['first_token_ms'] / 1000, 2)} s | {f(r['decode_tok_s'])} | "
              f"{f(r['warm_first_token_ms'] / 1000, 2)} s | {f(r['peak_rss_mb'], 0)} MB |")
    ours, peer = engines.get("mistral.rs"), engines.get("llama.cpp")
    if ours and peer:
        ratio = lambda a, b: "–" if not b else f"{a / b:.2f}×"
        print(f"| {model} | **ratio** (ours / llama.cpp) | | | **{ratio(ours['prefill_tok_s'], peer['prefill_tok_s'])}** | "
              f"| **{ratio(ours['decode_tok_s'], peer['decode_tok_s'])}** | | |")
print()
print("| model | worked example, cold (load + plan) | warm (loaded, prefix cached) | plan (warm) | attempts | prompt / answer tokens (warm) |")
print("|---|---|---|---|---|---|")
for model, engines in by_model.items():
    r = engines.get("mistral.rs")
    if not r:
        continue
    cold, warm = r["plan_cold"], r["plan_warm"]
    plan = " → ".join(warm.get("skills", [])) if warm.get("valid") else f"no plan: {warm.get('error', '')[:80]}"
    print(f"| {model} | {f(r['plan_cold_ms'] / 1000, 2)} s | {f(warm['ms'] / 1000, 2)} s | {plan} | "
          f"{warm.get('attempts', '–')} | {warm.get('prompt_tokens', '–')} / {warm.get('completion_tokens', '–')} |")
EOF
cat "$out/llm.md"
