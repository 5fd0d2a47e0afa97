#!/usr/bin/env node
// One workload through two MCP memory servers, both over stdio with the SDK Client:
//   recall          `recall mcp` (this repo, dist/cli.js), items stored as episodes (the ingest path)
//   server-memory   @modelcontextprotocol/server-memory, items stored as observations on entities
//                   (one entity per conversation session, via create_entities), MEMORY_FILE_PATH a temp file
//
// At each size: store time, query latency p50/p95 for single-word and natural-language queries
// (recall_query vs search_nodes), how many queries return the evidence, and the latency of one
// write through MCP (recall_remember vs add_observations). Items are LoCoMo turns
// (../shared/data/locomo-dev.json) topped up with LoCoMo-style turns recombined from its
// sentences; without the data set, everything is synthesized from templates.
//
//   node scripts/bench-mcp.mjs [--sizes 1000,10000,50000] [--queries 200] [--writes 30]
//                              [--data FILE] [--no-build] [--json FILE] [--keep] [--profile DIR]
// --profile DIR runs our memory service under --cpu-prof (profiles land in DIR).
import { spawn, spawnSync } from 'node:child_process';
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT = path.join(ROOT, 'dist');
/** A private copy of dist/ (cli.js, service.js, the wasm), so a rebuild during a long run changes nothing. */
let CLI = path.join(BUILT, 'cli.js');
const OFFICIAL = path.join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

// ---- options -------------------------------------------------------------------------------------
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : dflt;
};
const SIZES = opt('sizes', '1000,10000,50000')
  .split(',')
  .map((s) => Number(s.trim().replace(/k$/i, '000')))
  .filter((n) => n > 0);
const QUERIES = Number(opt('queries', '200'));
const WRITES = Number(opt('writes', '30'));
const DATA = [opt('data'), path.join(ROOT, '..', 'shared', 'data', 'locomo-dev.json'), '/work/shared/data/locomo-dev.json'].find(
  (f) => f && fs.existsSync(f),
);
const JSON_OUT = opt('json');
const KEEP = argv.includes('--keep');
const PROFILE = opt('profile');
const BATCH = 500; // items per store call, for both servers (`recall ingest` sends 500 a call)
const WARMUP = 5;
/** Per-call timeout: a slow call is a measurement, not a failure. */
const CALL = { timeout: 300_000 };

const log = (msg) => process.stderr.write(`[bench:mcp] ${msg}\n`);
const ENV = { ...process.env, RECALL_IDLE_EXIT_MS: '900000' };
delete ENV.RECALL_MCP_TOKEN;

// ---- a deterministic PRNG --------------------------------------------------------------------------
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (r, list) => list[Math.floor(r() * list.length)];

// ---- the corpus ----------------------------------------------------------------------------------
// A turn: { conv, session, dia, speaker, text, date }. Questions: { conv, question, evidence: [dia] }.

const normDia = (s) => {
  const m = /^D:?(\d+):(\d+)$/i.exec(String(s).trim());
  return m ? `D${Number(m[1])}:${Number(m[2])}` : undefined;
};

function loadLocomo(file) {
  const samples = JSON.parse(fs.readFileSync(file, 'utf8'));
  return samples.map((s, i) => {
    const id = s.sample_id ?? `conv-${i + 1}`;
    const c = s.conversation;
    const turns = [];
    const sessions = Object.keys(c)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m) => m && Array.isArray(c[m[0]]))
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    for (const n of sessions) {
      for (const t of c[`session_${n}`]) {
        if (typeof t.text !== 'string') continue;
        const caption = typeof t.blip_caption === 'string' && t.blip_caption.trim() ? ` [shares a photo: ${t.blip_caption.trim()}]` : '';
        const text = (t.text.trim() + caption).trim();
        if (text)
          turns.push({
            conv: id,
            session: n,
            dia: normDia(t.dia_id) ?? t.dia_id,
            speaker: t.speaker,
            text,
            date: c[`session_${n}_date_time`],
          });
      }
    }
    const dias = new Set(turns.map((t) => t.dia));
    const questions = (s.qa ?? [])
      .filter((q) => q.category !== 5)
      .map((q) => ({
        conv: id,
        question: String(q.question),
        evidence: (q.evidence ?? [])
          .flatMap((e) => String(e).split(/[;,\s]+/))
          .map(normDia)
          .filter((d) => d && dias.has(d)),
      }))
      .filter((q) => q.evidence.length > 0 && q.question.trim());
    return { id, speakers: [c.speaker_a, c.speaker_b], turns, questions };
  });
}

