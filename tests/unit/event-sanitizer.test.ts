import { describe, expect, it } from 'vitest';
import { boundedOccurredAt, sanitizeProperties, sanitizeValue } from '../../services/analytics/event-sanitizer.js';

describe('analytics event sanitising (spec §5)', () => {
  it('truncates strings to 1000, cuts arrays to 100, non-finite numbers to 0, null to empty string', () => {
    expect((sanitizeValue('a'.repeat(1500)) as string).length).toBe(1000);
    expect((sanitizeValue(Array.from({ length: 150 }, () => 1)) as unknown[]).length).toBe(100);
    expect(sanitizeValue(Number.NaN)).toBe(0);
    expect(sanitizeValue(Number.POSITIVE_INFINITY)).toBe(0);
    expect(sanitizeValue(null)).toBe('');
    expect(sanitizeValue(12.5)).toBe(12.5);
    expect(sanitizeValue(true)).toBe(true);
    expect(sanitizeValue(() => 1)).toBeUndefined();
  });

  it('caps keys and nesting, drops prototype keys', () => {
    const many = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`k${i}`, i]));
    expect(Object.keys(sanitizeProperties(many))).toHaveLength(50);
    expect(sanitizeProperties({ a: { b: { c: 1 } } })).toEqual({ a: { b: { c: 1 } } });
    expect(sanitizeProperties({ a: { b: { c: { d: 1 } } } })).toEqual({ a: { b: { c: { d: 1 } } } });
    expect(sanitizeProperties({ a: { b: { c: { d: { e: 1 } } } } })).toEqual({ a: { b: { c: {} } } });
    expect(sanitizeProperties({ a: [[[[1]]]] })).toEqual({ a: [[[]]] });
    expect(sanitizeProperties(JSON.parse('{"__proto__": {"polluted": 1}, "ok": 1}'))).toEqual({ ok: 1 });
    expect(Object.keys(sanitizeProperties({ ['k'.repeat(200)]: 1 }))[0]!.length).toBe(100);
    expect(sanitizeProperties(null)).toEqual({});
  });

  it('keeps a client timestamp only within a day of now', () => {
    const now = new Date('2026-11-21T07:00:00Z');
    expect(boundedOccurredAt('2026-11-21T06:59:00Z', now).toISOString()).toBe('2026-11-21T06:59:00.000Z');
    expect(boundedOccurredAt('1999-01-01', now)).toBe(now);
    expect(boundedOccurredAt('garbage', now)).toBe(now);
    expect(boundedOccurredAt(undefined, now)).toBe(now);
  });
});
