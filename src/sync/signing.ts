/**
 * Who wrote a row of the shared log. Each memory that syncs holds an Ed25519 key (`sync-key.pem`,
 * private to its owner); its public half is registered in the log's members table. A row is signed
 * over its origin, seq, author and body, so a teammate who can write to the database still cannot
 * write as another member, raise another member's authority or rewrite their words.
 *
 * A forget erases episodes from other members' rows on the server, which changes those bodies:
 * so the signature covers each episode through a digest (salted, so a short erased text cannot be
 * guessed back from it), and the list of digests travels beside the body, where erasure leaves it.
 */
import * as crypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryEvent } from '../core/model/events.js';
import { writeFileDurably } from '../core/store/durable.js';

export const KEY_FILE = 'sync-key.pem';
const CONTEXT = 'recall-sync-row-v1';

export interface MemberKey {
  privateKey: crypto.KeyObject;
  /** The public key as stored in the members table: DER (SPKI), base64. */
  publicKey: string;
}

/** The row as signed: the event body (everything but its local seq) with its place in the log. */
export interface SignedRow {
  origin: string;
  originSeq: number;
  author: string;
  body: Record<string, unknown>;
}

/** This memory's key, made the first time it syncs. A key others can read is refused, not used. */
export function memberKey(folder: string): MemberKey {
  const file = path.join(folder, KEY_FILE);
  if (!fs.existsSync(file)) {
    const { privateKey } = crypto.generateKeyPairSync('ed25519');
    writeFileDurably(file, Buffer.from(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string));
  }
  const st = fs.statSync(file);
  if (process.getuid && (st.uid !== process.getuid() || (st.mode & 0o077) !== 0))
    throw new Error(`${file} must belong to you and be readable by you alone (chmod 600 "${file}"); sync will not use it as it is`);
  const privateKey = crypto.createPrivateKey(fs.readFileSync(file));
  return { privateKey, publicKey: publicKeyText(crypto.createPublicKey(privateKey)) };
}

export const publicKeyText = (key: crypto.KeyObject): string => key.export({ type: 'spki', format: 'der' }).toString('base64');

/** A short, readable name for a public key, for people to compare out of band. */
export function fingerprint(publicKey: string): string {
  const hex = crypto.createHash('sha256').update(publicKey).digest('hex').slice(0, 16);
  return hex.match(/.{4}/g)!.join(':');
}

/** JSON with object keys sorted at every level: the same value reads the same after a trip through jsonb. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonicalJson(x)}`).join(',')}}`;
  }
  return JSON.stringify(v);
}

/** An episode's digest, as the signature covers it. */
export const episodeDigest = (episode: unknown): string => crypto.createHash('sha256').update(canonicalJson(episode)).digest('hex');

/** The turns of an episodes.add body (other events' `episodes` are lists of ids, signed as they are). */
function turnsOf(body: Record<string, unknown>): unknown[] | undefined {
  return body.type === 'episodes.add' && Array.isArray(body.episodes) ? body.episodes : undefined;
}

/** The bytes a signature covers: the body with its turns standing as their digests. */
function message(row: SignedRow, digests: string[]): Buffer {
  const { episodes: _turns, ...rest } = row.body;
  const signed = turnsOf(row.body) ? rest : row.body;
  return Buffer.from(canonicalJson([CONTEXT, row.origin, row.originSeq, row.author, signed, digests]));
}

/**
 * Signs an event as it leaves this memory. Each episode gets a random salt first (it travels
 * with the episode and is erased with it), so its digest says nothing about an erased text.
 */
export function signEvent(
  key: MemberKey,
  origin: string,
  author: string,
  e: MemoryEvent,
): { body: Record<string, unknown>; signature: string; digests: string[] } {
  const { seq, ...event } = e;
  const body = JSON.parse(JSON.stringify(event)) as Record<string, unknown>;
  const turns = turnsOf(body);
  if (turns) body.episodes = turns.map((ep) => ({ ...(ep as object), salt: crypto.randomBytes(16).toString('hex') }));
  const digests = turnsOf(body)?.map(episodeDigest) ?? [];
  const signature = crypto.sign(null, message({ origin, originSeq: seq, author, body }, digests), key.privateKey).toString('base64');
  return { body, signature, digests };
}

/**
 * Whether a pulled row is what the member with this public key signed: the signature holds over
 * the digest list, and every episode still in the body is one of those digests (erasure may have
 * taken some away, never added or changed one).
 */
export function verifyRow(row: SignedRow, signature: string | null, digests: unknown, publicKey: string): boolean {
  if (!signature || !Array.isArray(digests) || !digests.every((d) => typeof d === 'string')) return false;
  let ok: boolean;
  try {
    const key = crypto.createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    ok = crypto.verify(null, message(row, digests as string[]), key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
  if (!ok) return false;
  const turns = turnsOf(row.body);
  if (!turns) return digests.length === 0 && (row.body.type !== 'episodes.add' || row.body.episodes === undefined);
  const signed = new Set(digests as string[]);
  return turns.every((ep) => signed.delete(episodeDigest(ep)));
}
