import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { kernelBytes } from '../src/core/vectors/kernel';

/** A function of the module: its signature, locals and instructions, in WebAssembly text terms (indices, not names). */
interface Func {
  name: string;
  params: string[];
  results: string[];
  locals: string[];
  code: string[];
}

const TYPES: Record<number, string> = { 0x7f: 'i32', 0x7d: 'f32', 0x7b: 'v128' };
const PLAIN: Record<number, string> = {
  0x45: 'i32.eqz',
  0x49: 'i32.lt_u',
  0x6a: 'i32.add',
  0x6b: 'i32.sub',
  0x92: 'f32.add',
  0x94: 'f32.mul',
  0xb2: 'f32.convert_i32_s',
};
const INDEXED: Record<number, string> = { 0x0d: 'br_if', 0x10: 'call', 0x20: 'local.get', 0x21: 'local.set', 0x22: 'local.tee' };
/** Memory instructions with the log2 of their natural alignment (the text omits align when natural). */
const MEMORY: Record<number, [string, number]> = { 0x2a: ['f32.load', 2], 0x38: ['f32.store', 2] };
const SIMD: Record<number, string> = {
  0x87: 'i16x8.extend_low_i8x16_s',
  0x88: 'i16x8.extend_high_i8x16_s',
  0xa7: 'i32x4.extend_low_i16x8_s',
  0xa8: 'i32x4.extend_high_i16x8_s',
  0xae: 'i32x4.add',
  0xba: 'i32x4.dot_i16x8_s',
  0xe4: 'f32x4.add',
  0xe6: 'f32x4.mul',
  0xfa: 'f32x4.convert_i32x4_s',
};
const SIMD_LANE: Record<number, string> = { 0x1b: 'i32x4.extract_lane', 0x1f: 'f32x4.extract_lane' };

