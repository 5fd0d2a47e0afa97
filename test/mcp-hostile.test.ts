/**
 * Hostile input against `recall mcp`, over stdio and over Streamable HTTP: broken JSON, wrong
 * JSON-RPC shapes, batches, unknown methods and tools, wrong argument types, out-of-range limits,
 * extra properties, a 5 MB message, unicode edge cases and deep nesting.
 *
 * What must hold: every reply is a valid JSON-RPC 2.0 frame, every request gets exactly one answer
 * (stdio answers even lines that are not messages), the server still answers a ping afterwards,
 * and no rejected call wrote anything to the memory.
 *
 * stdio: all cases are pipelined over one process. HTTP: one POST per case, a few at a time.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { before, describe, test } from 'node:test';
import { JSONRPCMessageSchema, LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/sdk/types.js';
import { LIMITS } from '../src/core/model/limits';
import { CLI, onCleanup, recallJson, recallOk, ROOT, tmpFolder } from './helpers';

const ENV: Record<string, string> = { ...(process.env as Record<string, string>), RECALL_IDLE_EXIT_MS: '60000' };
delete ENV.RECALL_MCP_TOKEN;

/** What the servers accept at most: a stdio line (src/mcp/stdio.ts), an HTTP body (src/mcp/http.ts). */
const MAX_LINE = LIMITS.mcpMessageBytes;
const MAX_BODY = LIMITS.mcpMessageBytes;

const children: ChildProcess[] = [];
// Before the memory folders go: the servers hold services open in them.
onCleanup(async () => {
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
  }
});

// ---- the cases -----------------------------------------------------------------------------------

type Expect = 'toolError' | 'toolOk' | { code: number } | undefined;

interface Case {
  name: string;
  payload: string | Buffer;
  /** A check on the reply to this case's own id (requests only). */
  expect?: Expect;
}

