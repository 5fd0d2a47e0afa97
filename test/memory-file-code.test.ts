/**
 * What a memory file says outside its instructions: a shell block under a heading of commands is a
 * fact naming the commands (each with its comment), a block drawing the layout a fact naming its
 * entries (a long one goes on in a second), a line of names
 * joined by "+" or "/" the stack, a sentence saying what the project is a fact. Real files from
 * test/fixtures/knowledge (origins in its SOURCES.md), their commands counted by hand; the
 * negatives are written here, each the near miss of a rule above.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { memoryFileItems } from '../src/core/ingest/memory-file-items';
import { memoryFileType } from '../src/core/ingest/memory-files';

const KNOWLEDGE = path.join(__dirname, 'fixtures', 'knowledge', 'instructions');
const read = (file: string) => {
  const full = path.join(KNOWLEDGE, file);
  return memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!);
};
const facts = (items: ReturnType<typeof read>) => items.filter((i) => i.kind === 'fact').map((i) => [i.startLine, i.statement]);
const type = memoryFileType('/r/AGENTS.md')!;

test('real CLAUDE.md files: each shell block under "commands" is one fact naming its commands; the stack line is a fact', () => {
  const frontend = read('mozgoslav/frontend/CLAUDE.md');
  const byLine = new Map(facts(frontend) as [number, string][]);
  assert.equal(byLine.get(3), 'Electron + React 19 + TS strict + Redux-Saga + styled-components + i18next.');
  assert.equal(
    byLine.get(7),
    'commands: `npm ci`; `npm run dev`; `npm run build`; `npm run typecheck`; `npm run lint`; `npm test -- --watchAll=false`; ' +
      '`npx prettier --check "src/**/*.{ts,tsx,css}" "electron/**/*.ts"`',
  );
  const block = frontend.find((i) => i.startLine === 7)!;
  assert.equal(block.endLine, 15, 'anchored to the whole block, fences included');

  const backend = new Map(facts(read('mozgoslav/backend/CLAUDE.md')) as [number, string][]);
  assert.equal(backend.get(3), 'C# 14 / .NET 10 ASP.NET Minimal API.');
  const commands = backend.get(7)!;
  assert.equal(commands.split('; ').length, 5, 'five commands in the block');
  assert.match(commands, /`dotnet build Mozgoslav\.sln -maxcpucount:1`/, 'runs of spaces made one');
});

test('code that is not a block of commands, or not under a heading of commands, states nothing', () => {
  const text = [
    '# Project',
    '',
    '## Architecture',
    '```bash',
    'npm run build',
    '```',
    '## Build',
    '```ts',
    'export const build = () => run();',
    '```',
    '```json',
    '{ "scripts": { "build": "tsc" } }',
    '```',
    '```bash',
    'if [ -f .env ]; then',
    '  source .env',
    'fi',
    '```',
    '## Examples of builds',
    'The client talks to the server over HTTP / WebSockets and a queue.',
  ].join('\n');
  assert.deepEqual(memoryFileItems(text, type), []);
});

test('a console block gives its prompted lines, comments and joined lines read as the shell does, at most eight', () => {
  const text = [
    '## Testing',
    '```console',
    '$ npm test',
    '> recall@1.0.0 test',
    'all 12 passed',
    '```',
    '## Setup',
    '```sh',
    '# dependencies first',
    'RUST_LOG=debug cargo build \\',
    '  --release',
    ...Array.from({ length: 9 }, (_, i) => `make step${i + 1}`),
    '```',
  ].join('\n');
  const items = memoryFileItems(text, type);
  assert.deepEqual(
    items.map((i) => [i.kind, i.subject, i.statement]),
    [
      ['fact', 'Testing', 'Testing: `npm test`'],
      [
        'fact',
        'Setup',
        // The comment above a command says what it does.
        'Setup: `RUST_LOG=debug cargo build --release` (dependencies first); ' +
          Array.from({ length: 7 }, (_, i) => `\`make step${i + 1}\``).join('; '),
      ],
    ],
  );
});

