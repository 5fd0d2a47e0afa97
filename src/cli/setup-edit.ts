/**
 * Adding one named MCP server to a host's configuration file, and taking exactly it out again,
 * without touching anything else in the file. Each format is parsed by a library (jsonc-parser,
 * smol-toml, yaml); the edit itself is a small splice of the text (jsonc-parser's own `modify` for
 * JSON), so comments, order and spacing elsewhere stay byte for byte. Every edit is then checked
 * by parsing the result: it must equal the old content plus (or minus) the one entry, else nothing
 * is written.
 */
import { isDeepStrictEqual } from 'node:util';
// The ESM build: the package's main (UMD) loads its parts with a require() a bundler cannot follow.
import { applyEdits, modify, parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser/lib/esm/main.js';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { isMap, isScalar, isSeq, parseDocument, stringify as stringifyYaml, type Document } from 'yaml';

export type Entry = Record<string, unknown>;

/** A config file this module cannot edit safely; the message says what to do instead. */
export class SetupError extends Error {}

export interface ConfigFormat {
  /** The entry called `name`, or undefined. Throws SetupError when the file cannot be read as its format. */
  find(text: string, name: string): Entry | undefined;
  /** The new text with `entry` added under `name` (`text` undefined: a new file). */
  add(text: string | undefined, name: string, entry: Entry): string;
  /** The text without `name`, or null when the file held nothing else (it is then deleted). */
  remove(text: string, name: string): string | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks the edited text by reading it back: it must hold exactly `expected`, else nothing is written. */
function verified(read: () => unknown, expected: unknown): void {
  let actual: unknown;
  try {
    actual = read();
  } catch {
    actual = undefined;
  }
  // JSON's view of both: parsers differ in prototypes, not in content.
  if (!isDeepStrictEqual(JSON.parse(JSON.stringify(actual ?? null)), JSON.parse(JSON.stringify(expected)))) {
    throw new SetupError(
      "the edit would have changed more than Recall's entry (or broken the file), so nothing was written. Add the entry by hand; it is printed below.",
    );
  }
}

/**
 * `root` with `root[key][name]` set, or deleted when `entry` is undefined. An emptied container stays
 * in JSON (the edit takes out only the entry) and goes in TOML (a table header made it exist).
 */
function withEntry(root: Obj, key: string, name: string, entry: Entry | undefined, dropEmpty = false): Obj {
  const container = { ...(isObj(root[key]) ? root[key] : {}) };
  if (entry === undefined) delete container[name];
  else container[name] = entry;
  const out = { ...root, [key]: container };
  if (dropEmpty && Object.keys(container).length === 0) delete out[key];
  return out;
}

// ---- JSON and JSONC (Claude Code, Cursor, VS Code, Windsurf, Cline): an object of servers under `key`

function readJson(text: string): Obj {
  const errors: ParseError[] = [];
  const root: unknown = parseJsonc(text, errors, { allowTrailingComma: true });
  if (errors.length > 0) {
    const line = text.slice(0, errors[0]!.offset).split('\n').length;
    throw new SetupError(`it is not valid JSON (${printParseErrorCode(errors[0]!.error)} on line ${line}); fix it, then run setup again.`);
  }
  if (text.trim() === '') return {};
  if (!isObj(root)) throw new SetupError('it does not hold a JSON object; fix it, then run setup again.');
  return root;
}

/** The file's own indentation, so an added entry looks like its neighbours. */
function jsonFormatting(text: string): { insertSpaces: boolean; tabSize: number; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  if (/^\t+"/m.test(text)) return { insertSpaces: false, tabSize: 1, eol };
  const indents = [...text.matchAll(/^( +)"/gm)].map((m) => m[1]!.length);
  return { insertSpaces: true, tabSize: indents.length ? Math.min(...indents) : 2, eol };
}

export function jsonFormat(key: string): ConfigFormat {
  const fresh = (name: string, entry: Entry): string => JSON.stringify({ [key]: { [name]: entry } }, null, 2) + '\n';
  const container = (root: Obj): Obj | undefined => {
    const c = root[key];
    if (c !== undefined && !isObj(c)) throw new SetupError(`its "${key}" is not an object; fix it, then run setup again.`);
    return c;
  };
  return {
    find(text, name) {
      const found = container(readJson(text))?.[name];
      return found === undefined ? undefined : isObj(found) ? found : { value: found };
    },
    add(text, name, entry) {
      if (text === undefined || text.trim() === '') return fresh(name, entry);
      const before = readJson(text);
      container(before);
      const out = applyEdits(text, modify(text, [key, name], entry, { formattingOptions: jsonFormatting(text) }));
      verified(() => readJson(out), withEntry(before, key, name, entry));
      return out;
    },
    remove(text, name) {
      const before = readJson(text);
      const found = container(before)?.[name];
      if (isObj(found) && text === fresh(name, found)) return null;
      const out = applyEdits(text, modify(text, [key, name], undefined, { formattingOptions: jsonFormatting(text) }));
      verified(() => readJson(out), withEntry(before, key, name, undefined));
      return out;
    },
  };
}

// ---- TOML (Codex): a [mcp_servers.<name>] table

function readToml(text: string): Obj {
  try {
    return parseToml(text) as Obj;
  } catch (e) {
    throw new SetupError(`it is not valid TOML (${(e as Error).message.split('\n')[0]}); fix it, then run setup again.`);
  }
}

/** Table headers (`[a.b]`, `[[a]]`) and the dotted key each names, with quotes taken off. */
const HEADER = /^[ \t]*\[\[?[ \t]*([^\]#]+?)[ \t]*\]\]?[ \t]*(#.*)?$/;
const headerKey = (line: string): string | undefined =>
  HEADER.exec(line)?.[1]
    ?.split('.')
    .map((part) =>
      part
        .trim()
        .replace(/^"(.*)"$/, '$1')
        .replace(/^'(.*)'$/, '$1'),
    )
    .join('.');

export function tomlFormat(key: string): ConfigFormat {
  const block = (name: string, entry: Entry): string => stringifyToml({ [key]: { [name]: entry } }).trimEnd() + '\n';
  const tables = (root: Obj): Obj | undefined => {
    const t = root[key];
    if (t !== undefined && !isObj(t)) throw new SetupError(`its "${key}" is not a table; fix it, then run setup again.`);
    return t;
  };
  return {
    find(text, name) {
      const found = tables(readToml(text))?.[name];
      return found === undefined ? undefined : isObj(found) ? found : { value: found };
    },
    add(text, name, entry) {
      if (text === undefined || text.trim() === '') return block(name, entry);
      const before = readToml(text);
      tables(before);
      // One blank line before the table; a file without a final newline gets one.
      const sep = text.endsWith('\n') ? '\n' : '\n\n';
      const out = text + sep + block(name, entry);
      verified(() => readToml(out), withEntry(before, key, name, entry));
      return out;
    },
    remove(text, name) {
      const before = readToml(text);
      const found = tables(before)?.[name];
      if (found === undefined) return text;
      if (isObj(found) && text === block(name, found)) return null;
      const own = (k: string | undefined): boolean => k === `${key}.${name}` || (k?.startsWith(`${key}.${name}.`) ?? false);
      const lines = text.split('\n');
      const keep: string[] = [];
      for (let i = 0; i < lines.length;) {
        if (!own(headerKey(lines[i]!))) {
          keep.push(lines[i++]!);
          continue;
        }
        // The table runs to the next header; the comments and blank lines right before that header are not its.
        let end = i + 1;
        while (end < lines.length && headerKey(lines[end]!) === undefined) end++;
        let tail = end;
        while (tail > i + 1 && /^[ \t]*(#.*)?$/.test(lines[tail - 1]!)) tail--;
        const rest = lines.slice(tail, end);
        // The blank line setup puts before a table it appends goes with the table.
        if (end === lines.length && rest.every((l) => l.trim() === '') && keep.at(-1) === '') keep.pop();
        keep.push(...rest);
        i = end;
      }
      const out = keep.join('\n');
      verified(() => readToml(out), withEntry(before, key, name, undefined, true));
      return out;
    },
  };
}

// ---- YAML (Continue): a list of servers under `mcpServers`, each with its `name`

function readYaml(text: string): { doc: Document; root: Obj } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0)
    throw new SetupError(`it is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it, then run setup again.`);
  const root: unknown = doc.toJS() ?? {};
  if (!isObj(root)) throw new SetupError('it does not hold a YAML mapping; fix it, then run setup again.');
  return { doc, root };
}

const lineStart = (text: string, at: number): number => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number): number => {
  const nl = text.indexOf('\n', at);
  return nl < 0 ? text.length : nl + 1;
};

/** `header`: what a new file starts with (Continue wants a name, version and schema). */
export function yamlFormat(key: string, header: string): ConfigFormat {
  const item = (entry: Entry, indent: string): string =>
    stringifyYaml([entry], { lineWidth: 0 })
      .trimEnd()
      .split('\n')
      .map((l) => indent + l)
      .join('\n') + '\n';
  const fresh = (entry: Entry): string => `${header}${key}:\n${item(entry, '  ')}`;
  const list = (root: Obj): Entry[] => {
    const l = root[key];
    if (l === undefined || l === null) return [];
    if (!Array.isArray(l)) throw new SetupError(`its "${key}" is not a list; fix it, then run setup again.`);
    return l as Entry[];
  };
  const expected = (root: Obj, items: Entry[]): Obj => {
    const out = { ...root, [key]: items };
    if (items.length === 0) delete out[key];
    return out;
  };
  return {
    find(text, name) {
      return list(readYaml(text).root).find((s) => isObj(s) && s.name === name);
    },
    add(text, _name, entry) {
      if (text === undefined || text.trim() === '') return fresh(entry);
      const { doc, root } = readYaml(text);
      const before = list(root);
      const node = isMap(doc.contents) ? doc.contents.get(key, true) : undefined;
      let out: string;
      if (isSeq(node) && !node.flow && node.items.length > 0 && node.range) {
        // After the last item, indented like the first.
        const first = node.items[0] as { range?: [number, number, number] };
        const dash = text.lastIndexOf('-', first.range![0]);
        const indent = text.slice(lineStart(text, dash), dash);
        const at = lineEnd(text, (node.items.at(-1) as { range: [number, number, number] }).range[1] - 1);
        const head = text.slice(0, at);
        out = (head.endsWith('\n') ? head : head + '\n') + item(entry, indent) + text.slice(at);
      } else if (node === undefined || (isScalar(node) && node.value === null && !text.slice(node.range?.[0]).trim())) {
        const body = text.endsWith('\n') ? text : text + '\n';
        out = node === undefined ? `${body}${key}:\n${item(entry, '  ')}` : body + item(entry, '  ');
      } else {
        throw new SetupError(
          `its "${key}" is written in a form setup does not edit (an inline list, or an empty key followed by others); add the entry by hand.`,
        );
      }
      verified(() => readYaml(out).root, expected(root, [...before, entry]));
      return out;
    },
    remove(text, name) {
      const { doc, root } = readYaml(text);
      const before = list(root);
      const index = before.findIndex((s) => isObj(s) && s.name === name);
      if (index < 0) return text;
      if (before.length === 1 && text === fresh(before[0]!)) return null;
      const node = isMap(doc.contents) ? doc.contents.get(key, true) : undefined;
      if (!isSeq(node) || node.flow) throw new SetupError(`its "${key}" is an inline list; take the entry out by hand.`);
      const range = (node.items[index] as { range: [number, number, number] }).range;
      let from = lineStart(text, text.lastIndexOf('-', range[0]));
      let to = lineEnd(text, range[1] - 1);
      if (before.length === 1) {
        // The list held only this entry: its key goes too.
        const pair =
          doc.contents && isMap(doc.contents) ? doc.contents.items.find((p) => isScalar(p.key) && p.key.value === key) : undefined;
        const keyRange = (pair?.key as { range?: [number, number, number] } | undefined)?.range;
        if (keyRange) from = lineStart(text, keyRange[0]);
        to = Math.max(to, from);
      }
      const out = text.slice(0, from) + text.slice(to);
      verified(
        () => readYaml(out).root,
        expected(
          root,
          before.filter((_s, i) => i !== index),
        ),
      );
      return out;
    },
  };
}
