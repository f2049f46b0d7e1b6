import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { compareEndStates, inAcceptWindow } from '../../scripts/fault/end-state-diff.js';

const base = { listings: 16, messages: { 'instant:sent': 3 }, mailsReceived: 3, mailKeysReceivedTwice: [] as string[] };

describe('the soak: a killed run against the uninterrupted one', () => {
  it('the accept window: notify-sent at any hit, notify-claimed after the first', () => {
    expect(inAcceptWindow('notify-sent', 1)).toBe(true);
    expect(inAcceptWindow('notify-claimed', 2)).toBe(true);
    expect(inAcceptWindow('notify-claimed', 1)).toBe(false);
    expect(inAcceptWindow('match-recorded', 3)).toBe(false);
  });

  it('an equal end state has no diff and no duplicate', () => {
    expect(compareEndStates(base, { ...base }, { point: 'notify-sent', at: 1 }, isDeepStrictEqual)).toEqual({ diff: {}, duplicatesByDesign: [] });
  });

  it('a mail twice after a kill in the accept window is a duplicate by design, not a mismatch', () => {
    const got = { ...base, mailsReceived: 4, mailKeysReceivedTwice: ['instant:a1:l2'] };
    expect(compareEndStates(base, got, { point: 'notify-sent', at: 2 }, isDeepStrictEqual)).toEqual({ diff: {}, duplicatesByDesign: ['instant:a1:l2'] });
  });

  it('the same duplicate after a kill anywhere else is a mismatch', () => {
    const got = { ...base, mailsReceived: 4, mailKeysReceivedTwice: ['instant:a1:l2'] };
    const r = compareEndStates(base, got, { point: 'match-recorded', at: 1 }, isDeepStrictEqual);
    expect(Object.keys(r.diff).sort()).toEqual(['mailKeysReceivedTwice', 'mailsReceived']);
    expect(r.duplicatesByDesign).toEqual([]);
  });

  it('a mail three times, a mail missing beside a duplicate, or another field different stays a mismatch', () => {
    const thrice = { ...base, mailsReceived: 5, mailKeysReceivedTwice: ['k'] };
    expect(Object.keys(compareEndStates(base, thrice, { point: 'notify-sent', at: 1 }, isDeepStrictEqual).diff)).toContain('mailsReceived');
    const missingOne = { ...base, mailsReceived: 3, mailKeysReceivedTwice: ['k'] };
    expect(Object.keys(compareEndStates(base, missingOne, { point: 'notify-sent', at: 1 }, isDeepStrictEqual).diff)).toContain('mailKeysReceivedTwice');
    const otherField = { ...base, listings: 15, mailsReceived: 4, mailKeysReceivedTwice: ['k'] };
    const r = compareEndStates(base, otherField, { point: 'notify-sent', at: 1 }, isDeepStrictEqual);
    expect(Object.keys(r.diff)).toEqual(['listings']);
    expect(r.duplicatesByDesign).toEqual(['k']);
  });
});