const NAMES = [
  'Avery',
  'Bianca',
  'Caleb',
  'Dmitri',
  'Elena',
  'Farah',
  'Gustavo',
  'Hana',
  'Ines',
  'Jonas',
  'Keiko',
  'Liam',
  'Marisol',
  'Nikhil',
  'Olga',
  'Priya',
  'Quentin',
  'Rosa',
  'Samir',
  'Tamsin',
  'Umar',
  'Vera',
  'Wes',
  'Ximena',
  'Yusuf',
  'Zoe',
  'Anders',
  'Beatrix',
  'Cyrus',
  'Delphine',
  'Emeka',
  'Freya',
  'Goran',
  'Hollis',
  'Ilse',
  'Jiro',
  'Kofi',
  'Lucia',
  'Mateo',
  'Noor',
];
const PLACES = [
  'the lake',
  'a pottery class',
  'the farmers market',
  'Lisbon',
  'the climbing gym',
  'a jazz bar',
  'the library',
  'a charity run',
  'the beach',
  'a board game cafe',
];
const THINGS = [
  'a sourdough starter',
  'a used guitar',
  'a puppy named Biscuit',
  'a vegetable garden',
  'a vintage camera',
  'a new job at a bakery',
  'a watercolor set',
  'a road bike',
];
const FEELINGS = ['so proud', 'a bit nervous', 'really grateful', 'exhausted but happy', 'inspired', 'relieved'];

/** Template turns, used only when the LoCoMo file is missing. */
function synthSentence(r) {
  const templates = [
    () => `I went to ${pick(r, PLACES)} last weekend and it was amazing!`,
    () => `I finally got ${pick(r, THINGS)}, I'm ${pick(r, FEELINGS)}.`,
    () => `Have you ever tried ${pick(r, PLACES)}? I think you'd love it.`,
    () => `My sister and I are planning a trip to ${pick(r, PLACES)} next month.`,
    () => `Thanks for asking! Work has been busy but I'm ${pick(r, FEELINGS)}.`,
    () => `That sounds wonderful, how long have you had ${pick(r, THINGS)}?`,
  ];
  return pick(r, templates)();
}

function synthLocomo(r, nConvs = 5) {
  const convs = [];
  for (let c = 0; c < nConvs; c++) {
    const id = `synth-${c + 1}`;
    const [a, b] = [NAMES[(2 * c) % NAMES.length], NAMES[(2 * c + 1) % NAMES.length]];
    const turns = [];
    const questions = [];
    for (let s = 1; s <= 20; s++) {
      for (let t = 1; t <= 25; t++) {
        const speaker = t % 2 ? a : b;
        const dia = `D${s}:${t}`;
        if (r() < 0.08) {
          const place = pick(r, PLACES);
          const thing = pick(r, THINGS);
          turns.push({
            conv: id,
            session: s,
            dia,
            speaker,
            text: `Guess what, I took ${thing} to ${place} on session day ${s}!`,
            date: `1:00 pm on ${s} May, 2023`,
          });
          questions.push({ conv: id, question: `Where did ${speaker} take ${thing}?`, evidence: [dia] });
        } else {
          turns.push({ conv: id, session: s, dia, speaker, text: synthSentence(r), date: `1:00 pm on ${s} May, 2023` });
        }
      }
    }
    convs.push({ id, speakers: [a, b], turns, questions });
  }
  return convs;
}