let seq = 0;
const nextId = (): string => `h${++seq}`;
const cases: Case[] = [];
const add = (name: string, payload: string | Buffer, expect?: Expect): void => void cases.push({ name, payload, expect });
const req = (method: string, params?: unknown, id: unknown = nextId()): string =>
  JSON.stringify(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
const callTool = (name: string, args: unknown, expect: Expect, label = ''): void =>
  add(`tools/call ${name} ${label || JSON.stringify(args)?.slice(0, 60)}`, req('tools/call', { name, arguments: args }), expect);

// 1. Not JSON at all.
const JUNK = [
  '{',
  '}',
  '[',
  '{"jsonrpc":"2.0"',
  '{"jsonrpc":"2.0","id":1,"method":"ping"',
  'nul',
  'undefined',
  'NaN',
  'Infinity',
  '-',
  "{'jsonrpc':'2.0','id':1,'method':'ping'}",
  '{"jsonrpc":"2.0","id":1,"method":"ping",}',
  '{"id":01}',
  '{"a":"\\x41"}',
  '{"a":"unterminated}',
  '{"a":tru}',
  '{jsonrpc:"2.0"}',
  '\uFEFF{"jsonrpc":"2.0","id":"bom","method":"ping"}',
  '<xml/>',
  'GET /mcp HTTP/1.1',
  '{"a":1}{"b":2}',
  '{"a":"raw\ttab"}',
  '{"a":"raw\u0000nul"}',
  '\u0000\u0000\u0000',
  '{"a":1e99999999}x',
  '"\\ud800',
  '{"a":"\\u12"}',
  '{"a":.5}',
  '[1,2',
  '{"a":[}',
];
JUNK.forEach((junk, i) => add(`invalid JSON #${i + 1} ${JSON.stringify(junk).slice(0, 40)}`, junk));
add('invalid UTF-8 bytes', Buffer.from([0xff, 0xfe, 0xfd, 0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]));
add('overlong UTF-8 encoding of "{"', Buffer.from([0xc1, 0xbb, 0x7d]));
add('UTF-16LE JSON', Buffer.from(req('ping'), 'utf16le'));
add(
  'JSON with invalid UTF-8 inside a string',
  Buffer.concat([
    Buffer.from(`{"jsonrpc":"2.0","id":"${nextId()}","method":"tools/call","params":{"name":"recall_query","arguments":{"query":"`),
    Buffer.from([0xed, 0xa0, 0x80, 0xff]),
    Buffer.from('"}}}'),
  ]),
  'toolOk',
);

// 2. JSON, but not JSON-RPC.
for (const value of [1, -1, 0, 'ping', true, false, null, {}, { jsonrpc: '2.0' }, { method: 'ping' }, { id: 1 }, 'x'.repeat(1000)]) {
  add(`not a message: ${JSON.stringify(value).slice(0, 30)}`, JSON.stringify(value));
}
for (const [name, msg] of [
  ['missing jsonrpc', { id: nextId(), method: 'ping' }],
  ['jsonrpc 1.0', { jsonrpc: '1.0', id: nextId(), method: 'ping' }],
  ['jsonrpc as number', { jsonrpc: 2.0, id: nextId(), method: 'ping' }],
  ['jsonrpc "2"', { jsonrpc: '2', id: nextId(), method: 'ping' }],
  ['id is an object', { jsonrpc: '2.0', id: { a: 1 }, method: 'ping' }],
  ['id is an array', { jsonrpc: '2.0', id: [1], method: 'ping' }],
  ['id is true', { jsonrpc: '2.0', id: true, method: 'ping' }],
  ['id is null', { jsonrpc: '2.0', id: null, method: 'ping' }],
  ['id is a float', { jsonrpc: '2.0', id: 1.5, method: 'ping' }],
  ['id is huge', { jsonrpc: '2.0', id: 1e300, method: 'ping' }],
  ['id is negative', { jsonrpc: '2.0', id: -7, method: 'ping' }],
  ['id is an empty string', { jsonrpc: '2.0', id: '', method: 'ping' }],
  ['id is 10k characters', { jsonrpc: '2.0', id: 'i'.repeat(10_000), method: 'ping' }],
  ['method is a number', { jsonrpc: '2.0', id: nextId(), method: 42 }],
  ['method is null', { jsonrpc: '2.0', id: nextId(), method: null }],
  ['method is an array', { jsonrpc: '2.0', id: nextId(), method: ['ping'] }],
  ['method is an object', { jsonrpc: '2.0', id: nextId(), method: { name: 'ping' } }],
  ['params is a string', { jsonrpc: '2.0', id: nextId(), method: 'tools/list', params: 'all' }],
  ['params is a number', { jsonrpc: '2.0', id: nextId(), method: 'tools/list', params: 1 }],
  ['params is an array', { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: ['recall_status', {}] }],
  ['params is null', { jsonrpc: '2.0', id: nextId(), method: 'ping', params: null }],
  ['extra top-level member', { jsonrpc: '2.0', id: nextId(), method: 'ping', extra: true }],
  ['result and error together', { jsonrpc: '2.0', id: nextId(), result: {}, error: { code: 1, message: 'x' } }],
  ['error with a float code', { jsonrpc: '2.0', id: nextId(), error: { code: 1.5, message: 'x' } }],
  ['error without message', { jsonrpc: '2.0', id: nextId(), error: { code: 1 } }],
  ['_meta is a number', { jsonrpc: '2.0', id: nextId(), method: 'ping', params: { _meta: 5 } }],
  ['progressToken is an object', { jsonrpc: '2.0', id: nextId(), method: 'tools/list', params: { _meta: { progressToken: {} } } }],
  ['a response nobody asked for', { jsonrpc: '2.0', id: nextId(), result: {} }],
  ['an error response nobody asked for', { jsonrpc: '2.0', id: nextId(), error: { code: -32000, message: 'x' } }],
  ['a notification with an unknown method', { jsonrpc: '2.0', method: 'notifications/whatever' }],
  [
    'a cancellation for a request that does not exist',
    { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'nope' } },
  ],
  ['a progress notification for nothing', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 5 } }],
  ['initialized again', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ['tools/call without params', { jsonrpc: '2.0', id: nextId(), method: 'tools/call' }],
  ['tools/call without a name', { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { arguments: {} } }],
  ['tools/call with a numeric name', { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: 7, arguments: {} } }],
  [
    'tools/call with array arguments',
    { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: 'recall_status', arguments: [] } },
  ],
  [
    'tools/call with string arguments',
    { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: 'recall_query', arguments: 'sql.js' } },
  ],
  [
    'tools/call with null arguments',
    { jsonrpc: '2.0', id: nextId(), method: 'tools/call', params: { name: 'recall_query', arguments: null } },
  ],
  ['tools/list with a bogus cursor', { jsonrpc: '2.0', id: nextId(), method: 'tools/list', params: { cursor: 'x'.repeat(5000) } }],
  ['initialize without params', { jsonrpc: '2.0', id: nextId(), method: 'initialize' }],
  [
    'initialize with a bad version type',
    {
      jsonrpc: '2.0',
      id: nextId(),
      method: 'initialize',
      params: { protocolVersion: 2025, capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    },
  ],
] as const)
  add(name, JSON.stringify(msg));

