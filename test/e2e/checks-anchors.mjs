// Code anchors in the real VS Code: a fact whose evidence names a workspace file turns "changed"
// after the file is edited and saved in the editor, in a recall_query tool answer and in the
// Entities tree; Re-confirm Fact Against Code clears it. Called once from extension.e2e.mjs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const SETTLE = [
  "import { clock } from './clock';",
  '',
  '/** Payments after this hour settle the next business day. */',
  'export function settleCutoff(day: Date): Date {',
  '  const cutoff = new Date(day);',
  '  cutoff.setUTCHours(17, 0, 0, 0);',
  '  return cutoff;',
  '}',
  '',
].join('\n');

/**
 * `ui`: { page, invokeTools, waitRow, expand, expandTypes, waitNotification, runCommandOpeningPick, quickInput }
 * from the main script; `dirs.folder` is the workspace code-server opened, `dirs.home` the memory.
 */
export async function checkAnchors({ check, h, dirs, ui }) {
  const { page } = ui;
  const file = path.join(dirs.folder, 'src/pay/settle.ts');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, SETTLE);
  // Seeded by the CLI standing in the workspace: its workspace (cwd) is where the anchors are taken.
  const cli = (...args) =>
    JSON.parse(
      execFileSync(process.execPath, [path.join(h.REPO, 'dist/cli.js'), '--memory', dirs.home, ...args, '--json'], {
        encoding: 'utf8',
        cwd: dirs.folder,
        env: { ...process.env, RECALL_HOME: dirs.home, RECALL_IDLE_EXIT_MS: '120000' },
      }),
    );
  const ep = cli('remember', 'The settlement cutoff lives in src/pay/settle.ts, in `settleCutoff()`', '--entity', 'Settlement cutoff').id;
  const fact = cli('relate', 'Settlement cutoff', 'lives in', 'payments module', '--evidence', ep).id;
  const ask = async () => {
    const run = await ui.invokeTools([{ tool: 'recall_query', input: { query: 'Where does the Settlement cutoff live?' } }]);
    const [r] = run.results;
    assert.ok(r.ok, r.error);
    const line = r.text.split('\n').find((l) => l.includes(`${fact}: Settlement cutoff —lives in→ payments module`));
    assert.ok(line, `the anchored fact is not in the answer:\n${r.text}`);
    return line;
  };
  let thingWasOpen = true;
  const factRow = (re) => ui.waitRow('Entities', new RegExp(`^lives in → payments module ${re.source}`), 20000);

  await check('code anchors: a fact whose evidence names a workspace file says its code is unchanged (tool answer, tree)', async () => {
    assert.match(await ask(), /✓ code unchanged \(src\/pay\/settle\.ts `settleCutoff`\)/);
    // Only its type opened (relate makes a "thing"): opening every type would push rows later checks read out of view.
    const thing = await ui.waitRow('Entities', /^thing \d+$/);
    thingWasOpen = (await thing.getAttribute('aria-expanded')) === 'true';
    await ui.expand(thing);
    const entity = await ui.waitRow('Entities', /^Settlement cutoff \d+ facts?/, 10000).catch(async () => {
      await ui.expandTypes(); // typed otherwise by the extractor: look everywhere
      return ui.waitRow('Entities', /^Settlement cutoff \d+ facts?/);
    });
    await ui.expand(entity);
    const row = await factRow(/\d+% · human · explicit$/);
    assert.doesNotMatch(await row.innerHTML(), /codicon-warning/);
  });

  await check('code anchors: edited and saved in the editor, the fact turns "changed" in the tool answer and the tree', async () => {
    await ui.invokeTools([{ command: 'vscode.open', args: [{ $uri: file }] }]);
    const lines = page.locator('.part.editor .monaco-editor .view-lines').first();
    await h.waitFor(async () => (await lines.innerText()).includes('settleCutoff'), { what: 'settle.ts open in the editor' });
    await lines.click();
    await page.keyboard.press('Control+Home');
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowDown'); // line 6: cutoff.setUTCHours(17, …)
    await page.keyboard.press('End');
    await page.keyboard.press('Enter');
    await page.keyboard.type('// reviewed: the cutoff moves to 16:00 UTC');
    await page.keyboard.press('Control+s');
    await h.waitFor(() => fs.readFileSync(file, 'utf8').includes('reviewed: the cutoff'), { timeoutMs: 15000, what: 'settle.ts saved' });
    const day = new Date(fs.statSync(file).mtimeMs).toISOString().slice(0, 10);
    assert.match(await ask(), new RegExp(`⚠ code changed since ${day} \\(src/pay/settle\\.ts \`settleCutoff\`\\)`));
    // The tree refreshes on save: a warning icon and "⚠ code changed" before the confidence.
    const row = await factRow(/⚠ code changed · \d+% · human · explicit$/);
    assert.match(await row.innerHTML(), /codicon-warning/);
  });
  await h.screenshot(page, 'recall-anchors-changed');

  await check('code anchors: Re-confirm Fact Against Code… (palette) moves the anchor to the current code and clears it', async () => {
    await ui.runCommandOpeningPick('Recall: Re-confirm Fact Against Code…', 'Recall: Re-confirm Fact Against Code');
    const widget = await ui.quickInput();
    await widget.locator('input.input').fill('Settlement cutoff');
    const pick = widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Settlement cutoff lives in payments module' }).first();
    await pick.waitFor({ state: 'visible', timeout: 20000 });
    await pick.click();
    await ui.waitNotification(/Re-confirmed: "Settlement cutoff lives in payments module" now points at the code as it is/);
    const row = await factRow(/confirmed · human · explicit$/);
    assert.doesNotMatch(await row.innerHTML(), /codicon-warning/);
    assert.match(await ask(), /✓ code unchanged \(src\/pay\/settle\.ts `settleCutoff`\)/);
    const entity = await ui.waitRow('Entities', /^Settlement cutoff \d+ facts?/);
    // Leave the tree as it was: later checks read rows that must stay in view.
    if ((await entity.getAttribute('aria-expanded')) === 'true') await entity.click();
    const thing = await ui.waitRow('Entities', /^thing \d+$/);
    if (!thingWasOpen && (await thing.getAttribute('aria-expanded')) === 'true') await thing.click();
  });
}
