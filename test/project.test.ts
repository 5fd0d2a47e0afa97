/** Deriving a folder's project from real git repositories made here: remote URL forms, no remote, nested folders, worktrees. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { deriveProject, normaliseRemote } from '../src/core/model/project';
import { tmpFolder } from './helpers';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', ...args], { cwd, encoding: 'utf8' });

test('remote URL forms normalise to host/owner/repo', () => {
  const forms = [
    'https://github.com/Owner/Repo.git',
    'https://user:ghp_secret@GitHub.com/Owner/Repo.git/',
    'http://github.com/Owner/Repo',
    'ssh://git@github.com:22/Owner/Repo.git',
    'ssh://git@GITHUB.COM/Owner/Repo/',
    'git@github.com:Owner/Repo.git',
    'github.com:Owner/Repo',
    'git://github.com/Owner/Repo.git',
  ];
  for (const url of forms) assert.equal(normaliseRemote(url), 'github.com/Owner/Repo', url);
  assert.equal(normaliseRemote('git@gitlab.example.org:group/sub/proj.git'), 'gitlab.example.org/group/sub/proj');
  assert.equal(normaliseRemote('/srv/git/proj.git'), 'dir:/srv/git/proj.git');
  assert.equal(normaliseRemote('file:///srv/git/proj.git'), 'dir:/srv/git/proj');
  assert.equal(normaliseRemote('   '), undefined);
  assert.ok(!normaliseRemote('https://u:tok@host.io/o/r')!.includes('tok'), 'credentials are stripped');
});

test('a repository with origin: its normalised remote, from any folder inside it', () => {
  const repo = tmpFolder('project');
  git(repo, 'init', '-q');
  git(repo, 'remote', 'add', 'upstream', 'https://github.com/someone/fork-base.git');
  git(repo, 'remote', 'add', 'origin', 'git@github.com:me/app.git');
  const nested = path.join(repo, 'src', 'deep', 'er');
  fs.mkdirSync(nested, { recursive: true });
  for (const dir of [repo, nested]) assert.deepEqual(deriveProject(dir), { key: 'github.com/me/app', name: 'app', root: repo });
});

test('no origin: the first remote; no remote: the repository root; no repository: the folder', () => {
  const one = tmpFolder('project');
  git(one, 'init', '-q');
  git(one, 'remote', 'add', 'mirror', 'ssh://git@git.example.com:2222/team/tool');
  assert.equal(deriveProject(one).key, 'git.example.com/team/tool');

  const bare = tmpFolder('project');
  git(bare, 'init', '-q');
  const inner = path.join(bare, 'pkg');
  fs.mkdirSync(inner);
  assert.deepEqual(deriveProject(inner), { key: `dir:${bare}`, name: path.basename(bare), root: bare });

  const plain = path.join(tmpFolder('project'), 'notes');
  fs.mkdirSync(plain);
  assert.deepEqual(deriveProject(plain), { key: `dir:${plain}`, name: 'notes', root: plain });
});

test('a nested repository is its own project; a linked worktree shares its repository remote', () => {
  const outer = tmpFolder('project');
  git(outer, 'init', '-q');
  git(outer, 'remote', 'add', 'origin', 'https://github.com/me/outer');
  const sub = path.join(outer, 'vendor', 'lib');
  fs.mkdirSync(sub, { recursive: true });
  git(sub, 'init', '-q');
  git(sub, 'remote', 'add', 'origin', 'https://gitlab.com/them/lib.git');
  assert.equal(deriveProject(sub).key, 'gitlab.com/them/lib');
  assert.equal(deriveProject(path.join(outer, 'vendor')).key, 'github.com/me/outer');

  fs.writeFileSync(path.join(outer, 'a.txt'), 'a');
  git(outer, 'add', 'a.txt');
  git(outer, 'commit', '-q', '-m', 'a');
  const wt = path.join(tmpFolder('project'), 'wt');
  git(outer, 'worktree', 'add', '-q', wt);
  assert.ok(fs.statSync(path.join(wt, '.git')).isFile(), 'a worktree has a .git file');
  assert.deepEqual(deriveProject(wt), { key: 'github.com/me/outer', name: 'outer', root: wt });
});
