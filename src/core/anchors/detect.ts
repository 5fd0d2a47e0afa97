/**
 * Finding code references in text, purely: relative paths with an extension (`src/pay/settle.ts`),
 * with a line or range (`settle.ts:40-58`, `settle.ts#L40-L58`), and backticked symbols
 * (`settleCutoff()`). Which of them name real files is decided against a workspace (resolve.ts).
 */
import { LIMITS } from '../model/limits.js';

export interface CodeRef {
  /** As written, forward slashes, without a leading `./`. */
  path: string;
  startLine?: number;
  endLine?: number;
}

export interface CodeRefs {
  paths: CodeRef[];
  /** Backticked identifiers, the last segment of a dotted name (`Memory.query` → `query`). */
  symbols: string[];
}

// A path: optional ./ or ../ or /, segments of word characters, dots and dashes, a final name
// with a letter-led extension; then optionally :40, :40-58, :40:7, #L40, #L40-L58.
const PATH =
  /(?<![\w/.:@-])((?:\.{1,2}\/|\/)?(?:[\w@.-]+\/)*[\w.-]*\w\.[A-Za-z][A-Za-z0-9]{0,9})(?:(?::(\d+)(?:[-–](\d+))?)|(?:#L(\d+)(?:-L?(\d+))?))?(?![\w/])/g;
const SYMBOL = /`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\([^`)]*\))?`/g;
/** Names too common to anchor on: a backticked keyword says nothing about where code lives. */
const COMMON = new Set(['true', 'false', 'null', 'undefined', 'this', 'self', 'return', 'const', 'let', 'var', 'function', 'class']);
const MIN_SYMBOL = 3;
/**
 * Programming languages: a file of one is the repository's code, anchored at any length. Any other
 * file (notes, configuration, data) is anchored only on enough text that its hash cannot be
 * reversed by guessing (LIMITS.anchorMinChars): a short line there may be a password.
 */
const SOURCE_EXTENSIONS = new Set(
  'ts tsx js jsx mjs cjs py rb go rs java kt kts swift c h cc cpp hpp cs php scala sh bash zsh sql css scss html vue svelte lua dart ex exs erl hs ml clj r jl pl'.split(
    ' ',
  ),
);

/** A name without a folder counts as a file only with one of these extensions (`Memory.query` is a symbol, `settle.ts` a file). */
const BARE_EXTENSIONS = new Set([...SOURCE_EXTENSIONS, 'json', 'yaml', 'yml', 'toml', 'md']);

/** A path's extension, lower case, without the dot ('' for none). */
function extension(p: string): string {
  const name = p.slice(p.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

export const isSourcePath = (p: string): boolean => SOURCE_EXTENSIONS.has(extension(p));

export function findCodeRefs(text: string): CodeRefs {
  const paths: CodeRef[] = [];
  const seen = new Set<string>();
  for (const m of text.matchAll(PATH)) {
    const before = text.slice(Math.max(0, m.index - 3), m.index);
    if (before.endsWith('//') || /[a-z]:\/\/?$/i.test(before)) continue; // part of a URL
    const path = m[1]!.replace(/^\.\//, '');
    if (/^\d/.test(path.split('/').pop()!)) continue; // 1.2.3, 3.5x
    if (!path.includes('/') && !BARE_EXTENSIONS.has(extension(path))) continue;
    const start = Number(m[2] ?? m[4] ?? NaN);
    const end = Number(m[3] ?? m[5] ?? NaN);
    const ref: CodeRef = { path };
    if (start > 0) {
      ref.startLine = start;
      ref.endLine = end >= start ? end : start;
    }
    const key = `${ref.path}:${ref.startLine ?? ''}-${ref.endLine ?? ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    paths.push(ref);
    if (paths.length >= LIMITS.anchorsPerText) break;
  }
  const symbols = new Set<string>();
  for (const m of text.matchAll(SYMBOL)) {
    const parts = m[1]!.split('.');
    const name = parts.pop()!;
    const file = parts.length > 0 && BARE_EXTENSIONS.has(name.toLowerCase()); // `settle.ts` is a file, not a symbol
    if (name.length >= MIN_SYMBOL && !COMMON.has(name) && !file) symbols.add(name);
    if (symbols.size >= LIMITS.anchorsPerText) break;
  }
  return { paths, symbols: [...symbols] };
}

/** The line where `symbol` looks defined (0-based), or -1: a declaration keyword before it, or a method-like `name(` at a line's start. */
export function definitionLine(lines: string[], symbol: string): number {
  const name = symbol.replace(/[$]/g, '\\$');
  const declared = new RegExp(
    `\\b(?:function|def|class|interface|type|enum|struct|trait|impl|fn|func|const|let|var|module|namespace)\\s+\\*?${name}\\b`,
  );
  const method = new RegExp(`^\\s*(?:(?:export|public|private|protected|static|async|override|readonly|get|set)\\s+)*${name}\\s*[(<=:]`);
  const i = lines.findIndex((l) => declared.test(l));
  return i >= 0 ? i : lines.findIndex((l) => method.test(l));
}

/**
 * The lines of a definition starting at `at`: down to the first non-blank line indented no
 * deeper than it (a closing brace at that depth included), at most `max` lines.
 */
export function definitionBlock(lines: string[], at: number, max = LIMITS.anchorSymbolLines): string[] {
  const indent = (l: string): number => l.length - l.trimStart().length;
  const depth = indent(lines[at]!);
  const out = [lines[at]!];
  for (let i = at + 1; i < lines.length && out.length < max; i++) {
    const l = lines[i]!;
    if (l.trim() && indent(l) <= depth) {
      if (/^[\s]*[)\]}]/.test(l)) out.push(l);
      break;
    }
    out.push(l);
  }
  return out;
}
