#!/usr/bin/env node
// Writes a tiny BERT-shaped sentence model (one Gather over an embedding table) that transformers.js loads
// from disk exactly like a pulled model. Used by the tests; no network needed.
//   node scripts/make-tiny-model.mjs [modelsDir]   → <modelsDir>/memcards-test/tiny-bert/
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

import onnxProto from "onnx-proto";

const { onnx } = onnxProto;

export const TINY_MODEL = "memcards-test/tiny-bert";
const DIM = 32;

// Words in one group share a base vector (plus a little noise), so related words embed close together.
const GROUPS = [
  ["database", "sqlite", "storage", "sql", "table"],
  ["test", "tests", "pytest", "assert", "vitest"],
  ["parser", "parse", "tokenizer", "grammar", "syntax"],
  ["memory", "memories", "recall", "remember"],
  ["error", "failure", "exception", "crash", "bug"],
];
const WORDS = [
  "the",
  "a",
  "an",
  "of",
  "to",
  "in",
  "and",
  "is",
  "for",
  "on",
  "with",
  "it",
  "this",
  "that",
  "function",
  "class",
  "file",
  "code",
  "user",
  "agent",
  "card",
  "cards",
  "graph",
  "index",
  "query",
  "fix",
  "add",
  "remove",
  "update",
  "build",
  "run",
  "server",
  "client",
  "cat",
  "dog",
  "weather",
  "memcards",
  "python",
  "typescript",
  "rust",
  "java",
  "go",
];
const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

/** Deterministic PRNG so the model is identical on every machine. */
function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function makeTinyModel(modelsDir) {
  const rand = mulberry32(42);
  const gauss = () => (rand() + rand() + rand() - 1.5) * 2;
  const vocab = [...SPECIAL];
  const table = [];
  for (let i = 0; i < SPECIAL.length; i++) table.push(new Array(DIM).fill(0));
  for (const group of GROUPS) {
    const base = Array.from({ length: DIM }, gauss);
    for (const w of group) {
      vocab.push(w);
      table.push(base.map((x) => x + 0.15 * gauss()));
    }
  }
  for (const w of WORDS) {
    if (vocab.includes(w)) continue;
    vocab.push(w);
    table.push(Array.from({ length: DIM }, gauss));
  }
  // Single letters as word pieces, so unknown words still map to something.
  for (const c of "abcdefghijklmnopqrstuvwxyz0123456789") {
    vocab.push(c, `##${c}`);
    table.push(Array.from({ length: DIM }, gauss), Array.from({ length: DIM }, gauss));
  }

  const weights = new Float32Array(table.flat());
  const graph = onnx.GraphProto.create({
    name: "tiny-bert",
    node: [
      onnx.NodeProto.create({
        opType: "Gather",
        input: ["embeddings", "input_ids"],
        output: ["last_hidden_state"],
        name: "gather",
        attribute: [onnx.AttributeProto.create({ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 })],
      }),
    ],
    initializer: [
      onnx.TensorProto.create({
        name: "embeddings",
        dims: [vocab.length, DIM],
        dataType: onnx.TensorProto.DataType.FLOAT,
        rawData: new Uint8Array(weights.buffer),
      }),
    ],
    input: [
      tensorInfo("input_ids", onnx.TensorProto.DataType.INT64, ["batch", "seq"]),
      tensorInfo("attention_mask", onnx.TensorProto.DataType.INT64, ["batch", "seq"]),
    ],
    output: [tensorInfo("last_hidden_state", onnx.TensorProto.DataType.FLOAT, ["batch", "seq", DIM])],
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    opsetImport: [onnx.OperatorSetIdProto.create({ domain: "", version: 13 })],
    producerName: "memcards-tiny-model",
    graph,
  });

  const dir = join(modelsDir, TINY_MODEL);
  mkdirSync(join(dir, "onnx"), { recursive: true });
  writeFileSync(join(dir, "onnx", "model.onnx"), onnx.ModelProto.encode(model).finish());
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify(
      { model_type: "bert", hidden_size: DIM, vocab_size: vocab.length, max_position_embeddings: 512 },
      null,
      2,
    ),
  );
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizerJson(vocab), null, 2));
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify(
      {
        tokenizer_class: "BertTokenizer",
        do_lower_case: true,
        model_max_length: 512,
        pad_token: "[PAD]",
        unk_token: "[UNK]",
        cls_token: "[CLS]",
        sep_token: "[SEP]",
        mask_token: "[MASK]",
      },
      null,
      2,
    ),
  );
  return { dir, model: TINY_MODEL, dimension: DIM };
}

function tensorInfo(name, elemType, shape) {
  return onnx.ValueInfoProto.create({
    name,
    type: onnx.TypeProto.create({
      tensorType: onnx.TypeProto.Tensor.create({
        elemType,
        shape: onnx.TensorShapeProto.create({
          dim: shape.map((d) =>
            typeof d === "number"
              ? onnx.TensorShapeProto.Dimension.create({ dimValue: d })
              : onnx.TensorShapeProto.Dimension.create({ dimParam: d }),
          ),
        }),
      }),
    }),
  });
}

function tokenizerJson(vocab) {
  const ids = Object.fromEntries(vocab.map((w, i) => [w, i]));
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [ids["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [ids["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = resolve(process.argv[2] ?? "fixtures/models/generated");
  const { dir } = makeTinyModel(out);
  console.log(`wrote ${dir}`);
}