// 3. Batches (stdio: one message a line, so refused; HTTP: the SDK answers them).
add('empty batch', '[]');
add('batch of one ping', JSON.stringify([JSON.parse(req('ping'))]));
add('batch of two pings', JSON.stringify([JSON.parse(req('ping')), JSON.parse(req('ping'))]));
add('batch with junk', JSON.stringify([1, 'two', null]));
add(
  'batch of a request and a notification',
  JSON.stringify([JSON.parse(req('tools/list')), { jsonrpc: '2.0', method: 'notifications/initialized' }]),
);
add('nested batch', JSON.stringify([[JSON.parse(req('ping'))]]));
add('batch of 1000 pings', JSON.stringify(Array.from({ length: 1000 }, () => JSON.parse(req('ping')))));
add(
  'batch with a write',
  JSON.stringify([JSON.parse(req('tools/call', { name: 'recall_remember', arguments: { text: 'from a batch', extra: 1 } })), 5]),
);

// 4. Unknown methods (including ones that reach for the prototype).
for (const method of [
  'foo',
  '',
  ' ',
  'tools/lists',
  'TOOLS/LIST',
  'tools/call/',
  'rpc.discover',
  'resources/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'logging/setLevel',
  'completion/complete',
  'sampling/createMessage',
  'roots/list',
  'elicitation/create',
  'tasks/list',
  '$/cancelRequest',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'notifications/initialized',
  'ping\u0000',
  'pïng',
  '🔥',
  'a'.repeat(10_000),
  'recall_query',
  'query',
  'remember',
  'shutdown',
])
  add(`unknown method ${JSON.stringify(method).slice(0, 30)}`, req(method, {}), { code: -32601 });

// 5. Unknown tools (the service has methods that no tool exposes: they must stay unreachable).
for (const name of [
  '',
  'RECALL_QUERY',
  'recall_query ',
  ' recall_query',
  'recall_query\u0000',
  'recall-query',
  'recall_forget',
  'recall_correct',
  'recall_relate',
  'recall_ingest',
  'recall_export',
  'recall_shutdown',
  'forget',
  'shutdown',
  '../../etc/passwd',
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'r'.repeat(10_000),
  '🧠',
  'ｒｅｃａｌｌ＿ｑｕｅｒｙ',
  'recall_querу' /* Cyrillic у */,
])
  callTool(name, {}, 'toolError', `unknown tool ${JSON.stringify(name).slice(0, 24)}`);

