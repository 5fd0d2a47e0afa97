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

export function jsonValues(content: string): { values: JsonValue[]; bad: number } {
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
