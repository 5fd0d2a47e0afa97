/**
 * Turn bodies that are a model API's content blocks written out as data: exporters of Claude
 * sessions print a message's content as JSON (`[{"type": "tool_result", …}]`) or as Python's repr
 * (`[{'type': 'thinking', …}]`). Only `text` blocks are words; tool calls and results, thinking and
 * images are not, so a body made only of them is no turn at all.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export interface Blocks {
  /** The text blocks' words, joined. */
  text: string;
  /** The block types, in order (`text`, `tool_use`, `tool_result`, `thinking`…). */
  types: string[];
}

/** The blocks of a body that is a list of content blocks (or a `{role, content}` message holding one); else undefined. */
export function contentBlocks(body: string): Blocks | undefined {
  const trimmed = body.trim();
  if (!/^[[{]/.test(trimmed) || !/[\]}]$/.test(trimmed)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    value = pythonLiteral(trimmed);
  }
  if (isObj(value) && 'content' in value && 'role' in value) value = value.content;
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const types: string[] = [];
  const texts: string[] = [];
  for (const block of value) {
    if (!isObj(block)) return undefined;
    const type = typeof block.type === 'string' ? block.type : 'tool_use_id' in block ? 'tool_result' : undefined;
    if (!type) return undefined;
    types.push(type);
    if (type === 'text' && typeof block.text === 'string' && block.text.trim()) texts.push(block.text.trim());
  }
  return { text: texts.join('\n\n'), types };
}

/**
 * A Python literal (dicts, lists, strings, numbers, True/False/None), as repr() writes them; undefined
 * when the text is not one. Enough for content blocks; not a Python parser.
 */
export function pythonLiteral(text: string): unknown {
  let i = 0;
  const fail = Symbol('fail');
  const space = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      const out: unknown = c === '{' ? {} : [];
      i++;
      space();
      while (text[i] !== close) {
        if (c === '{') {
          const k = value();
          space();
          if (typeof k !== 'string' || text[i++] !== ':') throw fail;
          (out as Obj)[k] = value();
        } else (out as unknown[]).push(value());
        space();
        if (text[i] === ',') i++;
        else if (text[i] !== close) throw fail;
        space();
      }
      i++;
      return out;
    }
    if (c === "'" || c === '"') return string(c);
    const word = text.slice(i).match(/^(True|False|None|-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)/)?.[1];
    if (!word) throw fail;
    i += word.length;
    return word === 'True' ? true : word === 'False' ? false : word === 'None' ? null : Number(word);
  };
  const ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', '0': '\0' };
  const string = (quote: string): string => {
    let out = '';
    for (i++; i < text.length && text[i] !== quote; i++) {
      if (text[i] !== '\\') {
        out += text[i];
        continue;
      }
      const e = text[++i]!;
      const hex = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0;
      if (hex) {
        out += String.fromCodePoint(parseInt(text.slice(i + 1, i + 1 + hex), 16));
        i += hex;
      } else out += ESCAPES[e] ?? `\\${e}`;
    }
    if (text[i++] !== quote) throw fail;
    return out;
  };
  try {
    const v = value();
    space();
    return i === text.length ? v : undefined;
  } catch {
    return undefined;
  }
}