// 6. Wrong argument types, per tool and property.
const WRONG: unknown[] = [null, true, 42, -1.5, 'text', [], ['a'], {}, { $gt: '' }];
const PROPS: Record<string, { base: Record<string, unknown>; props: Record<string, 'string' | 'int' | 'number' | 'array'> }> = {
  recall_query: { base: { query: 'sql.js' }, props: { query: 'string', limit: 'int' } },
  recall_search: { base: { query: 'Recall' }, props: { query: 'string', limit: 'int' } },
  recall_episodes: {
    base: {},
    props: { query: 'string', since: 'string', until: 'string', session: 'string', source: 'string', limit: 'int' },
  },
  recall_traverse: { base: { entity: 'Recall' }, props: { entity: 'string', depth: 'int', min_confidence: 'number' } },
  recall_overview: { base: {}, props: { limit: 'int' } },
  recall_remember: { base: { text: 'a note that must never be stored' }, props: { text: 'string', entities: 'array', session: 'string' } },
};
for (const [tool, { base, props }] of Object.entries(PROPS)) {
  for (const [prop, type] of Object.entries(props)) {
    for (const value of WRONG) {
      const fits =
        (type === 'string' && typeof value === 'string') ||
        (type === 'int' && Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 50) ||
        (type === 'number' && typeof value === 'number' && value >= 0 && value <= 1) ||
        (type === 'array' && Array.isArray(value) && value.every((v) => typeof v === 'string'));
      if (fits) continue;
      // Write attempts stay rejected: a wrong type on any property fails the whole call.
      callTool(tool, { ...base, [prop]: value }, 'toolError', `${prop}=${JSON.stringify(value)}`);
    }
  }
}

// 7. Out-of-range limits and bounds.
for (const [tool, base, max] of [
  ['recall_query', { query: 'sql.js' }, LIMITS.query],
  ['recall_search', { query: 'Recall' }, LIMITS.search],
  ['recall_episodes', {}, LIMITS.episodes],
  ['recall_overview', {}, LIMITS.overview],
] as const) {
  for (const limit of [0, -1, max + 1, 1e9, 1e308, 2.5, -0.5]) callTool(tool, { ...base, limit }, 'toolError', `limit=${limit}`);
  callTool(tool, { ...base, limit: max }, 'toolOk', `limit=${max} (the maximum)`);
}
for (const depth of [0, LIMITS.depth + 1, 1000, 1.5])
  callTool('recall_traverse', { entity: 'Recall', depth }, 'toolError', `depth=${depth}`);
for (const min_confidence of [-0.1, 1.01, 1e9])
  callTool('recall_traverse', { entity: 'Recall', min_confidence }, 'toolError', `min_confidence=${min_confidence}`);
const over = (max: number, c: string): string => c.repeat(max + 1);
callTool('recall_query', { query: over(LIMITS.queryChars, 'q') }, 'toolError', `query of ${LIMITS.queryChars + 1} characters`);
callTool('recall_search', { query: over(LIMITS.queryChars, 's') }, 'toolError', `search of ${LIMITS.queryChars + 1} characters`);
callTool('recall_traverse', { entity: over(LIMITS.nameChars, 'e') }, 'toolError', `entity of ${LIMITS.nameChars + 1} characters`);
callTool('recall_episodes', { since: '2025-13-45T99:99:99Z' }, 'toolError', 'impossible date');
callTool('recall_episodes', { since: 'yesterday' }, 'toolError', 'since=yesterday');
callTool('recall_episodes', { until: '2025-01-01; DROP TABLE episodes' }, 'toolError', 'until with SQL');
callTool('recall_remember', { text: over(LIMITS.noteChars, 'n') }, 'toolError', `text of ${LIMITS.noteChars + 1} characters`);
callTool('recall_remember', { text: '' }, 'toolError', 'empty text');
callTool('recall_remember', {}, 'toolError', 'no text');
callTool(
  'recall_remember',
  { text: 'a note', entities: Array.from({ length: LIMITS.noteEntities + 1 }, (_, i) => `e${i}`) },
  'toolError',
  `${LIMITS.noteEntities + 1} entities`,
);
callTool(
  'recall_remember',
  { text: 'a note', entities: [over(LIMITS.nameChars, 'x')] },
  'toolError',
  `an entity of ${LIMITS.nameChars + 1} characters`,
);
callTool(
  'recall_remember',
  { text: 'a note', session: over(LIMITS.sessionChars, 's') },
  'toolError',
  `a session of ${LIMITS.sessionChars + 1} characters`,
);

