/**
 * Ports for servers a test hands to another process (a product it launches, a redis-server) or
 * must name before it listens (an APP_URL). A port that the OS calls free, released and handed on,
 * can be taken in between by anyone who asks the OS for one (every `listen(0)` and outgoing
 * connection draws from the ephemeral range), or by a parallel test file that asked the same way.
 *
 * So ports come from below the ephemeral range (Linux: 32768–60999; nothing is handed out there
 * unless asked for by number), and each vitest worker draws from its own slice of it
 * (VITEST_POOL_ID; the run's global setup, which has none, takes slice 0): two test files running
 * at once can never pick the same port. Files that a worker runs one after another reuse its
 * slice; a port still held (a process left over) is seen and skipped.
 */
import net from 'node:net';

const FIRST = 20_000;
const SLICE = 400;
const LAST = 32_000; // below the ephemeral range
let next = 0;

function sliceIndex(): number {
  const id = Number(process.env.VITEST_POOL_ID ?? 0);
  return Number.isInteger(id) && id >= 0 ? id : 0;
}

function canListen(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** A port of this worker's slice, free on every interface right now, never handed out twice by this process. */
export async function reservePort(): Promise<number> {
  const base = FIRST + sliceIndex() * SLICE;
  if (base + SLICE > LAST) throw new Error(`VITEST_POOL_ID ${sliceIndex()} is past the reserved port slices (at most ${(LAST - FIRST) / SLICE - 1} workers)`);
  while (next < SLICE) {
    const port = base + next++;
    if ((await canListen(port, '127.0.0.1')) && (await canListen(port))) return port;
  }
  throw new Error(`no free port left in ${base}–${base + SLICE - 1}`);
}
