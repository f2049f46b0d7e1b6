/**
 * The listing index's snapshot on disk: what lets an API process answer within a few seconds of
 * start instead of loading a million listings from PostgreSQL (tens of seconds). One file: a
 * magic line, a JSON header (what the snapshot saw in PostgreSQL, the dictionaries, the arrays'
 * kinds and lengths), then the arrays' raw bytes, each 8-byte aligned. Written to a temporary
 * name then renamed, so a reader (another replica on the same volume) sees a whole file or the
 * previous one. A file that does not parse is ignored, never trusted: the caller loads from
 * PostgreSQL instead.
 */
import { open, rename, rm } from 'node:fs/promises';
import type { IndexColumns } from './listing-index/index.js';

const MAGIC = 'deal-radar listing index snapshot v4\n';

/** Where the snapshot's content stands in PostgreSQL's history (checked before it is used). */
export type SnapshotMeta = {
  /** pg_current_snapshot() text of the sync the content reflects. */
  pgSnapshot: string;
  /** When that sync started (epoch ms): changes after it come from the change log. */
  syncedAt: number;
  /** Which database it came from (system identifier and database oid). */
  database: string;
};

const ARRAYS = ['ids', 'score', 'price', 'category', 'stateCode', 'cityCode', 'placeCode', 'endAt', 'freight', 'discount', 'termStart', 'terms', 'placeLat', 'placeLon'] as const;
/** Read with room behind them for the index's growth (it takes these arrays as they are); the place dictionary is copied. */
const WITH_ROOM = new Set<string>(ARRAYS.filter((name) => name !== 'placeLat' && name !== 'placeLon'));
type ArrayName = (typeof ARRAYS)[number];
type Kind = 'i32' | 'f64' | 'u8' | 'u16';
const KINDS = { i32: Int32Array, f64: Float64Array, u8: Uint8Array, u16: Uint16Array } as const;
type AnyArray = Int32Array | Float64Array | Uint8Array | Uint16Array;

function kindOf(a: AnyArray): Kind {
  return a instanceof Int32Array ? 'i32' : a instanceof Float64Array ? 'f64' : a instanceof Uint16Array ? 'u16' : 'u8';
}

/** Elements to allocate for an array of `length` that the index may grow: a sixteenth more, in whole 1024s, plus one (offsets). */
function roomFor(length: number): number {
  return Math.ceil((length + Math.max(1024, length >>> 4)) / 1024) * 1024 + 1;
}

type Header = {
  meta: SnapshotMeta;
  names: { terms: string[]; states: string[]; cities: string[] };
  arrays: Array<{ name: string; kind: Kind; length: number }>;
};

const pad8 = (n: number) => (8 - (n % 8)) % 8;

/** Writes the snapshot atomically (temporary file, then rename). */
export async function writeIndexSnapshot(file: string, columns: IndexColumns, meta: SnapshotMeta): Promise<number> {
  const arrays: Array<[string, AnyArray]> = [
    ...ARRAYS.map((name) => [name, columns[name]] as [string, AnyArray]),
    ...columns.orders.map((o, i) => [`order${i + 1}`, o] as [string, Int32Array]),
  ];
  const header: Header = {
    meta,
    names: { terms: columns.termNames, states: columns.stateNames, cities: columns.cityNames },
    arrays: arrays.map(([name, a]) => ({ name, kind: kindOf(a), length: a.length })),
  };
  const head = Buffer.from(MAGIC + JSON.stringify(header) + '\n', 'utf8');
  const temporary = `${file}.${process.pid}.tmp`;
  const handle = await open(temporary, 'w');
  let bytes = 0;
  try {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(head.length);
    const write = async (b: Uint8Array) => {
      await handle.write(b);
      bytes += b.length;
    };
    await write(length);
    await write(head);
    await write(Buffer.alloc(pad8(bytes)));
    for (const [, a] of arrays) {
      await write(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      await write(Buffer.alloc(pad8(bytes)));
    }
  } catch (err) {
    await handle.close();
    await rm(temporary, { force: true });
    throw err;
  }
  await handle.close();
  await rename(temporary, file);
  return bytes;
}

/**
 * The snapshot, or why there is none usable. Each array is read straight into its own typed
 * array (no copy of the whole file in memory: it is as large as the index).
 */
export async function readIndexSnapshot(file: string): Promise<{ columns: IndexColumns; meta: SnapshotMeta } | { missing: string }> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch {
    return { missing: 'no snapshot file' };
  }
  try {
    const size = (await handle.stat()).size;
    const readAt = async (target: Uint8Array, position: number) => {
      if (position + target.length > size) throw new TruncatedError();
      for (let done = 0; done < target.length; ) {
        const { bytesRead } = await handle.read(target, done, target.length - done, position + done);
        if (bytesRead === 0) throw new TruncatedError();
        done += bytesRead;
      }
    };
    const length = new Uint8Array(4);
    await readAt(length, 0);
    const headLength = Buffer.from(length).readUInt32LE(0);
    if (headLength > 64 * 2 ** 20) return { missing: 'not a snapshot of this version' };
    const headBytes = new Uint8Array(headLength);
    await readAt(headBytes, 4);
    const head = Buffer.from(headBytes).toString('utf8');
    if (!head.startsWith(MAGIC)) return { missing: 'not a snapshot of this version' };
    const header = JSON.parse(head.slice(MAGIC.length)) as Header;
    let at = 4 + headLength;
    at += pad8(at);
    const read = new Map<string, AnyArray>();
    for (const { name, kind, length: n } of header.arrays) {
      const Type = KINDS[kind];
      if (!Type || !Number.isInteger(n) || n < 0 || at + n * Type.BYTES_PER_ELEMENT > size) throw new TruncatedError();
      const array = new Type(WITH_ROOM.has(name) ? roomFor(n) : n).subarray(0, n);
      await readAt(new Uint8Array(array.buffer, 0, array.byteLength), at);
      read.set(name, array);
      at += array.byteLength + pad8(array.byteLength);
    }
    const get = <T>(name: ArrayName | `order${number}`) => {
      const a = read.get(name);
      if (!a) throw new Error(`snapshot without ${name}`);
      return a as T;
    };
    const columns: IndexColumns = {
      ids: get('ids'),
      score: get('score'),
      price: get('price'),
      category: get('category'),
      stateCode: get('stateCode'),
      cityCode: get('cityCode'),
      placeCode: get('placeCode'),
      endAt: get('endAt'),
      freight: get('freight'),
      discount: get('discount'),
      placeLat: get('placeLat'),
      placeLon: get('placeLon'),
      termStart: get('termStart'),
      terms: get('terms'),
      orders: [get('order1'), get('order2'), get('order3')],
      termNames: header.names.terms,
      stateNames: header.names.states,
      cityNames: header.names.cities,
    };
    return { columns, meta: header.meta };
  } catch (err) {
    return { missing: err instanceof TruncatedError ? 'truncated snapshot' : `unreadable snapshot (${(err as Error).message})` };
  } finally {
    await handle.close();
  }
}

class TruncatedError extends Error {}