/** LoCoMo-style filler: sentences of real turns recombined, with other names, in sessions of ~25 turns. */
function filler(r, convs, count, taken) {
  // Never from a turn that is some question's evidence: a distractor should not carry the answer itself.
  const evidence = new Set(convs.flatMap((c) => c.questions.flatMap((q) => q.evidence.map((d) => `${c.id}/${d}`))));
  const sentences = convs
    .flatMap((c) => c.turns.filter((t) => !evidence.has(`${c.id}/${t.dia}`)).flatMap((t) => t.text.split(/(?<=[.!?])\s+/)))
    .filter((s) => s.length > 12);
  const realNames = new Set(convs.flatMap((c) => c.speakers));
  const nameRe = new RegExp(`\\b(${[...realNames].map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})\\b`, 'g');
  const out = [];
  let conv = 0;
  while (out.length < count) {
    conv++;
    const id = `filler-${conv}`;
    const [a, b] = [pick(r, NAMES), pick(r, NAMES)];
    const sessions = 10 + Math.floor(r() * 20);
    for (let s = 1; s <= sessions && out.length < count; s++) {
      const date = `${1 + Math.floor(r() * 12)}:${String(Math.floor(r() * 60)).padStart(2, '0')} pm on ${1 + Math.floor(r() * 28)} ${pick(r, ['January', 'March', 'May', 'July', 'September', 'November'])}, ${2021 + Math.floor(r() * 3)}`;
      const turns = 15 + Math.floor(r() * 20);
      for (let t = 1; t <= turns && out.length < count; t++) {
        const speaker = t % 2 ? a : b;
        let text;
        for (let tries = 0; tries < 20; tries++) {
          const n = 1 + Math.floor(r() * 3);
          text = Array.from({ length: n }, () => pick(r, sentences))
            .join(' ')
            .replace(nameRe, () => pick(r, NAMES));
          if (!taken.has(text)) break;
        }
        if (taken.has(text)) text = `${text} (${id} ${s}:${t})`;
        taken.add(text);
        out.push({ conv: id, session: s, dia: `D${s}:${t}`, speaker, text, date });
      }
    }
  }
  return out;
}

/** The items stored at one size, and the questions whose evidence is among them. */
function workload(convs, size, seed) {
  const r = rng(seed);
  const included = [];
  let n = 0;
  for (const c of convs) {
    if (n + c.turns.length > size) break;
    included.push(c);
    n += c.turns.length;
  }
  const real = included.flatMap((c) => c.turns);
  const taken = new Set(real.map((t) => t.text));
  const items = [...real, ...filler(r, convs, size - real.length, taken)];
  // Questions spread evenly over the included conversations.
  const all = included.flatMap((c) => c.questions);
  const step = all.length / Math.min(QUERIES, all.length || 1);
  const questions = all.length ? Array.from({ length: Math.min(QUERIES, all.length) }, (_, i) => all[Math.floor(i * step)]) : [];
  return { items, questions, conversations: included.map((c) => c.id) };
}

// ---- single-word queries: the rarest content word of each question ---------------------------------
const STOP = new Set(
  "a an and are as at be been but by can could did do does for from had has have he her hers him his how i if in into is it its me my of on or our she so than that the their them then there these they this to up was we were what when where which who whom why will with would you your about after before did does during many much some any more most other over such only own same too very just also both each few again further once here all no nor not out off down under until while what's who's likely might may kind type".split(
    ' ',
  ),
);
const words = (s) => s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

function singleWordQueries(items, questions) {
  const df = new Map();
  for (const it of items) for (const w of new Set(words(it.text))) df.set(w, (df.get(w) ?? 0) + 1);
  return questions.map((q) => {
    const candidates = words(q.question).filter((w) => w.length >= 3 && !STOP.has(w) && (df.get(w) ?? 0) > 0);
    candidates.sort((a, b) => df.get(a) - df.get(b) || b.length - a.length);
    return candidates[0] ?? words(q.question).sort((a, b) => b.length - a.length)[0] ?? q.question;
  });
}

// ---- plumbing ------------------------------------------------------------------------------------
const quantile = (xs, q) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const ms = (t0) => Number(process.hrtime.bigint() - t0) / 1e6;
const now = () => process.hrtime.bigint();

function socketPath(folder) {
  const inFolder = path.join(folder, 'service.sock');
  if (Buffer.byteLength(inFolder) <= 100) return inFolder;
  const digest = crypto.createHash('sha256').update(folder).digest('hex').slice(0, 16);
  return path.join(os.tmpdir(), `recall-${os.userInfo().uid}`, `${digest}.sock`);
}

