/**
 * The layered graph of an HNSW index (Malkov & Yashunin, with the neighbour-selection heuristic)
 * and its two walks: inserting a node, and searching for the arena's query. Nodes are the slot
 * numbers of a VectorStore and similarities come from its arena (a query, float32, against codes;
 * while building, codes against codes), so the graph holds no copy of the vectors.
 *
 * Node s is in the graph when levels[s] >= 0. Its level-0 links are at links0[s * stride0] (a
 * count, then up to M0 links) and those of level l > 0 at upper[s][(l - 1) * strideU] (a count,
 * then up to M). hnsw-file.ts saves and loads these fields as they are.
 */
import type { VectorStore } from './store.js';
import { MaxHeap } from './top-k.js';

export interface HnswParams {
  /** Links per node on upper levels (level 0 gets 2M). */
  M: number;
  /** Candidate list size while building. */
  efConstruction: number;
  /** PRNG seed for node levels. */
  seed: number;
}

const MAX_LEVEL = 15;
/** Stands for the query (set in the arena before `searchQuery`) where a slot number is otherwise expected. */
const QUERY = -1;

export class HnswGraph {
  readonly M: number;
  readonly M0: number;
  readonly efConstruction: number;
  readonly seed: number;
  readonly stride0: number;
  readonly strideU: number;
  /** The store instance the node numbers refer to. */
  readonly instance: string;

  // The graph as saved.
  levels: Int8Array;
  links0: Int32Array;
  upper: (Int32Array | undefined)[] = [];
  entry = -1;
  maxLevel = -1;
  nodes = 0;
  /** State of the level PRNG (mulberry32). */
  rng: number;

  private visited: Uint32Array;
  private visitTag = 0;
  private readonly candidates = new MaxHeap();
  private readonly results = new MaxHeap();
  private readonly mL: number;
  private readonly scratchNodes: Int32Array;
  private readonly scratchSims: Float64Array;
  private readonly scratchChosen: Int32Array;
  private readonly pruneNodes: Int32Array;
  private readonly pruneSims: Float64Array;
  private readonly pruneOut: Int32Array;

  constructor(
    private readonly store: VectorStore,
    params: HnswParams,
  ) {
    this.M = params.M;
    this.M0 = 2 * this.M;
    this.efConstruction = params.efConstruction;
    this.seed = params.seed;
    if (!(this.M >= 2 && this.M <= 128) || !(this.efConstruction >= 1)) throw new RangeError('bad HNSW options');
    this.rng = this.seed >>> 0;
    this.mL = 1 / Math.log(this.M);
    this.stride0 = this.M0 + 1;
    this.strideU = this.M + 1;
    this.instance = store.instance;
    this.scratchNodes = new Int32Array(Math.max(this.efConstruction, this.M0) + 1);
    this.scratchSims = new Float64Array(this.scratchNodes.length);
    this.scratchChosen = new Int32Array(this.M0 + 1);
    this.pruneNodes = new Int32Array(this.M0 + 2);
    this.pruneSims = new Float64Array(this.M0 + 2);
    this.pruneOut = new Int32Array(this.M0 + 2);
    const cap = Math.max(1024, store.slots);
    this.levels = new Int8Array(cap).fill(-1);
    this.links0 = new Int32Array(cap * this.stride0);
    this.visited = new Uint32Array(cap);
  }

  /** Whether `slot` is a node of the graph. */
  has(slot: number): boolean {
    return slot < this.levels.length && this.levels[slot] >= 0;
  }

  /** Adds `slot` to the graph (it must not be in it yet). */
  insert(slot: number): void {
    this.ensureCapacity(slot + 1);
    const level = Math.min(MAX_LEVEL, Math.floor(-Math.log(Math.max(this.random(), 1e-300)) * this.mL));
    this.levels[slot] = level;
    this.links0[slot * this.stride0] = 0;
    if (level > 0) this.upper[slot] = new Int32Array(level * this.strideU);
    this.nodes++;
    if (this.entry < 0) {
      this.entry = slot;
      this.maxLevel = level;
      return;
    }
    let ep = this.entry;
    let epSim = this.simQ(slot, ep);
    for (let lc = this.maxLevel; lc > level; lc--) [ep, epSim] = this.greedy(slot, ep, epSim, lc);

    const nodes = this.scratchNodes;
    const sims = this.scratchSims;
    const chosen = this.scratchChosen;
    for (let lc = Math.min(level, this.maxLevel); lc >= 0; lc--) {
      this.searchLayer(slot, ep, epSim, this.efConstruction, lc);
      // Results heap holds negated similarity: pop worst first, fill from the back.
      const res = this.results;
      const count = res.size;
      for (let i = count - 1; i >= 0; i--) {
        nodes[i] = res.topVal;
        sims[i] = -res.topKey;
        res.pop();
      }
      ep = nodes[0];
      epSim = sims[0];
      const mMax = lc === 0 ? this.M0 : this.M;
      const picked = this.selectNeighbors(nodes, sims, count, this.M, chosen);
      const [arr, at] = this.linksAt(slot, lc);
      arr[at] = picked;
      for (let i = 0; i < picked; i++) arr[at + 1 + i] = chosen[i];
      for (let i = 0; i < picked; i++) this.connect(chosen[i], slot, lc, mMax);
    }
    if (level > this.maxLevel) {
      this.maxLevel = level;
      this.entry = slot;
    }
  }

