/**
 * The kind of a memory file's item by what it says and where it stands, on real files in
 * test/fixtures/knowledge/instructions (origins in its SOURCES.md); each kind checked here is the one
 * its labels (labels.json) give the line.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { memoryFileItems } from '../src/core/ingest/memory-file-items';
import { memoryFileType } from '../src/core/ingest/memory-files';

const KNOW = path.join(__dirname, 'fixtures', 'knowledge', 'instructions');

/** The kind and statement of the item read from a line of a real file. */
function at(file: string, line: number): [string, string] | undefined {
  const full = path.join(KNOW, file);
  const item = memoryFileItems(fs.readFileSync(full, 'utf8'), memoryFileType(full)!).find((i) => i.startLine === line);
  return item && [item.kind, item.statement];
}

test('a command listed with what it does is how to run the project: a fact, though its description opens with a verb', () => {
  // giki-admin's AGENTS.md, lines 13-14, under "## Commands".
  assert.deepEqual(at('giki-admin/AGENTS.md', 13), ['fact', '`pnpm run dev` - Start dev server on port 3112']);
  assert.deepEqual(at('giki-admin/AGENTS.md', 14), ['fact', '`pnpm run build` - Build for production']);
  // Words that bind keep a listed command a rule (written for this test).
  const bound = memoryFileItems('## Commands\n\n- `npm install` - use pnpm instead\n- `npm test` - must pass before every commit\n', {
    label: 'AGENTS.md',
    instructions: true,
  });
  assert.deepEqual(
    bound.map((i) => i.kind),
    ['rule', 'rule'],
  );
});

test('a bold opening the sentence goes on from is no label: the sentence is read whole', () => {
  // goolstar-backend's CLAUDE.md, line 71, under "## Performance Guidelines".
  assert.deepEqual(at('goolstar-backend/CLAUDE.md', 71), [
    'rule',
    'Use appropriate serializers (List for listings, Detail for individual resources)',
  ]);
});

test('items under a heading of requirements, standards or rules are rules, unless they say what something is', () => {
  // app-mcp's .clinerules, lines 48-61: "### Performance Requirements" sets targets; "### Platform Requirements" names the stack.
  assert.deepEqual(at('app-mcp/.clinerules', 50), ['rule', 'Accessibility tree: < 200ms']);
  assert.deepEqual(at('app-mcp/.clinerules', 56), ['fact', 'Swift 6.1+ with modern concurrency']);
  assert.deepEqual(at('app-mcp/.clinerules', 61), ['fact', 'Library + CLI binary distribution']);
  // tibber-prices' copilot-instructions.md, line 16, under "## Development Guidelines": an entry with what it holds.
  assert.equal(at('tibber-prices/.github/copilot-instructions.md', 16)?.[0], 'fact');
  // moe-stream's project.mdc, line 27, under "## 命名约定" (naming conventions).
  assert.equal(at('moe-stream/.cursor/rules/project.mdc', 27)?.[0], 'rule');
});

test('under pitfalls, an instruction is the rule that avoids one; what went wrong and why stays a lesson', () => {
  // app-mcp's .clinerules, line 134, under "## Common Pitfalls to Avoid" / "### 1. Permission Assumptions".
  assert.deepEqual(at('app-mcp/.clinerules', 134), ['rule', 'Never assume permissions are granted']);
  // giki-admin's AGENTS.md, line 55, under "## Known Gotchas".
  assert.equal(at('giki-admin/AGENTS.md', 55)?.[0], 'lesson');
});
