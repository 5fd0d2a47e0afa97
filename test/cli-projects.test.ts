/** The real `recall` CLI in two real git repositories sharing one memory: each command works in its folder's project. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { type CliResult, recall, tmpFolder } from './helpers';

const memory = tmpFolder('projects');
const root = tmpFolder('cli-projects');

const repo = (name: string, remote: string): string => {
  const dir = path.join(root, name);
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['remote', 'add', 'origin', remote], { cwd: dir });
  return dir;
};
const alpha = repo('alpha', 'git@github.com:me/alpha.git');
const beta = repo('beta', 'https://github.com/me/beta');

const run = (cwd: string, args: string[]): Promise<CliResult> => recall(memory, args, {}, undefined, cwd);
async function json(cwd: string, args: string[]): Promise<any> {
  const r = await run(cwd, [...args, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('each folder writes to and reads from its own project and the global memory', async () => {
  await json(alpha, ['remember', 'the release train leaves on Thursdays']);
  await json(path.join(beta, 'src'), ['remember', 'the release train leaves on Mondays']);
  await json(beta, ['remember', 'I like release notes short', '--global']);

  const texts = async (cwd: string, extra: string[] = []) =>
    ((await json(cwd, ['query', 'release train', ...extra])).episodes as { text: string }[]).map((e) => e.text).sort();
  assert.deepEqual(await texts(alpha), ['I like release notes short', 'the release train leaves on Thursdays']);
  assert.deepEqual(await texts(beta), ['I like release notes short', 'the release train leaves on Mondays']);
  assert.equal((await texts(alpha, ['--all'])).length, 3);
  assert.deepEqual(await texts(root, ['--project', 'github.com/me/beta']), await texts(beta));

  const q = await json(alpha, ['query', 'Thursdays']);
  assert.equal(q.episodes[0].project, 'github.com/me/alpha');
  assert.equal(q.episodes[0].source, 'cli');

  const list = await json(alpha, ['project', 'list']);
  assert.equal(list.current, 'github.com/me/alpha');
  assert.deepEqual(list.projects.map((p: { project: string | null }) => p.project).sort(), [
    'github.com/me/alpha',
    'github.com/me/beta',
    null,
  ]);
  assert.equal((await run(alpha, ['query', 'x', '--project', 'p', '--global'])).code, 2, 'both flags is a usage error');
});

test('a person renames a project; the memories follow', async () => {
  const moved = await json(alpha, ['project', 'rename', 'github.com/me/alpha', 'github.com/me/alpha-renamed']);
  assert.equal(moved.episodes, 1);
  assert.deepEqual(
    (await json(alpha, ['query', 'Thursdays', '--project', 'github.com/me/alpha-renamed'])).episodes.map(
      (e: { project: string }) => e.project,
    ),
    ['github.com/me/alpha-renamed'],
  );
  const none = await run(alpha, ['project', 'rename', 'no/such', 'x']);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /No memories match/);
});
