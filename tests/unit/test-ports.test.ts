import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { reservePort } from '../support/ports.js';

describe('test port reservation', () => {
  it('hands out ports of this worker slice, below the ephemeral range, never twice, skipping held ones', async () => {
    const first = await reservePort();
    const slice = Number(process.env.VITEST_POOL_ID ?? 0);
    expect(first).toBeGreaterThanOrEqual(20_000 + slice * 400);
    expect(first).toBeLessThan(20_000 + (slice + 1) * 400);
    expect(first).toBeLessThan(32_768);
    // hold the next port in line: reservePort must step over it
    const held = net.createServer();
    await new Promise<void>((resolve) => held.listen(first + 1, '127.0.0.1', () => resolve()));
    try {
      const second = await reservePort();
      expect(second).not.toBe(first);
      expect(second).not.toBe(first + 1);
      expect(second).toBeGreaterThan(first);
    } finally {
      await new Promise((resolve) => held.close(resolve));
    }
  });
});
