import { describe, expect, it } from 'vitest';
import { lookAgainAt } from '../../services/notifier/deliver-batch.js';

const SEND = 15_000;
const CLAIM = 600;

describe('a notify batch that finds messages in another sender’s hands', () => {
  const now = 1_800_000_000_000;
  it('looks again once a live holder must be done (two sends), not after the whole claim timeout', () => {
    expect(lookAgainAt([now - 1000], now, SEND, CLAIM)).toBe(now - 1000 + 2 * SEND + 1000);
  });
  it('waits for a gone holder’s claim to be stale, then may send it', () => {
    expect(lookAgainAt([now - 40_000], now, SEND, CLAIM)).toBe(now - 40_000 + CLAIM * 1000 + 1000);
  });
  it('takes the earliest of several, and never less than a second ahead', () => {
    expect(lookAgainAt([now - 40_000, now - 2000], now, SEND, CLAIM)).toBe(now - 2000 + 2 * SEND + 1000);
    expect(lookAgainAt([now - CLAIM * 1000 - 5000], now, SEND, CLAIM)).toBe(now + 1000);
  });
});
