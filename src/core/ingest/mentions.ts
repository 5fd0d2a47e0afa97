/**
 * The mentions of one turn: each recognised entity is registered once and replaced in the text by a
 * placeholder ⟦n⟧, so later steps and the relationship patterns read "⟦0⟧ owns ⟦1⟧". Also the
 * tests that decide what a word or a code span is (a path, a package, an identifier, "Go" the language).
 */
import type { EntityType } from './extract-types.js';
import {
  CODE_KEYWORDS,
  FILE_EXT,
  FUNCTION_WORDS,
  KNOWN_DIRS,
  PACKAGES_CODE_ONLY,
  PACKAGES_PLAIN,
  SPECIAL_FILES,
  techOf,
} from './vocabulary.js';

export interface Mention {
  name: string;
  type: EntityType;
}

export class Mentions {
  readonly list: Mention[] = [];
  private readonly byKey = new Map<string, number>();

  /**
   * Registers a mention and returns its placeholder; a string that names nothing (a function
   * word, a number, a hash) is not registered, and `asWritten` (default: the name) stays in the text.
   */
  add(name: string, type: EntityType, asWritten = name): string {
    if (!isName(name, type)) return asWritten;
    const key = name.toLowerCase();
    let i = this.byKey.get(key);
    if (i === undefined) {
      i = this.list.length;
      this.list.push({ name, type });
      this.byKey.set(key, i);
    }
    return `\u27e6${i}\u27e7`;
  }

  get(i: number): Mention | undefined {
    return this.list[i];
  }
}

/**
 * Whether a string can be an entity's name: not a word every sentence has ("the", "you", "if"),
 * not a number or a commit hash, not a keyword of the language when it is code, not a word that
 * still carries the sentence's full stop.
 */
export function isName(name: string, type: EntityType): boolean {
  const s = name.trim();
  if (!/\p{L}/u.test(s) || /[.,;:!?]$/.test(s)) return false;
  const lower = s.toLowerCase();
  // A constant in code (`DONE`, `ANY`) is a name even when its word is not.
  if (FUNCTION_WORDS.has(lower) && !(type === 'identifier' && /^[A-Z][A-Z_]+$/.test(s))) return false;
  if (type === 'identifier' && CODE_KEYWORDS.has(lower)) return false;
  // A commit or object hash: hex digits with both letters and digits, as git abbreviates them.
  if (/^[0-9a-f]{7,64}$/.test(s) && /\d/.test(s) && /[a-f]/.test(s)) return false;
  return true;
}

/** A placeholder, capturing its mention's index; PHN matches one without capturing. */
export const PH = '\u27e6(\\d+)\u27e7';
export const PHN = '\u27e6\\d+\u27e7';
export const PH_RE = new RegExp(PH, 'g');

export function cleanPath(p: string): string {
  return p
    .replace(/:\d+(?::\d+)?$/, '')
    .replace(/[.,;:!?)]+$/, '')
    .replace(/\/+$/, '');
}

const HAS_EXT = new RegExp(`\\.(?:${FILE_EXT})$`, 'i');
// A list's dash before a file name ("-dataset.py") is not part of it.
const FILE_NAME = new RegExp(`^(?:[\\w.][\\w.-]*)?[A-Za-z][\\w.-]*\\.(?:${FILE_EXT})$`);

export function isPathLike(p: string): boolean {
  const path = cleanPath(p);
  if (!path || /^\d+(?:\/\d+)+$/.test(path)) return false;
  if (/^(?:~\/|\.\.?\/|\/)/.test(path)) return path.length > 2 && /[A-Za-z]/.test(path);
  const segments = path.split('/');
  const last = segments[segments.length - 1]!;
  if (segments.length >= 2) {
    if (segments.some((s) => s === '')) return false;
    if (HAS_EXT.test(last) || SPECIAL_FILES.test(last)) return true;
    // Words joined by slashes ("pending/running/failed", "Android/iOS/Switch") are alternatives,
    // not folders: a path without a file at its end goes through a known folder or has names
    // written as files and folders are (a dash, an underscore, a dot or a digit).
    if (segments.length >= 3)
      return (
        segments.every((s) => /^[\w@.-]+$/.test(s)) &&
        segments.some((s) => /[a-z]/.test(s)) &&
        segments.some((s) => KNOWN_DIRS.has(s.toLowerCase()) || /[-_.\d]/.test(s))
      );
    return KNOWN_DIRS.has(segments[0]!.toLowerCase());
  }
  return FILE_NAME.test(path) || SPECIAL_FILES.test(path);
}

export function classifyCode(span: string): Mention | undefined {
  let s = span.trim();
  if (!s || s.length > 80) return undefined;
  if (/^@[\w.-]+\/[\w.-]+$/.test(s)) return { name: s, type: 'package' };
  if (/[/]/.test(s) && !/\s/.test(s) && isPathLike(s)) return { name: cleanPath(s), type: 'file' };
  if (!/\s/.test(s) && isPathLike(s) && !techOf(s)) return { name: cleanPath(s), type: 'file' };
  const tech = techOf(s);
  if (tech) return { name: tech.name, type: 'technology' };
  if (PACKAGES_PLAIN.has(s) || PACKAGES_CODE_ONLY.has(s)) return { name: s, type: 'package' };
  if (/^[a-z0-9]+(?:-[a-z0-9]+)+$/.test(s)) return { name: s, type: 'package' };
  s = s.replace(/\(\)$/, '');
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(s) && s.length >= 2) {
    // A lone lower-case English-looking word in backticks is still code (`expect`, `fetch`).
    return { name: s, type: 'identifier' };
  }
  return undefined;
}

export function boundaryOk(text: string, start: number, end: number): boolean {
  const before = text[start - 1] ?? ' ';
  const after = text[end] ?? ' ';
  if (/[\w@/\\\-\u27e6\u27e7]/.test(before) || (before === '.' && /\w/.test(text[start - 2] ?? ''))) return false;
  if (/[\w/\\\-\u27e6\u27e7]/.test(after)) return false;
  if (after === '.' && /\w/.test(text[end + 1] ?? '')) return false;
  return true;
}

/** "Go" the language, not the verb: capitalised mid-sentence, not in "let's Go with". */
export function goIsLanguage(text: string, start: number): boolean {
  const before = text.slice(Math.max(0, start - 12), start);
  if (/(?:^|[.!?:\n]\s*)$/.test(before) || start === 0) return false;
  if (/\b(?:let's|lets|to|will|'ll|can|should|must|and)\s+$/i.test(before)) return false;
  const after = text.slice(start + 2, start + 14);
  return !/^\s+(?:with|ahead|back|for|through|over|on|away|live|to|into|out|up|down|the)\b/i.test(after);
}

/** What a path match had after the path itself (a line number, a slash) that is not part of its name. */
export function trailing(m: string): string {
  const clean = cleanPath(m);
  const idx = m.indexOf(clean) + clean.length;
  const rest = m.slice(idx);
  return rest.replace(/^\/+/, '').replace(/^:\d+(?::\d+)?/, '');
}
