/**
 * The extension's own code, bundled the way esbuild.mjs bundles it for VS Code but with `vscode`
 * aliased to test/vscode-stub.ts, and what VS Code would make of a MarkdownString it produces.
 * The markdown is parsed with markdown-it (a devDependency), with raw HTML
 * and GFM autolinks on, as VS Code's renderer (marked) sees them; VS Code then drops the raw HTML
 * (supportHtml is off) and turns `$(name)` in the rendered text into icons (supportThemeIcons).
 */
import * as esbuild from 'esbuild';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { MemoryClient } from '../src/service/rpc/client';
import { MemorySource } from '../src/extension/views/common/source';
import type * as Stub from './vscode-stub';
import { onCleanup, tmpFolder } from './helpers';

const ROOT = path.resolve(__dirname, '..');
const requireHere = createRequire(__filename);

/** The modules a test may drive (paths under src/extension), each exported under its file's name, and the stub's `host`. */
const MODULES = [
  'extension',
  'ctx',
  'config',
  'sync',
  'status-bar',
  'views/episodes',
  'chat/lm-tools',
  'chat/chat-participant',
  'views/present',
  'ingest/memory-files',
  'views/entities',
  'views/check-editor',
  'views/same-as',
  'views/said-twice',
  'chat/hooks',
];

export interface Bundle {
  vscode: typeof Stub;
  host: typeof Stub.host;
  [module: string]: any;
}

let loaded: Promise<Bundle> | undefined;

/** Bundles once per test process. */
export function loadExtension(): Promise<Bundle> {
  loaded ??= (async () => {
    const out = path.join(tmpFolder('ext-bundle'), 'bundle.cjs');
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
    const entry = [
      "export * as vscode from 'vscode';",
      "export { host } from 'vscode';",
      ...MODULES.map((m) => `export * as ${camel(m)} from './src/extension/${m}.ts';`),
    ].join('\n');
    await esbuild.build({
      stdin: { contents: entry, resolveDir: ROOT, loader: 'ts', sourcefile: 'extension-test-entry.ts' },
      absWorkingDir: ROOT,
      alias: { vscode: './test/vscode-stub.ts' },
      outfile: out,
      bundle: true,
      platform: 'node',
      format: 'cjs',
      target: 'node20',
      external: ['pg-native'],
      define: { RECALL_VERSION: JSON.stringify(pkg.version) },
      logLevel: 'error',
    });
    const bundle = requireHere(out) as Bundle;
    fs.rmSync(path.dirname(out), { recursive: true, force: true });
    // The editor answers package.json's default for a setting nobody set.
    for (const [key, p] of Object.entries(pkg.contributes.configuration.properties as Record<string, { default: unknown }>))
      bundle.host.settings.defaultValue[key] = p.default;
    return bundle;
  })();
  return loaded;
}

/** The editor's connection to the memory in `folder` (the person's), in `project`, closed after the test. */
export async function editorConnection(folder: string, project: string): Promise<MemoryClient> {
  const client = await MemoryClient.connect({
    memory: folder,
    surface: 'extension',
    project,
    serviceScript: path.join(ROOT, 'dist', 'service.js'),
  });
  onCleanup(() => client.close());
  return client;
}

/** What the extension's commands read of its context, over that connection: the person's calls, the views' reads, a quiet log. */
export const editorContext = (client: MemoryClient) => ({
  human: client,
  source: new MemorySource(client),
  log: { info() {}, warn() {}, error() {} },
  push: () => {},
  memoryChanged: () => {},
});

const camel = (s: string): string => path.basename(s).replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

// ---- what VS Code renders

const MarkdownIt = requireHere('markdown-it');
const parser = new MarkdownIt({ html: true, linkify: true });

export interface Rendered {
  /** Link targets (markdown links, autolinks). */
  links: string[];
  /** Image sources: each one a fetch when the hover shows. */
  images: string[];
  /** Raw HTML, which VS Code drops: whatever it holds is not shown. */
  html: string[];
  /** `$(name)` left in the rendered text where the string supports theme icons: each one an icon. */
  icons: string[];
  /** The text a person reads (raw HTML dropped). */
  text: string;
}

const ICON = /(\\)?\$\(([A-Za-z0-9-]+(?:~[A-Za-z]+)?)\)/g;

export function rendered(md: { value: string; supportThemeIcons?: boolean } | string): Rendered {
  const value = typeof md === 'string' ? md : md.value;
  const icons = typeof md !== 'string' && md.supportThemeIcons === true;
  // VS Code's markdownEscapeEscapedIcons, so an escaped icon survives markdown's own unescaping.
  const source = icons ? value.replace(/\\\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g, (m) => `\\${m}`) : value;
  const out: Rendered = { links: [], images: [], html: [], icons: [], text: '' };
  const texts: string[] = [];
  const walk = (tokens: any[]): void => {
    for (const t of tokens) {
      if (t.type === 'link_open') out.links.push(t.attrGet('href'));
      else if (t.type === 'image') out.images.push(t.attrGet('src'));
      else if (t.type === 'html_inline' || t.type === 'html_block') out.html.push(t.content);
      else if (t.type === 'text' || t.type === 'code_inline' || t.type === 'code_block' || t.type === 'fence') texts.push(t.content);
      else if (t.type === 'softbreak' || t.type === 'hardbreak' || t.type === 'paragraph_close') texts.push('\n');
      if (t.children) walk(t.children);
    }
  };
  walk(parser.parse(source, {}));
  out.text = texts.join('');
  if (icons) for (const m of out.text.matchAll(ICON)) if (!m[1]) out.icons.push(m[0]);
  return out;
}
