/**
 * The shape of episode and fact ids, old (`ep_12`) and shared (`ep_<origin>_12`): a pure check any
 * surface can make before asking the memory (minting and resolving ids live in store/ids.ts).
 */
export type IdPrefix = 'ep' | 'rel';

export const ID_RE = /^(ep|rel)_(?:([a-z0-9]{6,32})_)?(\d+)$/;

/** Whether a string has the shape of an episode (`ep`) or relationship (`rel`) id, old or new. */
export function isId(prefix: IdPrefix, id: unknown): id is string {
  const m = typeof id === 'string' ? ID_RE.exec(id) : null;
  return m !== null && m[1] === prefix && Number(m[3]) > 0;
}
