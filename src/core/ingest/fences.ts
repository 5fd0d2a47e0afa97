/**
 * Code fences in transcripts, so a speaker marker inside code is quoted text and one outside is a
 * turn. Read as CommonMark reads them, line by line: a fence closes only on a bare run of its own
 * character at least as long, indented no deeper than its opening, inside the same quote. So a
 * diff's context line (`  ```bash`), a removed line (`- ````) or a fence inside a `> ` quote never
 * flips the state of the code around it, and a quote that ends ends the fences opened in it.
 */

const FENCE = /^( {0,3})(`{3,}|~{3,})(.*)$/;
/** Leading `>` quote markers (each with its optional space): the container a line sits in. */
const QUOTE = /^(?: {0,3}> ?)+/;

interface OpenFence {
  quote: number;
  indent: number;
  char: string;
  length: number;
}

export class Fences {
  private open: OpenFence | undefined;

  /** Whether a fence is open after the lines read so far. */
  get inside(): boolean {
    return this.open !== undefined;
  }

  /** Reads one line; true when it is fenced code (an opening, body or closing line). */
  step(line: string): boolean {
    const quoted = line.match(QUOTE)?.[0] ?? '';
    const quote = (quoted.match(/>/g) ?? []).length;
    const rest = line.slice(quoted.length);
    const fence = rest.match(FENCE);
    if (this.open) {
      if (quote === this.open.quote) {
        const o = this.open;
        if (fence && fence[2]![0] === o.char && fence[2]!.length >= o.length && !fence[3]!.trim() && fence[1]!.length <= o.indent)
          this.open = undefined;
        return true;
      }
      // Deeper in quotes than the fence: its body. Shallower: the quote it was opened in has ended, and the fence with it.
      if (quote > this.open.quote) return true;
      this.open = undefined;
    }
    if (!fence || (fence[2]![0] === '`' && fence[3]!.includes('`'))) return false;
    this.open = { quote, indent: fence[1]!.length, char: fence[2]![0]!, length: fence[2]!.length };
    return true;
  }

  /** Forgets an open fence: a format that knows a turn has ended says so. */
  reset(): void {
    this.open = undefined;
  }
}
