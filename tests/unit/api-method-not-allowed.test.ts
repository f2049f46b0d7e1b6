/** Which methods a concrete path has, from Fastify's route patterns: the 405 answer's Allow header. */
import { describe, expect, it } from 'vitest';
import { routeRegExp, RouteTable } from '../../services/api/plugins/method-not-allowed.js';

describe('routeRegExp', () => {
  it('matches parameters within one segment, regex parameters and wildcards', () => {
    expect(routeRegExp('/api/alerts/:id/').test('/api/alerts/12/')).toBe(true);
    expect(routeRegExp('/api/alerts/:id/').test('/api/alerts/12/x/')).toBe(false);
    expect(routeRegExp('/api/alerts/:id/').test('/api/alerts/12')).toBe(false);
    expect(routeRegExp('/n/:id(^\\d+)').test('/n/42')).toBe(true);
    expect(routeRegExp('/n/:id(^\\d+)').test('/n/x')).toBe(false);
    expect(routeRegExp('/api/docs/static/*').test('/api/docs/static/a/b.js')).toBe(true);
    expect(routeRegExp('/a.b').test('/axb')).toBe(false);
  });
});

describe('RouteTable', () => {
  it('lists the methods of every route matching the path, HEAD with GET, ignoring catch-alls', () => {
    const table = new RouteTable();
    table.add('/api/alerts/', ['GET', 'POST']);
    table.add('/api/alerts/:id/', 'PATCH');
    table.add('/api/alerts/:id/', 'DELETE');
    table.add('/api/alerts/notifications/', 'GET');
    table.add('*', 'OPTIONS');
    expect(table.allowedMethods('/api/alerts/')).toEqual(['GET', 'HEAD', 'POST']);
    expect(table.allowedMethods('/api/alerts/7/')).toEqual(['DELETE', 'PATCH']);
    // A static segment and a parameter both match: the path has both routes' methods.
    expect(table.allowedMethods('/api/alerts/notifications/')).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    expect(table.allowedMethods('/api/unknown/')).toEqual([]);
  });
});