/** A bare client of the memory service socket, to time the service without MCP around it. */
async function serviceClient(memory) {
  const socket = net.connect(socketPath(memory));
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let buf = '';
  let id = 0;
  const pending = new Map();
  socket.on('data', (d) => {
    buf += d;
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl);
      buf = buf.slice(nl + 1);
      const m = JSON.parse(line);
      const p = pending.get(m.id);
      if (!p) continue;
      pending.delete(m.id);
      if (m.error) p.reject(new Error(m.error.message));
      else p.resolve(m.result);
    }
  });
  const call = (method, params) =>
    new Promise((resolve, reject) => {
      pending.set(++id, { resolve, reject });
      socket.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  await call('hello', { surface: 'cli', client: 'bench-mcp' });
  return { call, close: () => socket.destroy() };
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: ENV, ...opts });
  if (r.status !== 0) throw new Error(`${path.basename(args[0] ?? cmd)} ${args.slice(1, 4).join(' ')} exited ${r.status}: ${r.stderr}`);
  return r.stdout;
}

async function mcpClient(command, args, env) {
  // The SDK drops a stdio connection on a message over 10 MB (STDIO_DEFAULT_MAX_BUFFER_SIZE); search_nodes
  // answers exceed that at 50k. Raised here so the call is timed; such answers are counted in the report.
  const transport = new StdioClientTransport({ command, args, env, stderr: 'pipe', cwd: ROOT, maxBufferSize: 1024 * 1024 * 1024 });
  let stderr = '';
  transport.stderr?.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
  await client.connect(transport);
  client.stderr = () => stderr;
  return client;
}

/** Adds the server's last stderr to an error, and closes its client whatever happens. */
async function withStderr(fn) {
  let client;
  try {
    return await fn((c) => (client = c));
  } catch (e) {
    const tail = client?.stderr?.().trim();
    throw new Error(`${e.message}${tail ? ` (server stderr: ${tail.split('\n').slice(-3).join(' | ')})` : ''}`);
  } finally {
    await client?.close().catch(() => undefined);
  }
}

/** Runs one server's part; a failure (a crash, a timeout) is reported in the table, not fatal. */
async function attempt(name, fn) {
  try {
    return await fn();
  } catch (e) {
    log(`${name} failed: ${e.message}`);
    return { failed: e.message.split('\n')[0].slice(0, 200) };
  }
}

const sessionKey = (t) => `${t.conv}:session_${t.session}`;

// ---- one size, one server ------------------------------------------------------------------------

async function benchRecall(w, words, scratch) {
  return withStderr((c) => benchRecallWith(w, words, scratch, c));
}