// 8. Extra properties: ignored by reads; a write with one is still rejected if anything else is wrong.
for (const [tool, args] of [
  ['recall_query', { query: 'sql.js', authority: 'human' }],
  ['recall_search', { query: 'Recall', __proto__: { limit: 1000 } }],
  ['recall_episodes', { source: 'cli', surface: 'extension' }],
  ['recall_traverse', { entity: 'Recall', history: true }],
  ['recall_status', { verbose: true }],
  ['recall_overview', { constructor: { prototype: { polluted: true } } }],
] as const)
  callTool(tool, args, 'toolOk', `extra property ${Object.keys(args).join(',')}`);
add(
  'extra property via raw __proto__ key',
  `{"jsonrpc":"2.0","id":"${nextId()}","method":"tools/call","params":{"name":"recall_search","arguments":{"query":"Recall","__proto__":{"limit":1000}}}}`,
  'toolOk',
);
callTool('recall_remember', { text: '', authority: 'human' }, 'toolError', 'claims human authority, empty text');
callTool('recall_remember', { text: 'x', entities: 'Dana', source: 'cli' }, 'toolError', 'claims the CLI as source, bad entities');

// 9. Unicode edge cases (valid reads must succeed; rejected writes must not land).
const UNICODE: [string, string][] = [
  ['lone high surrogate', '\ud800'],
  ['lone low surrogate', '\udfff abc'],
  ['reversed surrogate pair', '\udc00\ud800'],
  ['RTL override', 'sql\u202Ejs\u202C storage'],
  ['Arabic and Hebrew', 'ما هي قاعدة البيانات שלום'],
  ['NUL', 'sql\u0000js'],
  ['only NUL', '\u0000'],
  ['C0 controls', '\u0001\u0002\u0007\b\f\u001b[31m red'],
  ['emoji ZWJ family', '👨‍👩‍👧‍👦 family'],
  ['flag and skin tone', '🇺🇦 👍🏿'],
  ['zalgo', 'z̷̢̛̪a̶̡̓l̴̰̈́g̸̣̈́o̵̝͐'],
  ['a 1999-character word', 'w'.repeat(1999)],
  ['zero-width joiners only', '\u200b\u200c\u200d\ufeff'],
  ['non-characters', '\ufffe\uffff\u{10ffff}'],
  ['CJK', '数据库选择'],
  ['FTS syntax', '"unbalanced NEAR/3 * OR -sql.js AND ( ^'],
  ['SQL', "'; DROP TABLE episodes; --"],
  ['LIKE wildcards', '%_%\\'],
  ['combining-only', '\u0301\u0301\u0301'],
  ['line separators', 'a\u2028b\u2029c\r\nd'],
];
for (const [label, text] of UNICODE) {
  callTool('recall_query', { query: text }, 'toolOk', `query: ${label}`);
  callTool('recall_search', { query: text }, 'toolOk', `search: ${label}`);
  callTool('recall_traverse', { entity: text.slice(0, LIMITS.nameChars) }, 'toolError', `traverse: ${label}`);
  callTool('recall_remember', { text, entities: 'not-a-list' }, 'toolError', `remember (rejected): ${label}`);
}
callTool('recall_episodes', { query: '\ud800', session: '\u202Enotes', source: '\u0000' }, 'toolOk', 'episodes: unicode filters');
callTool('recall_episodes', { query: over(LIMITS.queryChars, 'w') }, 'toolError', `episodes: a ${LIMITS.queryChars + 1}-character word`);

