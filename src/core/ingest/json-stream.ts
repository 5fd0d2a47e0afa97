/**
 * Reading a stream of concatenated JSON values: JSONL, or the same objects pretty-printed over many
 * lines. Each value is cut at the brace or bracket that closes it, so a torn or garbled value is
 * counted and the rest still read.
 */
export interface JsonValue {
  value: unknown;
  /** 1-based line where the value starts. */
  line: number;
}

/** A file read as a stream of JSON values: what parsed, and how many pieces did not. */
export interface JsonStream {
  values: JsonValue[];
  bad: number;
}

export function jsonValues(content: string): JsonStream {
  return isJsonLines(content) ? jsonLines(content) : scanValues(content);
}

/** JSONL when the first non-blank line is a whole value by itself; a pretty-printed file's is not. */
function isJsonLines(content: string): boolean {
  const first = content.match(/^\s*(.+)$/m)?.[1];
  if (!first) return false;
  try {
    JSON.parse(first);
    return true;
  } catch {
    return false;
  }
}

/** One value a line (the fast path: most files are JSONL); a line that does not parse is counted. */
function jsonLines(content: string): { values: JsonValue[]; bad: number } {
  const values: JsonValue[] = [];
  let bad = 0;
  content.split(/\r?\n/).forEach((text, index) => {
    if (!text.trim()) return;
    try {
      values.push({ value: JSON.parse(text), line: index + 1 });
    } catch {
      bad++;
    }
  });
  return { values, bad };
}

function scanValues(content: string): { values: JsonValue[]; bad: number } {
  const values: JsonValue[] = [];
  let bad = 0;
  let i = 0;
  let line = 1;
  const n = content.length;
  while (i < n) {
    const c = content[i]!;
    if (c === '\n') line++;
    if (c !== '{' && c !== '[') {
      if (!/\s/.test(c) && c !== '\uFEFF') {
        // Stray text between values: skip the rest of its line and count it once.
        const end = content.indexOf('\n', i);
        bad++;
        i = end < 0 ? n : end;
        continue;
      }
      i++;
      continue;
    }
    const start = i;
    const startLine = line;
    let depth = 0;
    let inString = false;
    for (; i < n; i++) {
      const ch = content[i]!;
      if (ch === '\n') line++;
      if (inString) {
        if (ch === '\\') i++;
        else if (ch === '"') inString = false;
      } else if (ch === '"') inString = true;
      else if (ch === '{' || ch === '[') depth++;
      else if (ch === '}' || ch === ']') {
        depth--;
        if (depth === 0) break;
      }
    }
    const text = content.slice(start, i + 1);
    i++;
    try {
      values.push({ value: JSON.parse(text), line: startLine });
    } catch {
      bad++;
    }
  }
  return { values, bad };
}
