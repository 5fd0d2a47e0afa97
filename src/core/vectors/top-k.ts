/**
 * Keeping the best candidates while scoring many: TopK for the k results of a search, MaxHeap for
 * the candidate and result lists of the HNSW beam search.
 */

/** Top-k by score: parallel arrays kept sorted descending (k is small). */
export class TopK {
  readonly scores: Float64Array;
  readonly items: Int32Array;
  size = 0;
  constructor(readonly k: number) {
    this.scores = new Float64Array(k);
    this.items = new Int32Array(k);
  }
  /** The score a candidate must beat to enter. */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[this.k - 1];
  }
  push(score: number, item: number): void {
    let i = this.size < this.k ? this.size++ : this.k - 1;
    while (i > 0 && (this.scores[i - 1] < score || (this.scores[i - 1] === score && this.items[i - 1] > item))) {
      this.scores[i] = this.scores[i - 1];
      this.items[i] = this.items[i - 1];
      i--;
    }
    this.scores[i] = score;
    this.items[i] = item;
  }
}

/** A binary max-heap of (score, node) on typed arrays. Pass negated scores for a min-heap. */
export class MaxHeap {
  keys: Float64Array;
  vals: Int32Array;
  size = 0;
  constructor(capacity = 256) {
    this.keys = new Float64Array(capacity);
    this.vals = new Int32Array(capacity);
  }
  clear(): void {
    this.size = 0;
  }
  push(key: number, val: number): void {
    if (this.size === this.keys.length) {
      const k = new Float64Array(this.size * 2);
      k.set(this.keys);
      this.keys = k;
      const v = new Int32Array(this.size * 2);
      v.set(this.vals);
      this.vals = v;
    }
    let i = this.size++;
    const keys = this.keys;
    const vals = this.vals;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (keys[p] >= key) break;
      keys[i] = keys[p];
      vals[i] = vals[p];
      i = p;
    }
    keys[i] = key;
    vals[i] = val;
  }
  get topKey(): number {
    return this.keys[0];
  }
  get topVal(): number {
    return this.vals[0];
  }
  pop(): void {
    const n = --this.size;
    if (n === 0) return;
    const keys = this.keys;
    const vals = this.vals;
    const key = keys[n];
    const val = vals[n];
    let i = 0;
    for (;;) {
      let c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && keys[c + 1] > keys[c]) c++;
      if (keys[c] <= key) break;
      keys[i] = keys[c];
      vals[i] = vals[c];
      i = c;
    }
    keys[i] = key;
    vals[i] = val;
  }
}
