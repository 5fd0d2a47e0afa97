/**
 * Claude Code's imports (core/ingest/memory-imports.ts): what a CLAUDE.md names with `@path` is
 * read with it, within the repository it is in, and through the built CLI; the service refuses an
 * "import" outside that bound. The CLAUDE.md is laid out as liuhangbin/lock-trace's (CLAUDE.md at
 * 61d52455a4e7e2fb43478c0e7ff08bb8bd52e873: a heading, then one `@docs/claude/…` line under it);
 * the imported guidelines are pico-go-lan-robot's AGENTS.md (test/fixtures/knowledge, origin in its
 * SOURCES.md), saved under a name that is no memory file's.
 */
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { claudeImports, droppedImports, importedFileType, importedPaths } from '../src/core/ingest/memory-imports';
import { CLI, memoryWith, ROOT, tmpFolder } from './helpers';

const GUIDELINES = path.join(ROOT, 'test', 'fixtures', 'knowledge', 'instructions', 'pico-go-lan-robot', 'AGENTS.md');
const GIT_ENV = { GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };

const CLAUDE_MD = `# CLAUDE.md

This file provides guidance to Claude Code (claude.ai/code) when working with code in this repository.

## Project Overview

@docs/claude/project-overview.md

## Code Style Guidelines

@docs/claude/code-style.md

## Not imports

Mail me@docs.md, see \`@docs/claude/in-code.md\`, and @package.json, @../outside.md and @~/secret.md stay out.

\`\`\`
@docs/claude/fenced.md
\`\`\`
`;

const write = (file: string, text: string): void => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
};

