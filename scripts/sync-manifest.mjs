#!/usr/bin/env node
// Generates two parts of package.json from their one source, so they cannot drift:
//   contributes.languageModelTools from the tool catalogue (src/tools/catalogue.ts): Copilot's
//     view of the tools and the MCP server's are the same;
//   each `recall.*` setting's `default` in contributes.configuration from src/core/model/defaults.ts.
//   node scripts/sync-manifest.mjs           rewrite package.json if it differs
//   node scripts/sync-manifest.mjs --check   exit 1 (and say what differs) if it differs
// Only those keys are touched; every other key and the file's formatting stay as they are.
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PKG = path.join(ROOT, 'package.json');

/** A TypeScript module of src, loaded from source (bundled to a temporary CommonJS file). */
async function loadSource(file) {
  const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'recall-manifest-')), 'module.cjs');
  try {
    await esbuild.build({
      entryPoints: [path.join(ROOT, file)],
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
  return catalogue.TOOL_LIST.map((t) => {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars -- $schema is left out of the manifest
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
      // Hidden while chat uses the MCP server's copies instead (recall.chat.toolSurface): each tool once.
      when: "config.recall.chat.toolSurface != 'mcp'",
    };
  });
}

/**
 * contributes.configuration with each `recall.<key>` default taken from `defaults` (keyed without
 * the prefix). Throws when a declared setting has no default there, or a default no setting.
 */
export function configurationWithDefaults(configuration, defaults) {
  const properties = configuration?.properties ?? {};
  const declared = Object.keys(properties).map((k) => k.replace(/^recall\./, ''));
  const undeclared = Object.keys(defaults).filter((k) => !declared.includes(k));
  const missing = declared.filter((k) => !Object.hasOwn(defaults, k));
  if (missing.length || undeclared.length) {
    throw new Error(
      `settings and src/core/model/defaults.ts disagree:${missing.length ? ` no default for ${missing.join(', ')};` : ''}` +
        `${undeclared.length ? ` not declared in package.json: ${undeclared.join(', ')}` : ''}`,
    );
  }
  const withDefaults = Object.fromEntries(
    Object.entries(properties).map(([k, p]) => [k, { ...p, default: defaults[k.replace(/^recall\./, '')] }]),
  );
  return { ...configuration, properties: withDefaults };
}

/** What package.json should say, and the names of the parts that differ from what it says. */
async function expected(pkg) {
  const [catalogue, { SETTING_DEFAULTS }] = await Promise.all([
    loadSource('src/tools/catalogue.ts'),
    loadSource('src/core/model/defaults.ts'),
  ]);
  const tools = toolContributions(catalogue);
  const configuration = configurationWithDefaults(pkg.contributes?.configuration, SETTING_DEFAULTS);
  const drift = [];
  const have = pkg.contributes?.languageModelTools;
  if (JSON.stringify(have) !== JSON.stringify(tools)) drift.push(...toolDrift(have, tools));
  for (const [key, p] of Object.entries(configuration.properties)) {
    if (JSON.stringify(pkg.contributes.configuration.properties[key].default) !== JSON.stringify(p.default)) {
      drift.push(
        `setting ${key}: default ${JSON.stringify(pkg.contributes.configuration.properties[key].default)}, src/core/model/defaults.ts says ${JSON.stringify(p.default)}`,
      );
    }
  }
  return { tools, defaults: SETTING_DEFAULTS, drift };
}

function toolDrift(have, want) {
  const names = (list) => (list ?? []).map((t) => t.name);
  const missing = names(want).filter((n) => !names(have).includes(n));
  const extra = names(have).filter((n) => !names(want).includes(n));
  const changed = want
    .filter((w) => {
      const h = (have ?? []).find((x) => x.name === w.name);
      return h && JSON.stringify(h) !== JSON.stringify(w);
    })
    .map((w) => w.name);
  const out = [];
  if (missing.length) out.push(`languageModelTools missing: ${missing.join(', ')}`);
  if (extra.length) out.push(`languageModelTools not in the catalogue: ${extra.join(', ')}`);
  if (changed.length) out.push(`languageModelTools different: ${changed.join(', ')}`);
  if (!out.length) out.push('languageModelTools: same tools, different order');
  return out;
}

async function main() {
  const check = process.argv.includes('--check');
  const text = fs.readFileSync(PKG, 'utf8');
  const { tools, defaults, drift } = await expected(JSON.parse(text));
  if (drift.length === 0) {
    console.log(`package.json matches the catalogue (${tools.length} tools) and the setting defaults`);
    return 0;
  }
  if (check) {
    console.error('package.json disagrees with its sources:');
    for (const d of drift) console.error(`  ${d}`);
    console.error('Run: npm run sync-manifest');
    return 1;
  }
  // Re-read right before writing: someone may have edited another key meanwhile.
  const fresh = JSON.parse(fs.readFileSync(PKG, 'utf8'));
  const configuration = configurationWithDefaults(fresh.contributes?.configuration, defaults);
  fresh.contributes = { ...(fresh.contributes ?? {}), languageModelTools: tools, configuration };
  const indent = /^( +|\t)"/m.exec(text)?.[1] ?? '  ';
  fs.writeFileSync(PKG, JSON.stringify(fresh, null, indent) + '\n');
  console.log(`package.json rewritten: ${drift.join('; ')}`);
  return 0;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => (process.exitCode = code),
    (err) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