test('a sentence saying what the project is or is built with is a fact; other prose is not', () => {
  // Creative-Planning/pyfabric CLAUDE.md and gikiUK/admin AGENTS.md (origins in test/fixtures/knowledge/SOURCES.md).
  const pyfabric = read('pyfabric/CLAUDE.md');
  assert.ok(
    facts(pyfabric).some(([line, s]) => line === 8 && String(s).startsWith('pyfabric is a Python library for programmatically creating')),
    JSON.stringify(facts(pyfabric).slice(0, 5)),
  );
  const giki = read('giki-admin/AGENTS.md');
  assert.ok(facts(giki).some(([, s]) => s === 'Uses App Router, React 19, TypeScript, Tailwind CSS 4 with shadcn/ui components.'));
  // Written for this test: the near misses.
  const prose = (text: string) => memoryFileItems(`# Notes\n\n${text}\n`, type).map((i) => i.statement);
  assert.deepEqual(prose('It is a good tool for this.'), []);
  assert.deepEqual(prose('The gateway receives and verifies inbound payments.'), []);
  assert.deepEqual(prose('This file provides guidance to Claude Code.'), []);
  assert.deepEqual(prose('uses the cache when it can, and Redis otherwise.'), []);
  assert.deepEqual(prose('This repository is a small payment gateway.'), ['This repository is a small payment gateway.']);
  assert.deepEqual(prose('This is a breaking change to the system.'), []);
  assert.deepEqual(prose('The project is currently in a functional state.'), []);
  // juanqui-art/goolstar_backend CLAUDE.md (ditto): the description leads a list, its name has a version in it.
  const goolstar = facts(read('goolstar-backend/CLAUDE.md'));
  assert.ok(
    goolstar.some(([line, s]) => line === 26 && String(s).startsWith('This is a Django 5.2 + Django REST Framework sports tournament')),
    JSON.stringify(goolstar.slice(0, 6)),
  );
  assert.deepEqual(prose('本项目使用 Next.js 与 Prisma。'), ['本项目使用 Next.js 与 Prisma。']);
  // Written for this test: a kind named with another ("a personal blog/website built with VitePress").
  assert.deepEqual(prose('This is a personal blog/website built with VitePress and Vue 3.'), [
    'This is a personal blog/website built with VitePress and Vue 3.',
  ]);
});

test('a block drawing the layout, entries with what each holds, is a fact naming them, continued when long; other blocks are not', () => {
  // 02JanDal/spatialvault copilot-instructions.md and 1amageek/app-mcp .clinerules (origins in test/fixtures/knowledge/SOURCES.md).
  const all = read('spatialvault/.github/copilot-instructions.md').filter((i) => i.statement.startsWith('Project Structure'));
  assert.equal(all.length, 2, 'its 21 entries outgrow one statement: a second fact goes on');
  const [first, more] = all as [(typeof all)[number], (typeof all)[number]];
  assert.equal(first.startLine, 119, 'each on the lines of its own entries');
  assert.ok(first.statement.startsWith('Project Structure: api/ (API endpoints and handlers); collections/ (OGC API Collections);'));
  assert.ok(first.statement.length <= 500 && first.statement.includes('auth/ (OAuth2/OIDC authentication and authorization)'));
  assert.ok(more.statement.startsWith('Project Structure (continued): '), more.statement);
  assert.ok(more.startLine > first.endLine && more.statement.includes('storage/ (S3 object storage (COG raster, COPC point cloud files))'));
  const app = facts(read('app-mcp/.clinerules')).find(([, s]) => String(s).startsWith('File Organization:'));
  assert.ok(app && String(app[1]).includes('MCPServer.swift (Main server class)'), JSON.stringify(app));
  // Written for this test: code, and a list of paths with nothing said of them.
  const fenced = (body: string) => memoryFileItems(`# Layout\n\n\`\`\`\n${body}\n\`\`\`\n`, type).map((i) => i.statement);
  assert.deepEqual(fenced('src/\n  a.ts\n  b.ts'), []);
  assert.deepEqual(fenced('const a = 1 - 2\nlet b = a # no'), []);
  assert.deepEqual(fenced('src/          - the code\ntests/        - the tests'), ['Layout: src/ (the code); tests/ (the tests)']);
});

test('each command keeps the comment saying what it does, above it or after it', () => {
  // 02JanDal/spatialvault copilot-instructions.md and Creative-Planning/pyfabric CLAUDE.md (origins in
  // test/fixtures/knowledge/SOURCES.md); the comments counted by hand.
  const vault = facts(read('spatialvault/.github/copilot-instructions.md')).find(([, s]) =>
    String(s).startsWith('Build and Test Commands:'),
  );
  assert.equal(
    vault?.[1],
    'Build and Test Commands: `cargo build` (Build the project); `cargo build --all-features` (Build with all features); ' +
      '`cargo test` (Run tests, requires Docker for integration tests); `cargo test <test_name>` (Run specific test); ' +
      '`cargo check` (Check code without building); `cargo fmt` (Format code); `cargo clippy` (Run linter); ' +
      '`cargo run -- --worker` (Run in worker mode)',
  );
  const checks = facts(read('pyfabric/CLAUDE.md')).find(([, s]) => String(s).startsWith('Running Checks:'));
  assert.equal(
    checks?.[1],
    'Running Checks: `ruff check .` (Lint); `ruff format --check .` (Format check); `mypy src/` (Type check); `pytest` (Run tests)',
  );
});