  /** Room for slots below `n`. */
  ensureCapacity(n: number): void {
    if (n <= this.levels.length) return;
    let cap = this.levels.length;
    while (cap < n) cap *= 2;
    const levels = new Int8Array(cap).fill(-1);
    levels.set(this.levels);
    this.levels = levels;
    const links0 = new Int32Array(cap * this.stride0);
    links0.set(this.links0);
    this.links0 = links0;
    this.visited = new Uint32Array(cap);
    this.visitTag = 0;
  }

  /**
   * Searches for the arena's query with a candidate list of `ef`; returns the heap of the ef best
   * (keys are negated similarity), empty when the graph is.
   */
  searchQuery(ef: number): MaxHeap {
    if (this.entry < 0) {
      this.results.clear();
      return this.results;
    }
    let ep = this.entry;
    let epSim = this.simQ(QUERY, ep);
    for (let lc = this.maxLevel; lc > 0; lc--) [ep, epSim] = this.greedy(QUERY, ep, epSim, lc);
    this.searchLayer(QUERY, ep, epSim, ef, 0);
    return this.results;
  }

  private random(): number {
    // mulberry32
    let t = (this.rng = (this.rng + 0x6d2b79f5) >>> 0);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Similarity of slot's vector and q: the arena's query (QUERY) or the vector of slot q. */
  private simQ(q: number, slot: number): number {
    const arena = this.store.arena;
    return q === QUERY ? arena.queryDot(slot) : arena.slotDot(q, slot);
  }

  /** The links of `node` at level `lc`: [array, offset of the count; links follow]. */
  private linksAt(node: number, lc: number): [Int32Array, number] {
    if (lc === 0) return [this.links0, node * this.stride0];
    return [this.upper[node] as Int32Array, (lc - 1) * this.strideU];
  }

  private greedy(q: number, ep: number, epSim: number, lc: number): [number, number] {
    let changed = true;
    while (changed) {
      changed = false;
      const [arr, at] = this.linksAt(ep, lc);
      const n = arr[at];
      for (let i = 1; i <= n; i++) {
        const c = arr[at + i];
        const s = this.simQ(q, c);
        if (s > epSim) {
          epSim = s;
          ep = c;
          changed = true;
        }
      }
    }
    return [ep, epSim];
  }

  private nextTag(): number {
    if (++this.visitTag === 0xffffffff) {
      this.visited.fill(0);
      this.visitTag = 1;
    }
    return this.visitTag;
  }

  /** Beam search on level lc; leaves the ef best in `this.results` (keys are negated similarity). */
  private searchLayer(q: number, ep: number, epSim: number, ef: number, lc: number): void {
    const tag = this.nextTag();
    const visited = this.visited;
    const cand = this.candidates;
    const res = this.results;
    cand.clear();
    res.clear();
    visited[ep] = tag;
    cand.push(epSim, ep);
    res.push(-epSim, ep);
    let arr = this.links0;
    let stride = this.stride0;
    let worst = epSim;
    while (cand.size > 0) {
      const cSim = cand.topKey;
      const c = cand.topVal;
      if (cSim < worst && res.size >= ef) break;
      cand.pop();
      let at: number;
      if (lc === 0) at = c * stride;
      else {
        arr = this.upper[c] as Int32Array;
        stride = this.strideU;
        at = (lc - 1) * stride;
      }
      const n = arr[at];
      for (let i = 1; i <= n; i++) {
        const e = arr[at + i];
        if (visited[e] === tag) continue;
        visited[e] = tag;
        const s = this.simQ(q, e);
        if (res.size < ef || s > worst) {
          cand.push(s, e);
          res.push(-s, e);
          if (res.size > ef) res.pop();
          worst = -res.topKey;
        }
      }
    }
  }

  /** Picks up to m diverse neighbours from candidates sorted by similarity (descending). */
  private selectNeighbors(nodes: Int32Array, sims: Float64Array, count: number, m: number, out: Int32Array): number {
    let chosen = 0;
    for (let i = 0; i < count && chosen < m; i++) {
      const c = nodes[i];
      const toQuery = sims[i];
      let good = true;
      for (let j = 0; j < chosen; j++) {
        if (this.simQ(c, out[j]) > toQuery) {
          good = false;
          break;
        }
      }
      if (good) out[chosen++] = c;
    }
    return chosen;
  }

  /** Adds a link e -> n at level lc, pruning e's links with the heuristic when full. */
  private connect(e: number, n: number, lc: number, mMax: number): void {
    const [arr, at] = this.linksAt(e, lc);
    const count = arr[at];
    if (count < mMax) {
      arr[at + 1 + count] = n;
      arr[at] = count + 1;
      return;
    }
    const total = count + 1;
    const nodes = this.pruneNodes;
    const sims = this.pruneSims;
    for (let i = 0; i < count; i++) nodes[i] = arr[at + 1 + i];
    nodes[count] = n;
    for (let i = 0; i < total; i++) sims[i] = this.simQ(e, nodes[i]);
    // Sort candidates by similarity to e, descending (insertion sort: at most M0 + 1 items).
    for (let i = 1; i < total; i++) {
      const nv = nodes[i];
      const sv = sims[i];
      let j = i - 1;
      while (j >= 0 && sims[j] < sv) {
        nodes[j + 1] = nodes[j];
        sims[j + 1] = sims[j];
        j--;
      }
      nodes[j + 1] = nv;
      sims[j + 1] = sv;
    }
    const out = this.pruneOut;
    const picked = this.selectNeighbors(nodes, sims, total, mMax, out);
    arr[at] = picked;
    for (let i = 0; i < picked; i++) arr[at + 1 + i] = out[i];
  }
}
