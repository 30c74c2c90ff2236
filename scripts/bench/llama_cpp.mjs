// The peer of crates/thinker/benches/llm.rs: llama.cpp (node-llama-cpp's prebuilt CPU binary) on
// the same GGUF file and the same prompt text, greedy, the same thread count. Prints one JSON
// object: model load, prefill tokens/s and time to first token from a cold context, decode
// tokens/s, the time to first token when the system prefix is already in the context, peak RSS.
//
//   node scripts/bench/llama_cpp.mjs MODEL.gguf PROMPTS.json THREADS
//   (NODE_LLAMA_CPP_MODULE: path of node-llama-cpp's dist/index.js; scripts/bench-llm.sh sets it)
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { pathToFileURL } from "node:url";

const [modelPath, promptsPath, threadsArg] = process.argv.slice(2);
const { getLlama } = await import(pathToFileURL(process.env.NODE_LLAMA_CPP_MODULE).href);
const prompts = JSON.parse(readFileSync(promptsPath, "utf8"));
const threads = Number(threadsArg || 2);

// The chat template the three GGUF files carry (ChatML), as mistral.rs applies it.
const chatml = (messages) =>
  messages.map((m) => `<|im_start|>${m.role}\n${m.content}<|im_end|>\n`).join("") +
  "<|im_start|>assistant\n";

const llama = await getLlama({ build: "never", gpu: false, logLevel: "error" });
let t = performance.now();
const model = await llama.loadModel({ modelPath, gpuLayers: 0 });
const loadMs = performance.now() - t;
const context = await model.createContext({ contextSize: 8192, threads, batchSize: 512 });
const sequence = context.getSequence();

// Evaluates `tokens` after what the context holds; times the first token and the rest.
async function generate(tokens) {
  const started = performance.now();
  let first = null;
  const out = [];
  for await (const token of sequence.evaluate(tokens, { temperature: 0 })) {
    if (first === null) first = performance.now() - started;
    if (model.isEogToken(token)) break;
    out.push(token);
    if (out.length >= prompts.max_tokens) break;
  }
  const total = performance.now() - started;
  return { firstMs: first ?? total, totalMs: total, generated: out.length };
}

const coldTokens = model.tokenize(chatml(prompts.messages), true);
const cold = await generate(coldTokens);
// Warm: keep the shared prefix (every turn but the last) in the context, drop the rest, read the tail.
const warmTokens = model.tokenize(chatml(prompts.warm_messages), true);
const held = sequence.contextTokens;
let shared = 0;
while (shared < held.length && shared < warmTokens.length && held[shared] === warmTokens[shared]) shared++;
await sequence.eraseContextTokenRanges([{ start: shared, end: sequence.nextTokenIndex }]);
const warm = await generate(warmTokens.slice(shared));

const decodeRate = (r) => (r.generated > 1 ? (r.generated - 1) / ((r.totalMs - r.firstMs) / 1000) : 0);
console.log(JSON.stringify({
  engine: "llama.cpp",
  model: basename(modelPath),
  load_ms: loadMs,
  prompt_tokens: coldTokens.length,
  first_token_ms: cold.firstMs,
  prefill_tok_s: coldTokens.length / (cold.firstMs / 1000),
  decode_tokens: cold.generated,
  decode_tok_s: decodeRate(cold),
  warm_prompt_tokens: warmTokens.length,
  warm_cached_tokens: shared,
  warm_first_token_ms: warm.firstMs,
  warm_decode_tok_s: decodeRate(warm),
  peak_rss_mb: process.resourceUsage().maxRSS / 1024,
}));
await context.dispose();
await model.dispose();