async function benchRecallWith(w, words, scratch, track) {
  const memory = path.join(scratch, 'recall');
  fs.mkdirSync(memory, { recursive: true });
  // LoCoMo JSON, so `recall ingest` keeps each turn's dia_id as its reference and the session date as its time.
  const bySample = new Map();
  for (const t of w.items) {
    let s = bySample.get(t.conv);
    if (!s) bySample.set(t.conv, (s = { sample_id: t.conv, conversation: { speaker_a: t.speaker, speaker_b: t.speaker }, qa: [] }));
    const key = `session_${t.session}`;
    (s.conversation[key] ??= []).push({ speaker: t.speaker, dia_id: t.dia, text: t.text });
    s.conversation[`${key}_date_time`] = t.date;
  }
  const file = path.join(scratch, 'items.json');
  fs.writeFileSync(file, JSON.stringify([...bySample.values()]));
  if (PROFILE) {
    // Started here rather than by a client, so it runs under --cpu-prof; clients find it running.
    fs.mkdirSync(PROFILE, { recursive: true });
    const svc = path.join(path.dirname(CLI), 'service.js');
    spawn(process.execPath, ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE)}`, svc, '--memory', memory], {
      env: ENV,
      stdio: 'ignore',
    }).unref();
    for (let i = 0; i < 300 && !fs.existsSync(socketPath(memory)); i++) await new Promise((r) => setTimeout(r, 100));
  }
  run(process.execPath, [CLI, '--memory', memory, 'service', 'start']);
  const t0 = now();
  const out = JSON.parse(run(process.execPath, [CLI, '--memory', memory, 'ingest', file, '--json']));
  const storeMs = ms(t0);
  if (out.added !== w.items.length) log(`recall: ${out.added} of ${w.items.length} items added (${out.skipped} duplicates skipped)`);

  const client = track(await mcpClient(process.execPath, [CLI, '--memory', memory, 'mcp'], ENV));
  const evidenceIn = (r, q) =>
    (r.structuredContent?.episodes ?? []).some((e) => e.session?.startsWith(`${q.conv}:`) && q.evidence.includes(e.ref));
  const ask = (query) => client.callTool({ name: 'recall_query', arguments: { query } }, undefined, CALL);
  const result = await queries(w, words, ask, evidenceIn);

  // The same queries straight to the service (no MCP, no zod, no rendering): where the time goes.
  const svc = await serviceClient(memory);
  const direct = { nl: [], word: [] };
  for (const q of w.questions.slice(0, WARMUP)) await svc.call('query', { query: q.question });
  for (const [kind, list] of [
    ['nl', w.questions.map((q) => q.question)],
    ['word', words],
  ]) {
    for (const query of list) {
      const t = now();
      await svc.call('query', { query });
      direct[kind].push(ms(t));
    }
  }
  svc.close();

  const writeMs = [];
  for (let i = 0; i < WRITES; i++) {
    const t = now();
    const r = await client.callTool({
      name: 'recall_remember',
      arguments: { text: `Benchmark note ${i}: the build cache lives in .cache/bench-${i}`, entities: ['bench'] },
    });
    writeMs.push(ms(t));
    if (r.isError) throw new Error(`recall_remember failed: ${r.content[0].text}`);
  }
  await client.close();
  const status = JSON.parse(run(process.execPath, [CLI, '--memory', memory, 'status', '--json']));
  run(process.execPath, [CLI, '--memory', memory, 'service', 'stop']);
  return { ...result, storeMs, writeMs, direct, stored: status.episodes - WRITES, bytes: status.journal_bytes + status.snapshot_bytes };
}

async function benchOfficial(w, words, scratch) {
  return withStderr((c) => benchOfficialWith(w, words, scratch, c));
}

async function benchOfficialWith(w, words, scratch, track) {
  const file = path.join(scratch, 'server-memory.jsonl');
  const client = track(await mcpClient(process.execPath, [OFFICIAL], { ...ENV, MEMORY_FILE_PATH: file }));
  // One entity per conversation session, its turns as observations; calls of about BATCH observations.
  const sessions = new Map();
  for (const t of w.items) {
    const k = sessionKey(t);
    if (!sessions.has(k)) sessions.set(k, { name: k, entityType: 'conversation_session', observations: [] });
    sessions.get(k).observations.push(`[${t.dia}] ${t.speaker}: ${t.text}`);
  }
  const t0 = now();
  let batch = [];
  let count = 0;
  const flush = async () => {
    if (!batch.length) return;
    const r = await client.callTool({ name: 'create_entities', arguments: { entities: batch } }, undefined, CALL);
    if (r.isError) throw new Error(`create_entities failed: ${r.content[0].text.slice(0, 300)}`);
    batch = [];
    count = 0;
  };
  for (const e of sessions.values()) {
    batch.push(e);
    count += e.observations.length;
    if (count >= BATCH) await flush();
  }
  await flush();
  const storeMs = ms(t0);

  const evidenceIn = (r, q) => {
    const entities = r.structuredContent?.entities ?? JSON.parse(r.content[0].text).entities;
    return entities.some(
      (e) => e.name.startsWith(`${q.conv}:`) && e.observations.some((o) => q.evidence.some((d) => o.startsWith(`[${d}] `))),
    );
  };
  const ask = (query) => client.callTool({ name: 'search_nodes', arguments: { query } }, undefined, CALL);
  const result = await queries(w, words, ask, evidenceIn);

  const writeMs = [];
  const names = [...sessions.keys()];
  for (let i = 0; i < WRITES; i++) {
    const t = now();
    const r = await client.callTool({
      name: 'add_observations',
      arguments: {
        observations: [
          { entityName: names[i % names.length], contents: [`Benchmark note ${i}: the build cache lives in .cache/bench-${i}`] },
        ],
      },
    });
    writeMs.push(ms(t));
    if (r.isError) throw new Error(`add_observations failed: ${r.content[0].text}`);
  }
  await client.close();
  return { ...result, storeMs, writeMs, stored: w.items.length, bytes: fs.statSync(file).size };
}

async function queries(w, words, ask, evidenceIn) {
  for (const q of w.questions.slice(0, WARMUP)) await ask(q.question);
  const out = {
    nl: { ms: [], hits: 0, chars: 0, maxChars: 0, over10mb: 0 },
    word: { ms: [], hits: 0, chars: 0, maxChars: 0, over10mb: 0 },
  };
  for (const [kind, list] of [
    ['nl', w.questions.map((q) => q.question)],
    ['word', words],
  ]) {
    for (let i = 0; i < list.length; i++) {
      const t = now();
      const r = await ask(list[i]);
      out[kind].ms.push(ms(t));
      if (r.isError) throw new Error(`query "${list[i]}" failed: ${r.content[0].text}`);
      const chars = r.content.reduce((n, c) => n + (c.text?.length ?? 0), 0);
      out[kind].chars += chars;
      out[kind].maxChars = Math.max(out[kind].maxChars, chars);
      if (Buffer.byteLength(JSON.stringify(r)) > 10 * 1024 * 1024) out[kind].over10mb++;
      if (evidenceIn(r, w.questions[i])) out[kind].hits++;
    }
  }
  return out;
}

// ---- main ----------------------------------------------------------------------------------------

async function main() {
  if (!argv.includes('--no-build') || !fs.existsSync(CLI)) {
    const r = spawnSync(process.execPath, ['esbuild.mjs'], { cwd: ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
    if (r.status !== 0) throw new Error('build failed');
  }
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'rb-dist-'));
  process.on('exit', () => fs.rmSync(bin, { recursive: true, force: true }));
  fs.cpSync(BUILT, bin, { recursive: true, filter: (src) => !src.endsWith('.map') && !src.endsWith('extension.js') });
  CLI = path.join(bin, 'cli.js');
  if (!fs.existsSync(OFFICIAL))
    throw new Error(`${OFFICIAL} is missing: @modelcontextprotocol/server-memory is a devDependency (npm install).`);
  const convs = DATA ? loadLocomo(DATA) : synthLocomo(rng(7));
  log(
    DATA
      ? `LoCoMo: ${DATA} (${convs.length} conversations, ${convs.reduce((n, c) => n + c.turns.length, 0)} turns)`
      : 'LoCoMo data not found: synthesized turns',
  );
  const rows = [];
  for (const size of SIZES) {
    const w = workload(convs, size, size);
    const words = singleWordQueries(w.items, w.questions);
    log(
      `${size} items: ${w.conversations.length} LoCoMo conversations included (${w.conversations.join(', ') || 'none'}), ${w.questions.length} questions`,
    );
    const scratch = fs.mkdtempSync(path.join(os.tmpdir(), `rb-${size}-`));
    try {
      log(`${size}: recall ...`);
      const ours = await attempt('recall', () => benchRecall(w, words, scratch));
      log(`${size}: server-memory ...`);
      const theirs = await attempt('server-memory', () => benchOfficial(w, words, scratch));
      rows.push({ size, questions: w.questions.length, conversations: w.conversations, recall: ours, official: theirs });
    } finally {
      spawnSync(process.execPath, [CLI, '--memory', path.join(scratch, 'recall'), 'service', 'stop'], { stdio: 'ignore', env: ENV });
      if (!KEEP) fs.rmSync(scratch, { recursive: true, force: true });
      else log(`kept ${scratch}`);
    }
  }
  report(rows);
  if (JSON_OUT) fs.writeFileSync(JSON_OUT, JSON.stringify(rows, null, 2));
}

function report(rows) {
  const f = (x, d = 1) => (Number.isFinite(x) ? x.toFixed(d) : '-');
  const pct = (hits, n) => (n ? `${hits}/${n} (${Math.round((100 * hits) / n)}%)` : '-');
  const header = [
    'items',
    'server',
    'store s',
    'items/s',
    'NL p50',
    'NL p95',
    'word p50',
    'word p95',
    'NL evidence',
    'word evidence',
    'chars/answer',
    'largest',
    '>10MB',
    'write p50',
    'write p95',
    'on disk',
  ];
  const lines = [];
  for (const r of rows) {
    for (const [name, x] of [
      ['recall', r.recall],
      ['server-memory', r.official],
    ]) {
      const n = r.questions;
      if (x.failed) {
        lines.push([String(r.size), name, `FAILED: ${x.failed}`, ...header.slice(3).map(() => '')]);
        continue;
      }
      lines.push([
        String(r.size),
        name,
        f(x.storeMs / 1000, 2),
        f(x.stored / (x.storeMs / 1000), 0),
        f(quantile(x.nl.ms, 0.5)),
        f(quantile(x.nl.ms, 0.95)),
        f(quantile(x.word.ms, 0.5)),
        f(quantile(x.word.ms, 0.95)),
        pct(x.nl.hits, n),
        pct(x.word.hits, n),
        f((x.nl.chars + x.word.chars) / Math.max(1, 2 * n), 0),
        f(Math.max(x.nl.maxChars, x.word.maxChars), 0),
        String(x.nl.over10mb + x.word.over10mb),
        f(quantile(x.writeMs, 0.5)),
        f(quantile(x.writeMs, 0.95)),
        `${f(x.bytes / 1024 / 1024, 1)} MB`,
      ]);
    }
  }
  const widths = header.map((h, i) => Math.max(h.length, ...lines.filter((l) => !l[2].startsWith('FAILED')).map((l) => l[i].length)));
  const fmt = (cols) =>
    cols[2].startsWith('FAILED')
      ? `${cols[0].padEnd(widths[0])}  ${cols[1].padEnd(widths[1])}  ${cols[2]}`
      : cols.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log('\nMCP memory servers over stdio, SDK Client; latencies in ms per call (client round trip)');
  console.log(fmt(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const l of lines) console.log(fmt(l));

  console.log('\nserver-memory / recall (higher = recall better; evidence: recall hits / server-memory hits)');
  for (const r of rows) {
    const a = r.recall;
    const b = r.official;
    if (a.failed || b.failed) {
      console.log(`  ${String(r.size).padStart(6)}: -`);
      continue;
    }
    const ratio = (x, y) => (y > 0 ? `${f(x / y, 1)}x` : '-');
    console.log(
      `  ${String(r.size).padStart(6)}: store ${ratio(b.storeMs / b.stored, a.storeMs / a.stored)}, ` +
        `NL p50 ${ratio(quantile(b.nl.ms, 0.5), quantile(a.nl.ms, 0.5))} p95 ${ratio(quantile(b.nl.ms, 0.95), quantile(a.nl.ms, 0.95))}, ` +
        `word p50 ${ratio(quantile(b.word.ms, 0.5), quantile(a.word.ms, 0.5))} p95 ${ratio(quantile(b.word.ms, 0.95), quantile(a.word.ms, 0.95))}, ` +
        `write p50 ${ratio(quantile(b.writeMs, 0.5), quantile(a.writeMs, 0.5))}, ` +
        `evidence NL ${a.nl.hits} vs ${b.nl.hits}, word ${a.word.hits} vs ${b.word.hits}`,
    );
  }
  console.log('\nrecall, the same queries straight to the memory service (no MCP): where the time goes');
  for (const r of rows.filter((r) => !r.recall.failed)) {
    const d = r.recall.direct;
    const mcp = (kind, q) => quantile(r.recall[kind].ms, q) - quantile(d[kind], q);
    console.log(
      `  ${String(r.size).padStart(6)}: service NL p50 ${f(quantile(d.nl, 0.5))} p95 ${f(quantile(d.nl, 0.95))}, word p50 ${f(quantile(d.word, 0.5))} p95 ${f(quantile(d.word, 0.95))}; ` +
        `MCP adds ~${f(mcp('nl', 0.5))} (NL p50), ~${f(mcp('word', 0.5))} (word p50)`,
    );
  }
  const conv = rows.map((r) => `${r.size}: ${r.conversations.length} LoCoMo conversation(s), ${r.questions} questions`).join('; ');
  console.log(`\nEvidence = the answer's evidence turn (LoCoMo dia_id) is in the result: recall_query's top 10 episodes, or`);
  console.log(`the entities search_nodes returns (whole sessions, all their observations). ${conv}.`);
  console.log(`chars/answer: text content per query, averaged; largest: the biggest; >10MB: answers over the SDK's default stdio limit.`);
  console.log(
    `Store: recall via \`recall ingest\` (${BATCH} episodes a call to the service); server-memory via create_entities, ~${BATCH} observations a call.`,
  );
}

main().catch((e) => {
  log(`error: ${e.stack ?? e.message}`);
  process.exit(1);
});
