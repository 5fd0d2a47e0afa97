/**
 * What a memory file says outside its sentences: a shell block under a heading of commands is one
 * fact naming the commands, a line of names joined by "+" or "/" is the stack. Real files from
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
        'Setup: `RUST_LOG=debug cargo build --release`; ' + Array.from({ length: 7 }, (_, i) => `\`make step${i + 1}\``).join('; '),
      ],
    ],
  );
});