// 10. Deep nesting.
const deepArray = (n: number): string => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
for (const depth of [1000, 100_000]) {
  add(
    `arguments nested ${depth} deep (array)`,
    `{"jsonrpc":"2.0","id":"${nextId()}","method":"tools/call","params":{"name":"recall_query","arguments":{"query":${deepArray(depth)}}}}`,
    'toolError',
  );
  add(
    `arguments nested ${depth} deep (object)`,
    `{"jsonrpc":"2.0","id":"${nextId()}","method":"tools/call","params":{"name":"recall_query","arguments":${deepObject(depth)}}}`,
    'toolError',
  );
  add(
    `extra property nested ${depth} deep`,
    `{"jsonrpc":"2.0","id":"${nextId()}","method":"tools/call","params":{"name":"recall_status","arguments":{"x":${deepObject(depth)}}}}`,
    'toolOk',
  );
  add(`_meta nested ${depth} deep`, `{"jsonrpc":"2.0","id":"${nextId()}","method":"ping","params":{"_meta":{"x":${deepObject(depth)}}}}`);
  add(`id nested ${depth} deep`, `{"jsonrpc":"2.0","id":${deepArray(depth)},"method":"ping"}`);
  add(`bare nesting ${depth} deep`, deepArray(depth));
}

// 11. Big messages.
add('a 5 MB line: a remember call', req('tools/call', { name: 'recall_remember', arguments: { text: 'x'.repeat(5 * 1024 * 1024) } }));
add('a 5 MB line of junk', 'z'.repeat(5 * 1024 * 1024));
add(
  'a 3 MB query (under the line limit, over the argument limit)',
  req('tools/call', { name: 'recall_query', arguments: { query: 'q '.repeat(1_500_000) } }),
  'toolError',
);
add(
  '10k entities',
  req('tools/call', {
    name: 'recall_remember',
    arguments: { text: 'many entities', entities: Array.from({ length: 10_000 }, (_, i) => `e${i}`) },
  }),
  'toolError',
);

// ---- checks --------------------------------------------------------------------------------------

type Id = string | number | null;

function usableId(id: unknown): Id {
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

/** Throws unless `m` is a JSON-RPC 2.0 response frame. */
function assertFrame(m: any, where: string): void {
  assert.ok(m && typeof m === 'object' && !Array.isArray(m), `${where}: a JSON object`);
  assert.equal(m.jsonrpc, '2.0', `${where}: jsonrpc "2.0"`);
  assert.ok('id' in m, `${where}: has an id`);
  assert.ok(m.id === null || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id)), `${where}: id type`);
  assert.notEqual('result' in m, 'error' in m, `${where}: exactly one of result and error`);
  if ('error' in m) {
    assert.ok(Number.isInteger(m.error.code), `${where}: integer error code`);
    assert.equal(typeof m.error.message, 'string', `${where}: error message`);
  } else {
    assert.notEqual(m.id, null, `${where}: a result has an id`);
    assert.ok(m.result && typeof m.result === 'object' && !Array.isArray(m.result), `${where}: result is an object`);
  }
  const allowed = new Set(['jsonrpc', 'id', 'result', 'error']);
  for (const k of Object.keys(m)) assert.ok(allowed.has(k), `${where}: no member "${k}"`);
}

function checkExpect(reply: any, expect: Expect, where: string): void {
  if (!expect) return;
  if (expect === 'toolOk' || expect === 'toolError') {
    assert.ok('result' in reply, `${where}: a tool result, not a protocol error: ${JSON.stringify(reply).slice(0, 300)}`);
    const text = (reply.result.content ?? []).map((c: any) => c.text).join('\n');
    if (expect === 'toolOk') assert.notEqual(reply.result.isError, true, `${where}: succeeds: ${text.slice(0, 300)}`);
    else {
      assert.equal(reply.result.isError, true, `${where}: isError: ${text.slice(0, 300)}`);
      assert.match(text, /\nHint: \S/, `${where}: a hint`);
    }
  } else {
    assert.ok('error' in reply, `${where}: an error: ${JSON.stringify(reply).slice(0, 200)}`);
    assert.equal(reply.error.code, expect.code, `${where}: code`);
  }
}

