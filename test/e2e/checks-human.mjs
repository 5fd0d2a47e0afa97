// The human side in the real VS Code (issue 16): sessions named by their titles, the graph view
// (opens on the seeded memory, expands a node, styles a wrong fact apart, marks one wrong, under a
// strict CSP with nothing remote requested), and the walkthrough's semantic-search step with a local
// model standing in for the download. Called once from extension.e2e.mjs with what it needs.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

const REAL = (h) => path.join(h.REPO, 'test/fixtures/real');
// VS Code serves a webview's own files at *.vscode-resource.vscode-cdn.net through the webview's service worker: they never leave the machine.
const isLocal = (url) =>
  /^(data|blob|about|vscode-[a-z-]+):/.test(url) ||
  /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\//.test(url) ||
  /^https:\/\/[^/]+\.vscode-resource\.vscode-cdn\.net\//.test(url);

export async function humanChecks({ check, page, h, work, cli, cliJson, invokeTools, waitRow, waitEntity, waitNotification, dialog }) {
  await check('Episodes: a Claude Code session shows by its summary, with its id in the tooltip', async () => {
    const file = path.join(REAL(h), 'claude-code/compact-summary-slice.jsonl');
    const run = await invokeTools([{ command: 'recall.importConversations', args: [{ $uri: file }] }]);
    assert.ok(run.results[0].ok, run.results[0].error);
    const row = await waitRow(
      'Episodes',
      /^Three Module Knowledge Base Status and Build Process \d{4}-\d{2}-\d{2} · \d+ episodes?$/,
      30000,
    );
    const hover = page
      .locator('.monaco-hover, .workbench-hover, .custom-hover')
      .filter({ hasText: '6cf1b78b-d583-41c0-9193-7e078b05f254' });
    // A refresh of the view (another write, a saved file) re-renders the row and drops an open hover: hover again.
    for (let attempt = 1; ; attempt++) {
      await page.mouse.move(5, 5);
      await row.hover();
      const shown = await hover
        .first()
        .waitFor({ state: 'visible', timeout: 5000 })
        .then(() => true)
        .catch(() => false);
      if (shown) break;
      if (attempt === 3) throw new Error('the session row shows no hover with its id after 3 tries');
    }
    await h.screenshot(page, 'human-episodes-titles');
    await page.mouse.move(5, 5);
  });

  // ---- the graph view ----
  const requests = [];
  page.on('request', (r) => requests.push({ url: r.url(), frame: r.frame()?.url() ?? '' }));
  const wrong = cliJson('relate', 'Recall', 'stores data in', 'LevelDB').id;
  cli('correct', wrong, '--wrong', '--reason', 'it never did');
  cliJson('relate', 'sql.js', 'compiles to', 'WebAssembly');
  const written = cliJson('relate', 'Recall', 'is written in', 'TypeScript').id;
  let frame;
  const graphFrame = async () => {
    for (const f of page.frames()) if (await f.$('#nodes').catch(() => null)) return f;
    return undefined;
  };
  const nodeNames = async () => (await frame.locator('#nodes li').allInnerTexts()).map((t) => t.split(' · ')[0]);
  const factRow = (re) => frame.locator('#facts li.fact', { hasText: re });

  await check('Show Graph opens the neighbourhood of an entity: its facts, wrong ones styled apart', async () => {
    const run = await invokeTools([{ command: 'recall.showGraph', args: ['Recall'] }]);
    assert.ok(run.results[0].ok, run.results[0].error);
    frame = await h.waitFor(graphFrame, { timeoutMs: 30000, what: 'the graph webview' });
    await h.waitFor(async () => (await nodeNames()).includes('LevelDB'), { timeoutMs: 20000, what: 'LevelDB drawn' });
    const names = await nodeNames();
    for (const n of ['Recall', 'sql.js', 'Kubernetes', 'LevelDB']) assert.ok(names.includes(n), `${n} in ${JSON.stringify(names)}`);
    assert.ok(!names.includes('WebAssembly'), 'only the neighbourhood is drawn, not the whole graph');
    // Recall is selected: its facts are listed, the wrong one marked (struck through, red) apart from the rest.
    await factRow(/Recall stores data in LevelDB/).waitFor({ timeout: 10000 });
    assert.match(await factRow(/Recall stores data in LevelDB/).getAttribute('class'), /\bwrong\b/);
    assert.match(await factRow(/Recall stores data in LevelDB/).innerText(), /wrong since \d{4}-\d{2}-\d{2}/);
    assert.doesNotMatch(await factRow(/Recall uses sql\.js/).getAttribute('class'), /\bwrong\b/);
    await h.screenshot(page, 'human-graph');
  });

  await check('the graph webview sets a strict CSP and requests nothing remote', async () => {
    assert.ok(frame, 'the graph is open');
    const csp = await frame.$eval('meta[http-equiv="Content-Security-Policy"]', (m) => m.getAttribute('content'));
    assert.match(csp, /^default-src 'none'; script-src 'nonce-[^']+'/);
    for (const directive of csp.split(';').map((d) => d.trim().split(/\s+/))) {
      const [name, ...sources] = directive;
      for (const src of sources) {
        assert.ok(!/^'unsafe-|^\*$|^https?:$/.test(src), `${name} allows ${src}`);
        if (src === 'data:') assert.equal(name, 'img-src', `data: only for images, not ${name}`);
      }
    }
    const mine = requests.filter((r) => /graph-view\.js|graph\.css/.test(r.url));
    assert.ok(mine.length >= 2, `the script and the stylesheet were seen loading: ${JSON.stringify(mine)}`);
    const fromWebviews = requests.filter((r) => /webview/i.test(r.frame) || /webview/i.test(r.url));
    const remote = fromWebviews.filter((r) => !isLocal(r.url));
    assert.deepEqual(remote, [], 'no request leaves the machine');
  });

  await check('the graph expands a node by keyboard (Enter on the node list)', async () => {
    await frame.locator('#nodes li', { hasText: /^sql\.js · / }).click();
    await frame.locator('#nodes').focus();
    await frame.locator('#nodes').press('Enter');
    await h.waitFor(async () => (await nodeNames()).includes('WebAssembly'), {
      timeoutMs: 20000,
      what: 'WebAssembly drawn after expanding sql.js',
    });
    await h.screenshot(page, 'human-graph-expanded');
  });

  await check("Mark Wrong from the graph: the person's correction, and the fact is gone from the tools' answers", async () => {
    const ask = async () => {
      const run = await invokeTools([{ tool: 'recall_query', input: { query: 'What language is Recall written in?' } }]);
      assert.ok(run.results[0].ok, run.results[0].error);
      return run.results[0].text;
    };
    const fact = new RegExp(`${written}: Recall —is written in→ TypeScript`);
    assert.match(await ask(), fact, 'the fact answers before');
    await frame.locator('#nodes li', { hasText: /^Recall · / }).click();
    await factRow(/Recall is written in TypeScript/)
      .getByRole('button', { name: 'Mark Wrong' })
      .click();
    // The same path as the palette: it asks why (optional), then corrects at human authority.
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible', timeout: 15000 });
    await input.fill('moved off it');
    await input.press('Enter');
    await waitNotification(/Marked wrong: "Recall is written in TypeScript"/);
    await h.waitFor(
      async () =>
        /\bwrong\b/.test(
          (await factRow(/Recall deployed on Kubernetes/)
            .getAttribute('class')
            .catch(() => '')) ?? '',
        ),
      {
        timeoutMs: 15000,
        what: 'the graph redrawn with the fact marked wrong',
      },
    );
    assert.doesNotMatch(await ask(), fact, 'a fact marked wrong no longer answers');
    await h.screenshot(page, 'human-graph-marked-wrong');
  });

  // ---- the walkthrough ----
  await check('walkthrough: "Get started with Recall" is listed and opens on its semantic-search step', async () => {
    // The graph webview of the checks before can take the focus back, which closes a quick pick that
    // has just opened: close the editors first, and open the pick again if it is gone.
    await h.runCommand(page, 'View: Close All Editors').catch(() => {});
    const widget = page.locator('.quick-input-widget');
    await h.waitFor(
      async () => {
        await invokeTools([{ command: 'welcome.showAllWalkthroughs' }]);
        return widget.waitFor({ state: 'visible', timeout: 5000 }).then(
          () => true,
          () => false,
        );
      },
      { timeoutMs: 30000, intervalMs: 500, what: 'the walkthroughs quick pick' },
    );
    await widget.locator('input.input').fill('Get started with Recall');
    await widget.locator('.quick-input-list .monaco-list-row', { hasText: 'Get started with Recall' }).first().click({ timeout: 15000 });
    await page.getByText('Turn on semantic search').first().waitFor({ timeout: 20000 });
    await page.getByText('Choose which chat sessions to read').first().waitFor({ timeout: 5000 });
    await h.screenshot(page, 'human-walkthrough');
  });

  await check('Turn On Semantic Search: asks first (no means nothing changes), then loads a local model with progress', async () => {
    const model = path.join(work, 'tiny-model');
    if (!fs.existsSync(model))
      execFileSync(process.execPath, [path.join(h.REPO, 'scripts', 'make-test-model.mjs'), model], { stdio: 'pipe' });
    await invokeTools([
      { setting: 'recall.embeddings.modelPath', value: model },
      { setting: 'recall.embeddings.enabled', value: false },
    ]);
    await h.waitFor(() => /^disabled/.test(cliJson('status').embedder), { timeoutMs: 30000, what: 'embeddings off' });
    await h.sleep(1500);
    const before = cliJson('status');

    // Declined: nothing is turned on.
    await invokeTools([{ command: 'recall.turnOnSemanticSearch' }], {
      whileRunning: async () => {
        const box = await dialog(/Turn on semantic search\?/);
        assert.match(await box.innerText(), /nothing is downloaded/);
        assert.ok((await box.innerText()).includes(model), 'the dialog names the local model');
        await page.keyboard.press('Escape');
      },
    });
    await h.sleep(1500);
    assert.equal(cliJson('status').service_pid, before.service_pid, 'declined: no restart');
    assert.match(cliJson('status').embedder, /^disabled/);

    // Accepted: on, with progress until the model is ready.
    await invokeTools([{ command: 'recall.turnOnSemanticSearch' }], {
      whileRunning: async () => {
        const box = await dialog(/Turn on semantic search\?/);
        await box.locator('.monaco-button', { hasText: /^Turn On$/ }).click();
        await h.sleep(1000);
        await h.screenshot(page, 'human-semantic-search-progress');
      },
    });
    await waitNotification(/semantic search is on/, 90000);
    assert.match(cliJson('status').embedder, /^ready/);
    const running = cliJson('status').service_pid;
    await invokeTools([{ setting: 'recall.embeddings.enabled', value: false }]);
    await h.waitFor(() => cliJson('status').service_pid !== running, { timeoutMs: 30000, what: 'the memory service restarted' });
    // The tree renders only the rows in sight, and the "thing" group holds hundreds: it is closed.
    await waitEntity(/^Recall \d+ facts?/);
  });
}