/** A repository with the CLAUDE.md above and the files it names, some inside it and some not; a home folder beside it. */
function layout(): { repo: string; home: string; claude: string } {
  const base = tmpFolder('imports');
  const repo = path.join(base, 'repo');
  const home = path.join(base, 'home');
  const claude = path.join(repo, 'CLAUDE.md');
  write(claude, CLAUDE_MD);
  write(path.join(repo, 'docs/claude/project-overview.md'), 'The firmware runs on the Pico W.\n\n@more/networking.md\n');
  write(path.join(repo, 'docs/claude/more/networking.md'), '- Never flash the firmware while the robot is driving.\n');
  fs.copyFileSync(GUIDELINES, path.join(repo, 'docs/claude/code-style.md'));
  for (const rel of ['docs/claude/in-code.md', 'docs/claude/fenced.md'])
    write(path.join(repo, rel), '- Always run the linter before pushing.\n');
  write(path.join(repo, 'package.json'), '{"name":"x"}\n');
  write(path.join(base, 'outside.md'), '- Always deploy on Fridays.\n');
  write(path.join(home, 'secret.md'), '- The staging password is hunter2.\n');
  execFileSync('git', ['init', '-q'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
  return { repo, home, claude };
}

test("a CLAUDE.md's @paths: outside code, not an e-mail address; a trailing full stop is the sentence's", () => {
  assert.deepEqual(importedPaths(CLAUDE_MD), [
    'docs/claude/project-overview.md',
    'docs/claude/code-style.md',
    'package.json',
    '../outside.md',
    '~/secret.md',
  ]);
  // A package name is a path too here; it is dropped when it is no text file inside the repository.
  assert.deepEqual(importedPaths('See @README.md. Then @./notes/rules.md, and npm i @types/node.'), [
    'README.md',
    './notes/rules.md',
    'types/node',
  ]);
});

test('the files a CLAUDE.md imports, and theirs, inside its repository; text files only', () => {
  const { repo, home, claude } = layout();
  const found = claudeImports(claude, fs.readFileSync(claude, 'utf8'), home).map((f) => path.relative(repo, f));
  assert.deepEqual(found, ['docs/claude/project-overview.md', 'docs/claude/code-style.md', 'docs/claude/more/networking.md']);
  assert.equal(importedFileType(path.join(repo, 'docs/claude/code-style.md'), claude, home)?.label, 'CLAUDE.md import');
  // Outside the repository (the parent folder, the home folder), not text, or no CLAUDE.md importing: never an import.
  assert.equal(importedFileType(path.join(repo, '..', 'outside.md'), claude, home), undefined);
  assert.equal(importedFileType(path.join(home, 'secret.md'), claude, home), undefined);
  assert.equal(importedFileType(path.join(repo, 'package.json'), claude, home), undefined);
  assert.equal(
    importedFileType(path.join(repo, 'docs/claude/code-style.md'), path.join(repo, 'docs/claude/project-overview.md'), home),
    undefined,
  );
  // A link inside the repository to a file outside it is outside.
  fs.symlinkSync(path.join(repo, '..', 'outside.md'), path.join(repo, 'docs/claude/linked.md'));
  assert.equal(importedFileType(path.join(repo, 'docs/claude/linked.md'), claude, home), undefined);
});

test('a file no CLAUDE.md beside it imports any more is dropped; one another still imports, or that cannot be told, is not', () => {
  const { repo, home, claude } = layout();
  const at = (rel: string): string => path.join(repo, rel);
  const held = [claude, ...claudeImports(claude, fs.readFileSync(claude, 'utf8'), home)];
  const dropped = (text: string, also: string[] = []): string[] =>
    droppedImports(claude, text, [...held, ...also], home).map((f) => path.relative(repo, f));
  assert.deepEqual(dropped(CLAUDE_MD), []);
  assert.deepEqual(dropped(CLAUDE_MD.replace('@docs/claude/code-style.md', '')), ['docs/claude/code-style.md']);
  // The file that imported another goes: both are dropped.
  assert.deepEqual(dropped(CLAUDE_MD.replace('@docs/claude/project-overview.md', '')), [
    'docs/claude/project-overview.md',
    'docs/claude/more/networking.md',
  ]);
  // CLAUDE.local.md beside it still imports the style guide: kept; once it is gone, dropped.
  const local = at('CLAUDE.local.md');
  write(local, '@docs/claude/code-style.md\n');
  assert.deepEqual(dropped(CLAUDE_MD.replace('@docs/claude/code-style.md', ''), [local]), []);
  fs.rmSync(local);
  assert.deepEqual(dropped(CLAUDE_MD.replace('@docs/claude/code-style.md', ''), [local]), ['docs/claude/code-style.md']);
  // What an import imports cannot be read (too big): nothing is dropped on a guess.
  fs.writeFileSync(at('docs/claude/project-overview.md'), '- Keep this line.\n'.repeat(20_000));
  assert.deepEqual(dropped(CLAUDE_MD.replace('@docs/claude/code-style.md', '')), []);
  // A file that is not the CLAUDE.md's to drop: a memory file by its own name, or one in another repository.
  assert.deepEqual(droppedImports(GUIDELINES, '', [GUIDELINES], home), []);
});

test('the service reads an import as one, and refuses a file outside the bound however it is asked', async () => {
  const { repo, home, claude } = layout();
  const { memory } = await memoryWith([], { tag: 'imports-svc' });
  const file = path.join(repo, 'docs/claude/code-style.md');
  const written = { authority: 'user' as const, authors: [] };
  const r = memory.readMemoryFile(
    { file, text: fs.readFileSync(file, 'utf8'), written, project: null, importedBy: claude },
    {
      authority: 'human',
    },
  );
  assert.equal(r.label, 'CLAUDE.md import');
  assert.ok(r.items >= 15, `${r.items} items`);
  const outside = path.join(repo, '..', 'outside.md');
  for (const importedBy of [claude, path.join(home, '.claude', 'CLAUDE.md')])
    assert.throws(
      () => memory.readMemoryFile({ file: outside, text: '- Always deploy on Fridays.\n', written, importedBy }, { authority: 'human' }),
      /is not read as an import of/,
    );
  assert.throws(
    () => memory.readMemoryFile({ file, text: 'x', written, importedBy: 'docs/CLAUDE.md' }, { authority: 'human' }),
    /"importedBy" must be the absolute path/,
  );
  // Without "importedBy" the same file is no memory file.
  assert.throws(() => memory.readMemoryFile({ file, text: 'x', written }, { authority: 'human' }), /is not a memory file/);
  // An import deleted is read as empty, still as an import (its folder is inside the bound): its items end.
  fs.rmSync(file);
  const gone = memory.readMemoryFile({ file, text: '', written, project: null, importedBy: claude }, { authority: 'human' });
  assert.equal(gone.ended, r.items);
});

test('recall ingest CLAUDE.md reads what it imports into the same project, and nothing outside the repository', async () => {
  const { repo, home } = layout();
  const memory = tmpFolder('imports-cli');
  const run = (args: string[]): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) =>
      execFile(
        process.execPath,
        [CLI, '--memory', memory, ...args],
        { cwd: repo, env: { ...process.env, ...GIT_ENV, HOME: home, RECALL_IDLE_EXIT_MS: '60000' } },
        (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
      ),
    );
  const r = await run(['ingest', 'CLAUDE.md', '--project', 'github.com/x/robot', '--json']);
  assert.equal(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout).memoryFiles[0];
  assert.deepEqual(
    report.imports.map((i: { file: string; label: string; project: string }) => [path.relative(repo, i.file), i.label, i.project]),
    [
      ['docs/claude/project-overview.md', 'CLAUDE.md import', 'github.com/x/robot'],
      ['docs/claude/code-style.md', 'CLAUDE.md import', 'github.com/x/robot'],
      ['docs/claude/more/networking.md', 'CLAUDE.md import', 'github.com/x/robot'],
    ],
  );
  const text = await run(['ingest', 'CLAUDE.md', '--project', 'github.com/x/robot']);
  assert.match(text.stdout, /code-style\.md: CLAUDE\.md import \(memory file\), \d+ items .*: 0 new/);
  const facts = JSON.parse((await run(['export', '--json'])).stdout).facts as { statement?: string; authority: string }[];
  const said = (start: string) => facts.find((f) => f.statement?.startsWith(start));
  assert.equal(said('Functions, modules, and files use `snake_case`')?.authority, 'user');
  assert.ok(said('Never flash the firmware'), 'two hops down');
  for (const never of ['Always deploy on Fridays', 'The staging password', 'Always run the linter'])
    assert.equal(said(never), undefined, `${never}: not imported`);

  // An import too big to read is said, and the CLAUDE.md and its other imports stand.
  write(path.join(repo, 'docs/claude/huge.md'), '- Keep this line.\n'.repeat(20_000));
  fs.appendFileSync(path.join(repo, 'CLAUDE.md'), '\n@docs/claude/huge.md\n');
  const big = await run(['ingest', 'CLAUDE.md', '--project', 'github.com/x/robot']);
  assert.equal(big.code, 0, big.stderr);
  assert.match(big.stderr, /huge\.md: imported by .*CLAUDE\.md, not read: .* KB; memory files are read up to 256 KB/);
  assert.match(big.stdout, /code-style\.md: CLAUDE\.md import \(memory file\)/);

  // The CLAUDE.md stops importing the style guide: its items end (kept under history), the others stand.
  fs.rmSync(path.join(repo, 'docs/claude/huge.md'));
  const without = fs.readFileSync(path.join(repo, 'CLAUDE.md'), 'utf8').replace(/@docs\/claude\/(?:code-style|huge)\.md/g, '');
  fs.writeFileSync(path.join(repo, 'CLAUDE.md'), without);
  const dropped = await run(['ingest', 'CLAUDE.md', '--project', 'github.com/x/robot']);
  assert.equal(dropped.code, 0, dropped.stderr);
  assert.match(dropped.stdout, /no longer imported \(their items ended\): .*docs\/claude\/code-style\.md/);
  const after = JSON.parse((await run(['export', '--json', '--history'])).stdout).facts as {
    statement?: string;
    ended_reason?: string;
    valid_to?: string;
  }[];
  const style = after.find((f) => f.statement?.startsWith('Functions, modules, and files use `snake_case`'));
  assert.match(String(style?.ended_reason), /docs\/claude\/code-style\.md is no longer imported by CLAUDE\.md/);
  const flash = after.find((f) => f.statement?.startsWith('Never flash the firmware'));
  assert.ok(flash, 'two hops down');
  assert.equal(flash.ended_reason ?? null, null, 'still imported, two hops down');
});
