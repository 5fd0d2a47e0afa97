/**
 * The CLI agrees with itself about what a project holds: search, traverse, episodes and query see the
 * same project (and the global memory), export --project / --global / --all exports what it says,
 * and `recall overview` is there as recall_overview is. Two real git repositories, one real memory.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, test } from 'node:test';
import { type CliResult, recall, tmpFolder } from './helpers';

const memory = tmpFolder('project-reads');
const root = tmpFolder('project-reads-repos');

const repo = (name: string): string => {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['remote', 'add', 'origin', `https://github.com/me/${name}`], { cwd: dir });
  return dir;
};
const alpha = repo('alpha');
const beta = repo('beta');

const run = (cwd: string, args: string[]): Promise<CliResult> => recall(memory, args, {}, undefined, cwd);
async function json(cwd: string, args: string[]): Promise<any> {
  const r = await run(cwd, [...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

before(async () => {
  await json(alpha, ['relate', 'Billing', 'uses', 'Postgres']);
  await json(alpha, ['remember', 'Billing moved to Postgres in March', '--entity', 'Billing']);
  await json(beta, ['relate', 'Ingest', 'uses', 'Kafka']);
  await json(beta, ['remember', 'Kafka carries the ingest events', '--entity', 'Kafka']);
  await json(beta, ['remember', 'I like pull requests short', '--global']);
});

test('traverse does not find an entity search says is not in the project; it names the project that has it', async () => {
  assert.deepEqual(await json(alpha, ['search', 'Kafka']), []);
  const t = await run(alpha, ['traverse', 'Kafka']);
  assert.equal(t.code, 1, t.stdout);
  assert.match(t.stderr, /"Kafka" is not in project github\.com\/me\/alpha or the global memory; it is in project github\.com\/me\/beta/);
  assert.match(t.stderr, /--project github\.com\/me\/beta, or across every project with --all/);
  const there = await json(beta, ['traverse', 'Kafka']);
  assert.equal(there.root.name, 'Kafka');
  assert.ok((await json(alpha, ['traverse', 'Kafka', '--all'])).facts.length > 0);
  assert.ok((await json(alpha, ['search', 'Kafka', '--all'])).some((e: { name: string }) => e.name === 'Kafka'));
});

test('search in the wrong project says the entity is in another one, and how to read it', async () => {
  const r = await run(alpha, ['search', 'Kafka']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /No entity matches "Kafka"\.\nNothing in project github\.com\/me\/alpha or the global memory; \d+ in other projects: run again with --all/,
  );
});

test('export --project exports that project alone, --global the global memory, --all and no flag the whole memory', async () => {
  const texts = (x: { episodes: { text: string }[] }): string[] => x.episodes.map((e) => e.text).sort();
  const names = (x: { entities: { name: string }[] }): string[] => x.entities.map((e) => e.name);
  const b = await json(root, ['export', '--project', 'github.com/me/beta']);
  assert.deepEqual(texts(b), ['Kafka carries the ingest events']);
  assert.deepEqual(
    b.facts.map((f: { subject: string; object: string }) => `${f.subject} ${f.object}`),
    ['Ingest Kafka'],
  );
  assert.ok(names(b).includes('Kafka') && !names(b).includes('Postgres'), names(b).join(', '));
  const g = await json(alpha, ['export', '--global']);
  assert.deepEqual(texts(g), ['I like pull requests short']);
  assert.deepEqual(g.facts, []);
  const whole = await json(alpha, ['export']);
  assert.equal(whole.episodes.length, 3);
  assert.deepEqual(await json(alpha, ['export', '--all']), whole);
  const both = await run(alpha, ['export', '--all', '--global']);
  assert.equal(both.code, 2);
});

test("recall overview is the overview the MCP tool gives, in the folder's project", async () => {
  const o = await json(alpha, ['overview']);
  assert.ok(o.entities.some((e: { name: string }) => e.name === 'Billing'));
  assert.ok(!o.entities.some((e: { name: string }) => e.name === 'Kafka'), 'another project is not in it');
  assert.ok((await json(alpha, ['overview', '--all'])).entities.some((e: { name: string }) => e.name === 'Kafka'));
  const text = await run(alpha, ['overview']);
  assert.match(text.stdout, /^Top entities:\n- Billing/m);
  assert.match(text.stdout, /Recent sessions:|No sessions yet\./);
});