/** What one stdio line must produce: the id of its one answer, or 'none' (notifications, responses, blank lines). */
function stdioExpectation(c: Case): Id | 'none' {
  const buf = typeof c.payload === 'string' ? Buffer.from(c.payload) : c.payload;
  if (buf.length > MAX_LINE) return null;
  const text = buf.toString('utf8');
  if (!text.trim()) return 'none';
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(json)) return null;
  if (!JSONRPCMessageSchema.safeParse(json).success) return json && typeof json === 'object' ? usableId(json.id) : null;
  return 'method' in json && 'id' in json ? json.id : 'none';
}

const idsOf = (c: Case): string | undefined => {
  const m = /^\{"jsonrpc":"2\.0","id":"(h\d+)"/.exec(
    typeof c.payload === 'string' ? c.payload.slice(0, 40) : c.payload.subarray(0, 40).toString(),
  );
  return m?.[1];
};

async function memoryState(memory: string): Promise<{ episodes: number; journal: number }> {
  const s = await recallJson(memory, ['status']);
  return { episodes: s.episodes, journal: s.journal_bytes };
}

// ---- the runs ------------------------------------------------------------------------------------

let memory: string;
before(async () => {
  memory = tmpFolder('hostile');
  await recallOk(memory, [
    'remember',
    'We chose sql.js for storage because the VSIX must be platform-neutral',
    '--entity',
    'Recall',
    '--session',
    'notes',
  ]);
  await recallOk(memory, ['relate', 'Recall', 'uses', 'sql.js']);
});

test('there are at least 200 hostile cases', () => {
  assert.ok(cases.length >= 200, `${cases.length} cases`);
  const names = cases.map((c) => c.name);
  assert.deepEqual(
    names.filter((n, i) => names.indexOf(n) !== i),
    [],
    'case names are unique',
  );
  const unchecked = cases.filter((c) => c.expect && !idsOf(c)).map((c) => c.name);
  assert.deepEqual(unchecked, [], 'every case with an expectation carries an id its answer can be found by');
  const ids = cases.map(idsOf).filter(Boolean);
  assert.equal(new Set(ids).size, ids.length, 'request ids are unique');
});

describe('over stdio (all cases pipelined through one process)', () => {
  test('every line gets exactly the answers it should, each a valid frame; a ping still works; nothing written', async () => {
    const before = await memoryState(memory);
    const child = spawn(process.execPath, [CLI, '--memory', memory, 'mcp'], { env: ENV, cwd: ROOT });
    children.push(child);
    const frames: any[] = [];
    const raw: string[] = [];
    let buf = '';
    let stderr = '';
    const waiters: (() => void)[] = [];
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      const lines = buf.split('\n');
      buf = lines.pop()!;
      for (const line of lines) {
        raw.push(line);
        frames.push(JSON.parse(line)); // anything on stdout that is not JSON fails the test here
      }
      for (const w of waiters.splice(0)) w();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const waitForId = async (id: Id, ms = 30_000): Promise<any> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const f = frames.find((m) => m.id === id);
        if (f) return f;
        if (Date.now() > deadline) throw new Error(`no answer for ${JSON.stringify(id)}; stderr: ${stderr.slice(-2000)}`);
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 200);
        });
      }
    };
    const write = (payload: string | Buffer): Promise<void> =>
      new Promise((resolve) => {
        const ok = child.stdin.write(Buffer.concat([typeof payload === 'string' ? Buffer.from(payload) : payload, Buffer.from('\n')]));
        if (ok) resolve();
        else child.stdin.once('drain', () => resolve());
      });

    await write(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'hostile', version: '1' } },
      }),
    );
    await waitForId('init');
    await write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));

    const expected: Id[] = [];
    for (const c of cases) {
      assert.ok(!(typeof c.payload === 'string' ? c.payload.includes('\n') : c.payload.includes(0x0a)), `${c.name}: one line`);
      const e = stdioExpectation(c);
      if (e !== 'none') expected.push(e);
      await write(c.payload);
    }
    await write(JSON.stringify({ jsonrpc: '2.0', id: 'final-ping', method: 'ping' }));
    const pong = await waitForId('final-ping', 60_000);
    assert.deepEqual(pong.result, {}, 'the server answers a ping after all of it');
    // Requests are answered concurrently: wait until every expected answer is in.
    const deadline = Date.now() + 30_000;
    while (frames.length < expected.length + 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    await new Promise((r) => child.once('exit', r));

    frames.forEach((f, i) => assertFrame(f, `stdout line ${i + 1}: ${raw[i]!.slice(0, 120)}`));
    const got = frames.filter((f) => f.id !== 'init' && f.id !== 'final-ping').map((f) => f.id);
    const key = (id: Id): string => JSON.stringify(id);
    assert.deepEqual(
      got.map(key).sort(),
      expected.map(key).sort(),
      'exactly one answer for each request and each line that is not a message',
    );
    for (const c of cases) {
      const id = idsOf(c);
      if (!id || !c.expect) continue;
      checkExpect(
        frames.find((f) => f.id === id),
        c.expect,
        `stdio ${c.name}`,
      );
    }
    assert.equal(child.exitCode, 0, `clean exit; stderr: ${stderr.slice(-1000)}`);
    assert.deepEqual(await memoryState(memory), before, 'no rejected call wrote to the memory');
  });
});

