#!/usr/bin/env node
// Generates package.json `contributes.languageModelTools` from the one tool catalogue
// (src/tools/catalogue.ts), so Copilot's view of the tools and the MCP server's cannot diverge.
//   node scripts/sync-manifest.mjs           rewrite package.json if it differs
//   node scripts/sync-manifest.mjs --check   exit 1 (and say what differs) if it differs
// Only that one key is touched; every other key and the file's formatting stay as they are.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = path.join(ROOT, 'package.json');

/** The catalogue, loaded from source (bundled to a temporary CommonJS file). */
export async function loadCatalogue() {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-manifest-')), 'catalogue.cjs');
  try {
    await esbuild.build({
      entryPoints: [path.join(ROOT, 'src/tools/catalogue.ts')],
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      logLevel: 'error',
    });
    return createRequire(import.meta.url)(out);
  } finally {
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
  }
}

/** One `languageModelTools` entry per catalogue tool. */
export function toolContributions(catalogue) {
  return catalogue.TOOLS.map((t) => {
    const { $schema, ...inputSchema } = catalogue.inputJsonSchema(t);
    return {
      name: t.name,
      toolReferenceName: t.toolReferenceName,
      displayName: t.title,
      modelDescription: t.description,
      userDescription: t.userDescription,
      canBeReferencedInPrompt: true,
      icon: `$(${t.icon})`,
      tags: t.annotations.readOnlyHint ? ['recall', 'memory'] : ['recall', 'memory', 'write'],
      inputSchema,
    };
  });
}

async function main() {
  const check = process.argv.includes('--check');
  const text = fs.readFileSync(PKG, 'utf8');
  const pkg = JSON.parse(text);
  const want = toolContributions(await loadCatalogue());
  const have = pkg.contributes?.languageModelTools;
  if (JSON.stringify(have) === JSON.stringify(want)) {
    console.log(`package.json languageModelTools match the catalogue (${want.length} tools)`);
    return 0;
  }
  if (check) {
    const names = (list) => (list ?? []).map((t) => t.name);
    const missing = names(want).filter((n) => !names(have).includes(n));
    const extra = names(have).filter((n) => !names(want).includes(n));
    const changed = want.filter((w) => {
      const h = (have ?? []).find((x) => x.name === w.name);
      return h && JSON.stringify(h) !== JSON.stringify(w);
    }).map((w) => w.name);
    console.error('package.json contributes.languageModelTools disagrees with src/tools/catalogue.ts:');
    if (missing.length) console.error(`  missing: ${missing.join(', ')}`);
    if (extra.length) console.error(`  not in the catalogue: ${extra.join(', ')}`);
    if (changed.length) console.error(`  different: ${changed.join(', ')}`);
    if (!missing.length && !extra.length && !changed.length) console.error('  same tools, different order');
    console.error('Run: npm run sync-manifest');
    return 1;
  }
  // Re-read right before writing: someone may have edited another key meanwhile.
  const fresh = JSON.parse(fs.readFileSync(PKG, 'utf8'));
  fresh.contributes = { ...(fresh.contributes ?? {}), languageModelTools: want };
  const indent = /^( +|\t)"/m.exec(text)?.[1] ?? '  ';
  fs.writeFileSync(PKG, JSON.stringify(fresh, null, indent) + '\n');
  console.log(`package.json languageModelTools rewritten from the catalogue (${want.length} tools)`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then((code) => (process.exitCode = code), (err) => {
    console.error(err);
    process.exitCode = 1;
  });
}
