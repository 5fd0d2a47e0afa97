/**
 * The graph view's data: an entity's neighbourhood from a real memory on disk (facts with effective
 * confidence, provenance, ended/stale status and evidence counts; the entities at their ends),
 * bounded per expansion, and how fast it answers on a 5,000-entity memory (a figure, not a bound).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Memory } from '../src/core/memory/memory';
import { LIMITS } from '../src/core/model/limits';
import { MemoryError } from '../src/core/model/errors';
import { contentSecurityPolicy, graphPage } from '../src/extension/graph/common/graph-html';
import { edgeGroups, edgeState, edgeText } from '../src/extension/graph/common/graph-text';
import { neighbourhood } from '../src/core/memory/neighbourhood';
import { memoryWith, reopenStore, tmpFolder } from './helpers';
import { sayItems } from './knowledge-items';

const person = { authority: 'human' as const, source: 'cli' };
const agent = { authority: 'agent' as const, source: 'mcp' };

test('a neighbourhood: facts styled by status and provenance, nodes sized by evidence', async () => {
  const m = await Memory.open(tmpFolder('graph'), { extract: false });
  const ep = m.remember(
    { text: 'Recall stores its graph in sql.js', entities: ['Recall', 'sql.js'], time: '2026-11-30T10:00:00Z' },
    person,
  );
  m.remember({ text: 'sql.js is SQLite compiled to wasm', entities: ['sql.js'], time: '2026-11-30T11:00:00Z' }, person);
  const uses = m.relate({ subject: 'Recall', predicate: 'uses', object: 'sql.js', evidence: [ep.id], prior: 'explicit' }, person);
  const [wrongId] = m.recordExtraction(
    { episode: ep.id, facts: [{ subject: 'Recall', predicate: 'uses', object: 'LevelDB' }], extractor: 'test' },
    agent,
  ).ids;
  const wrong = { id: wrongId! };
  m.relate({ subject: 'Dana', predicate: 'maintains', object: 'Recall', prior: 'explicit' }, person);
  m.correct({ id: wrong.id, verdict: 'wrong', reason: 'never did' }, person);

  const browse = m.browseHandlers();
  const n = browse.neighbourhood({ entity: 'recall' });
  assert.equal(n.center, 'Recall', 'the name is resolved case-insensitively');
  assert.equal(n.total, 3);
  assert.deepEqual(n.nodes.map((x) => x.name).sort(), ['Dana', 'LevelDB', 'Recall', 'sql.js']);
  const sqljs = n.nodes.find((x) => x.name === 'sql.js')!;
  assert.equal(sqljs.episodes, 2, 'node size: the episodes that mention it');
  const byId = new Map(n.edges.map((e) => [e.id, e]));
  assert.equal(byId.get(uses.id)!.evidence, 1);
  assert.equal(byId.get(uses.id)!.status, 'current');
  assert.equal(byId.get(wrong.id)!.status, 'wrong', 'a wrong fact is drawn, marked as such');
  assert.equal(byId.get(wrong.id)!.ended_reason, 'never did');
  assert.equal(byId.get(wrong.id)!.authority, 'agent');
  assert.equal(n.edges.at(-1)!.id, wrong.id, 'ended facts come after current ones');
  assert.ok(n.edges.every((e) => e.effective_confidence >= 0 && e.effective_confidence <= 1));

  const current = browse.neighbourhood({ entity: 'Recall', history: false });
  assert.deepEqual(
    current.edges.map((e) => e.status),
    ['current', 'current'],
  );
  assert.equal(current.total, 2);
  assert.throws(
    () => browse.neighbourhood({ entity: 'Nobody' }),
    (e: MemoryError) => e.code === 'not_found',
  );
  assert.throws(
    () => browse.neighbourhood({ entity: 'Recall', limit: LIMITS.neighbourhood + 1 }),
    (e: MemoryError) => e.code === 'invalid_input',
  );
  assert.throws(
    () => browse.neighbourhood({ entity: ' ' }),
    (e: MemoryError) => e.code === 'invalid_input',
  );
  m.close();
});

test('a fact unreinforced for over a half-life is stale; a confirmed one never is', async () => {
  const { memory: m } = await memoryWith([], { config: { extract: false, confidence: { halfLifeDays: 1 } } });
  const old = m.relate({ subject: 'Team', predicate: 'deploys with', object: 'Jenkins', prior: 'explicit' }, person);
  const pinned = m.relate({ subject: 'Team', predicate: 'writes', object: 'TypeScript', prior: 'explicit' }, person);
  m.correct({ id: pinned.id, verdict: 'confirm' }, person);
  // Age every fact by three days, as if nothing had reinforced them since.
  const store = await reopenStore(m);
  store.db.exec(`UPDATE relationships SET last_reinforced_ms = last_reinforced_ms - ${3 * 86_400_000}`);
  const edges = new Map(neighbourhood(store, { entity: 'Team' }).edges.map((e) => [e.id, e]));
  assert.equal(edges.get(old.id)!.stale, true);
  assert.ok(edges.get(old.id)!.effective_confidence < edges.get(old.id)!.confidence / 2);
  assert.equal(edges.get(pinned.id)!.stale, false);
});

test('one expansion is cut at its limit; the total says how many facts there are', async () => {
  const m = await Memory.open(tmpFolder('graph'), { extract: false });
  const ep = m.remember({ text: 'hub notes', time: '2026-11-30T10:00:00Z' }, person);
  const facts = Array.from({ length: 90 }, (_, i) => ({ subject: 'Hub', predicate: 'links', object: `Spoke ${i}` }));
  m.recordExtraction({ episode: ep.id, facts, extractor: 'test' }, agent);
  const n = m.browseHandlers().neighbourhood({ entity: 'Hub', limit: 25 });
  assert.equal(n.edges.length, 25);
  assert.equal(n.total, 90);
  assert.equal(n.nodes.length, 26, 'the centre and the 25 drawn neighbours');
  assert.equal(n.nodes.find((x) => x.name === 'Hub')!.relationships, 90);
  m.close();
});

test('an entity\'s knowledge items are listed by kind, rules and decisions first, plain facts last; a confirmed one reads "confirmed"', async () => {
  const m = await Memory.open(tmpFolder('graph-items'), { extract: false });
  const [lesson, decision, rule] = sayItems(m, [
    { kind: 'lesson', subject: 'Postgres', statement: 'Postgres timed out until the pool size was raised to 20.', authority: 'agent' },
    { kind: 'decision', subject: 'Postgres', object: 'pgbouncer', statement: 'Put pgbouncer in front of Postgres.' },
    { kind: 'rule', subject: 'Postgres', statement: 'Never run migrations on Postgres by hand.' },
  ]);
  const plain = m.relate({ subject: 'Billing', predicate: 'uses', object: 'Postgres', prior: 'explicit' }, person);
  m.correct({ id: rule!, verdict: 'confirm' }, person);
  const n = m.browseHandlers().neighbourhood({ entity: 'Postgres' });
  m.close();

  const groups = edgeGroups(n.edges);
  assert.deepEqual(
    groups.map((g) => [g.title, g.edges.map((e) => e.id)]),
    [
      ['Rules', [rule]],
      ['Decisions', [decision]],
      ['Lessons learned', [lesson]],
      ['Relationships', [plain.id]],
    ],
  );
  const byId = new Map(n.edges.map((e) => [e.id, e]));
  assert.equal(edgeText(byId.get(rule!)!), 'rule: Never run migrations on Postgres by hand.');
  assert.equal(edgeText(byId.get(plain.id)!), 'Billing uses Postgres');
  assert.match(edgeState(byId.get(rule!)!), /^confirmed · user · 1 evidence$/);
  assert.match(edgeState(byId.get(lesson!)!), /^\d+% · agent · 1 evidence$/, 'an unconfirmed item shows its confidence');
});

test('bench: neighbourhood queries on a 5,000-entity memory', async () => {
  const m = await Memory.open(tmpFolder('graph'), { extract: false });
  const entities = 5000;
  const name = (i: number): string => `Entity ${i}`;
  // Each entity links to three others (a sparse random graph, a few hubs), read from one episode per 100 facts.
  let seed = 7;
  const rnd = (n: number): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const facts: { subject: string; predicate: string; object: string }[] = [];
  for (let i = 0; i < entities; i++)
    for (let k = 0; k < 3; k++) facts.push({ subject: name(i), predicate: 'relates to', object: name(k === 0 ? rnd(50) : rnd(entities)) });
  const built = Date.now();
  for (let i = 0; i < facts.length; i += 100) {
    const ep = m.remember({ text: `notes ${i}`, time: '2026-11-30T10:00:00Z' }, person);
    m.recordExtraction({ episode: ep.id, facts: facts.slice(i, i + 100).filter((f) => f.subject !== f.object), extractor: 'bench' }, agent);
  }
  const status = m.browseHandlers().types();
  const count = status.types.reduce((n, t) => n + t.entities, 0);
  assert.ok(count >= entities, `${count} entities`);
  const times: number[] = [];
  let drawn = 0;
  for (let i = 0; i < 200; i++) {
    const t0 = process.hrtime.bigint();
    const n = m.browseHandlers().neighbourhood({ entity: name(rnd(entities)) });
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
    drawn += n.nodes.length;
  }
  const degree = new Map<string, number>();
  for (const f of facts) for (const e of [f.subject, f.object]) degree.set(e, (degree.get(e) ?? 0) + 1);
  const busiest = [...degree].sort((a, b) => b[1] - a[1])[0]![0];
  const hub = process.hrtime.bigint();
  const h = m.browseHandlers().neighbourhood({ entity: busiest, limit: LIMITS.neighbourhood });
  const hubMs = Number(process.hrtime.bigint() - hub) / 1e6;
  times.sort((a, b) => a - b);
  const p = (q: number): string => times[Math.floor(q * (times.length - 1))]!.toFixed(2);
  console.log(
    `neighbourhood on ${count} entities / ${facts.length} facts (built in ${Date.now() - built} ms): ` +
      `p50 ${p(0.5)} ms, p95 ${p(0.95)} ms over 200 random entities (${(drawn / 200).toFixed(1)} nodes each); ` +
      `hub "${h.center}" ${h.edges.length}/${h.total} facts in ${hubMs.toFixed(2)} ms`,
  );
  assert.ok(h.edges.length > 0);
  m.close();
});

test('the graph page: a strict CSP (no inline, nothing remote), the script by nonce, no inline style', () => {
  const source = 'https://abc.vscode-resource.vscode-cdn.net';
  const html = graphPage(
    { cspSource: source, script: `${source}/dist/graph-view.js`, style: `${source}/media/graph/graph.css` },
    'Recall <Graph>',
  );
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1]!;
  const nonce = /script-src 'nonce-([^']+)'/.exec(csp)![1]!;
  assert.ok(nonce.length >= 16);
  assert.match(csp, /^default-src 'none'/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/);
  assert.equal(csp, contentSecurityPolicy(source, nonce));
  const scripts = [...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
  assert.deepEqual(scripts, [` nonce="${nonce}" src="${source}/dist/graph-view.js"`], 'one script, by nonce, from the extension');
  assert.doesNotMatch(html, /<style|style="/, 'no inline style for the CSP to refuse');
  assert.match(html, /id="__________cytoscape_stylesheet"/, "Cytoscape's own <style> is pre-empted");
  assert.match(html, /Recall &#60;Graph&#62;/);
  assert.notEqual(graphPage({ cspSource: source, script: '', style: '' }, 'x').match(/nonce-([^']+)/)![1], nonce, 'a fresh nonce per page');
});