const HTTP_TOKEN = 'hostile-test-token';

describe('over Streamable HTTP (one POST per case)', () => {
  let url: string;
  let child: ChildProcess;
  before(async () => {
    child = spawn(process.execPath, [CLI, '--memory', memory, 'mcp', '--http', '--port', '0'], {
      env: { ...ENV, RECALL_MCP_TOKEN: HTTP_TOKEN },
      cwd: ROOT,
    });
    children.push(child);
    let err = '';
    url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (d: Buffer) => {
        err += d.toString();
        const m = /MCP over HTTP at (http:\/\/\S+\/mcp)/.exec(err);
        if (m) resolve(m[1]!);
      });
      child.once('exit', (code) => reject(new Error(`exited ${code}: ${err}`)));
    });
  });

  test('every reply is a valid frame with the right status; a ping still works; nothing written', async () => {
    const before = await memoryState(memory);
    const results: { c: Case; status: number; body: string }[] = [];
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < cases.length) {
        const c = cases[next++]!;
        const res = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${HTTP_TOKEN}`,
          },
          body: c.payload,
          signal: AbortSignal.timeout(30_000),
        });
        results.push({ c, status: res.status, body: await res.text() });
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    assert.equal(results.length, cases.length);

    for (const { c, status, body } of results) {
      const where = `http ${c.name} [${status}]`;
      assert.ok([200, 202, 400, 413].includes(status), `${where}: ${body.slice(0, 200)}`);
      const size = typeof c.payload === 'string' ? Buffer.byteLength(c.payload) : c.payload.length;
      if (size > MAX_BODY) assert.equal(status, 413, where);
      if (status === 202) {
        assert.equal(body, '', `${where}: nothing to answer`);
        continue;
      }
      const json = JSON.parse(body);
      const replies = Array.isArray(json) ? json : [json];
      assert.ok(replies.length > 0, where);
      replies.forEach((r, i) => assertFrame(r, `${where} #${i}`));
      const id = idsOf(c);
      if (id && status === 200) {
        assert.equal(json.id, id, `${where}: answered under its own id`);
        checkExpect(json, c.expect, where);
      } else if (id && c.expect) assert.fail(`${where}: expected a 200 answer: ${body.slice(0, 300)}`);
      if (status === 400 && !Array.isArray(json)) assert.ok('error' in json, where);
    }

    const ping = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${HTTP_TOKEN}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 'final-ping', method: 'ping' }),
    });
    assert.deepEqual(await ping.json(), { jsonrpc: '2.0', id: 'final-ping', result: {} });
    assert.deepEqual(await memoryState(memory), before, 'no rejected call wrote to the memory');
  });
});
