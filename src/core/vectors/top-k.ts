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
