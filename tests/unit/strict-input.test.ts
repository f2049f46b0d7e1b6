/** The unknown-field rule of plugins/strict-input.ts: which keys are unknown, and the hint. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { editDistance, isClosedObject, nearNames, unknownFieldMessage, unknownFields } from '../../services/api/plugins/strict-input.js';

describe('unknownFields', () => {
  const schema = z.object({
    state: z.string().nullish(),
    count: z.preprocess((v) => v, z.coerce.number().optional()),
    items: z.array(z.object({ name: z.string(), meta: z.record(z.string(), z.unknown()).nullish() })).optional(),
    open: z.looseObject({ token: z.string().optional() }).optional(),
    either: z.union([z.object({ a: z.number() }), z.string()]).optional(),
  });

  it('finds keys a closed object does not know, through wrappers, pipes and arrays', () => {
    const found = unknownFields(schema, { location: 'MN', count: '3', items: [{ name: 'x', nme: 'y', meta: { any: 1 } }], open: { token: 't', utm: 'x' }, either: { b: 1 } });
    expect(found.map((f) => f.path)).toEqual([['location'], ['items', 0, 'nme']]);
    expect(found[0]!.known).toEqual(['state', 'count', 'items', 'open', 'either']);
    expect(found[1]!.known).toEqual(['name', 'meta']);
  });

  it('finds nothing in what a schema takes, or in values that are not objects', () => {
    expect(unknownFields(schema, { state: 'MN' })).toEqual([]);
    expect(unknownFields(schema, undefined)).toEqual([]);
    expect(unknownFields(schema, 'text')).toEqual([]);
    expect(unknownFields(schema, { items: 'not a list' })).toEqual([]);
    // Inherited names are not fields: `constructor` is unknown like any other.
    expect(unknownFields(schema, { constructor: 1 }).map((f) => f.path)).toEqual([['constructor']]);
  });

  it('says which objects are closed', () => {
    expect(isClosedObject(schema)).toBe(true);
    expect(isClosedObject(schema.optional())).toBe(true);
    expect(isClosedObject(z.looseObject({}))).toBe(false);
    expect(isClosedObject(z.record(z.string(), z.string()))).toBe(false);
    expect(isClosedObject(z.string())).toBe(false);
  });
});

describe('nearNames', () => {
  it('points a name written otherwise, a synonym or a typo at the route\'s name', () => {
    expect(nearNames('location', ['equipment_type', 'state', 'condition'])).toEqual(['state']);
    expect(nearNames('state', ['category', 'location', 'search'])).toEqual(['location']);
    expect(nearNames('sortBy', ['sort_by', 'page'])).toEqual(['sort_by']);
    expect(nearNames('min_price', ['price_min', 'price_max'])).toEqual(['price_min']);
    expect(nearNames('pasword', ['email', 'password'])).toEqual(['password']);
    expect(nearNames('equipment', ['equipment_type', 'state'])).toEqual(['equipment_type']);
    expect(nearNames('price', ['price_min', 'price_max', 'state'])).toEqual(['price_min', 'price_max']);
  });

  it('gives no hint for a name far from all', () => {
    expect(nearNames('zzz', ['email', 'password'])).toEqual([]);
    expect(nearNames('remember_me', ['email', 'password'])).toEqual([]);
    expect(nearNames('ab', ['a', 'b'])).toEqual([]);
    expect(nearNames('', ['email'])).toEqual([]);
  });

  it('counts a swap of two letters as one edit', () => {
    expect(editDistance('sate', 'state')).toBe(1);
    expect(editDistance('emial', 'email')).toBe(1);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('unknownFieldMessage', () => {
  it('names the field by its path, a body field or a query parameter', () => {
    expect(unknownFieldMessage({ path: ['location'], known: ['state'] }, 'body')).toBe('location: unknown field; did you mean state?');
    expect(unknownFieldMessage({ path: ['events', 0, 'typ'], known: ['name', 'type'] }, 'body')).toBe('events.0.typ: unknown field; did you mean type?');
    expect(unknownFieldMessage({ path: ['foo'], known: ['page'] }, 'querystring')).toBe('foo: unknown parameter.');
  });
});