/** Disassembles the module kernelBytes() makes, knowing only the instructions the kernel uses. */
function disassemble(bytes: Uint8Array): { imports: string[]; funcs: Func[] } {
  let at = 8;
  const u32 = (): number => {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++];
      n += (b & 0x7f) * 2 ** shift;
      shift += 7;
      if (!(b & 0x80)) return n;
    }
  };
  const i32 = (): number => {
    let n = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[at++];
      n |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return shift < 32 && b & 0x40 ? n | (-1 << shift) : n;
  };
  const name = (): string => {
    const n = u32();
    at += n;
    return Buffer.from(bytes.subarray(at - n, at)).toString('latin1');
  };
  const vec = <T>(item: () => T): T[] => Array.from({ length: u32() }, item);
  const memarg = (op: string, natural: number): string => {
    const align = u32();
    const offset = u32();
    return op + (offset ? ` offset=${offset}` : '') + (align !== natural ? ` align=${2 ** align}` : '');
  };
  assert.deepEqual([...bytes.subarray(0, 8)], [0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  let types: { params: string[]; results: string[] }[] = [];
  let funcTypes: number[] = [];
  const imports: string[] = [];
  const names: string[] = [];
  const bodies: { locals: string[]; code: string[] }[] = [];
  while (at < bytes.length) {
    const id = bytes[at++];
    const end = u32() + at;
    if (id === 1) {
      types = vec(() => {
        assert.equal(bytes[at++], 0x60);
        return { params: vec(() => TYPES[bytes[at++]]), results: vec(() => TYPES[bytes[at++]]) };
      });
    } else if (id === 2) {
      vec(() => {
        const [module, field] = [name(), name()];
        assert.deepEqual([bytes[at++], bytes[at++]], [0x02, 0x00], 'a memory without a maximum');
        imports.push(`${module} ${field} memory ${u32()}`);
      });
    } else if (id === 3) {
      funcTypes = vec(u32);
    } else if (id === 7) {
      vec(() => {
        const exported = name();
        assert.equal(bytes[at++], 0x00, 'a function export');
        names[u32()] = exported;
      });
    } else if (id === 10) {
      vec(() => {
        const bodyEnd = u32() + at;
        const locals = vec(() => {
          const n = u32();
          return Array<string>(n).fill(TYPES[bytes[at++]]);
        }).flat();
        const code: string[] = [];
        while (at < bodyEnd) {
          const op = bytes[at++];
          if (op === 0x02 || op === 0x03) {
            assert.equal(bytes[at++], 0x40, 'a block without a result');
            code.push(op === 0x02 ? 'block' : 'loop');
          } else if (op === 0x0b) code.push('end');
          else if (op === 0x41) code.push(`i32.const ${i32()}`);
          else if (PLAIN[op]) code.push(PLAIN[op]);
          else if (INDEXED[op]) code.push(`${INDEXED[op]} ${u32()}`);
          else if (MEMORY[op]) code.push(memarg(...MEMORY[op]));
          else if (op === 0xfd) {
            const sub = u32();
            if (sub === 0x00) code.push(memarg('v128.load', 4));
            else if (SIMD_LANE[sub]) code.push(`${SIMD_LANE[sub]} ${bytes[at++]}`);
            else if (SIMD[sub]) code.push(SIMD[sub]);
            else assert.fail(`SIMD opcode 0x${sub.toString(16)} unknown to this test`);
          } else assert.fail(`opcode 0x${op.toString(16)} unknown to this test`);
        }
        assert.equal(code.pop(), 'end', 'a body ends with end');
        bodies.push({ locals, code });
      });
    } else assert.fail(`unexpected section ${id}`);
    assert.equal(at, end, `section ${id} read to its end`);
  }
  const funcs = bodies.map((b, i) => ({ name: names[i], ...types[funcTypes[i]], ...b }));
  return { imports, funcs };
}

/** Reads kernel.wat as written (flat instructions, one a line), resolving names to indices. */
function readWat(text: string): { imports: string[]; funcs: Func[] } {
  const lines = text
    .split('\n')
    .map((l) => l.replace(/;;.*/, '').trim())
    .filter(Boolean);
  const imports = lines.flatMap((l) => {
    const m = /^\(import "(\w+)" "(\w+)" \(memory (\d+)\)\)$/.exec(l);
    return m ? [`${m[1]} ${m[2]} memory ${m[3]}`] : [];
  });
  const funcNames = lines.flatMap((l) => /^\(func \$(\w+)/.exec(l)?.[1] ?? []);
  const funcs: Func[] = [];
  let f: (Func & { vars: string[]; labels: string[] }) | undefined;
  for (const l of lines) {
    const head = /^\(func \$\w+ \(export "(\w+)"\)(.*)$/.exec(l);
    if (head) {
      const params = [...head[2].matchAll(/\(param \$(\w+) (\w+)\)/g)];
      const results = [...head[2].matchAll(/\(result (\w+)\)/g)].map((m) => m[1]);
      f = { name: head[1], params: params.map((m) => m[2]), results, locals: [], code: [], vars: params.map((m) => m[1]), labels: [] };
      funcs.push(f);
      continue;
    }
    if (!f) continue;
    const local = /^\(local \$(\w+) (\w+)\)$/.exec(l);
    if (local) {
      f.vars.push(local[1]);
      f.locals.push(local[2]);
      continue;
    }
    if (l === ')') {
      assert.equal(f.labels.length, 0, `${f.name}: every block ends`);
      f = undefined;
      continue;
    }
    const [op, arg] = l.split(/\s+(.*)/);
    if (op === 'block' || op === 'loop') {
      f.labels.push(arg);
      f.code.push(op);
    } else if (op === 'end') {
      f.labels.pop();
      f.code.push(op);
    } else if (op.startsWith('local.')) {
      assert.ok(f.vars.includes(arg.slice(1)), `${f.name}: no local ${arg}`);
      f.code.push(`${op} ${f.vars.indexOf(arg.slice(1))}`);
    } else if (op === 'br_if') {
      assert.ok(f.labels.includes(arg), `${f.name}: no label ${arg}`);
      f.code.push(`${op} ${f.labels.length - 1 - f.labels.lastIndexOf(arg)}`);
    } else if (op === 'call') f.code.push(`${op} ${funcNames.indexOf(arg.slice(1))}`);
    else f.code.push(l);
  }
  return { imports, funcs: funcs.map(({ name, params, results, locals, code }) => ({ name, params, results, locals, code })) };
}

test('kernel.wat holds the instructions the hand-assembled kernel bytes hold', () => {
  const wat = readWat(fs.readFileSync(path.join(__dirname, '../src/core/vectors/kernel.wat'), 'utf8'));
  const bytes = disassemble(kernelBytes());
  assert.deepEqual(bytes.imports, ['env memory memory 1']);
  assert.deepEqual(wat.imports, bytes.imports);
  assert.deepEqual(
    bytes.funcs.map((f) => f.name),
    ['qdot', 'scan', 'pair'],
  );
  for (let i = 0; i < bytes.funcs.length; i++) assert.deepEqual(wat.funcs[i], bytes.funcs[i], `function ${bytes.funcs[i].name}`);
  assert.equal(wat.funcs.length, bytes.funcs.length);
});
