/**
 * A known path asked with a method it does not have: 405 with `Allow`, in the contract's
 * `{"detail": …}` shape (DRF's message), where Fastify alone answers 404. The not-found handler
 * asks `allowedMethods(path)`; routes are recorded as they are added (`onRoute`).
 */
import type { FastifyInstance, RouteOptions } from 'fastify';

type RouteEntry = { pattern: RegExp; methods: Set<string> };

/** A find-my-way path (`/api/alerts/:id/`, `:id(^\\d+)`, `*`) as an anchored regular expression. */
export function routeRegExp(url: string): RegExp {
  let source = '';
  for (let i = 0; i < url.length; ) {
    const ch = url[i]!;
    if (ch === ':' && url[i + 1] === ':') {
      source += ':'; // `::` is a literal colon
      i += 2;
    } else if (ch === ':') {
      let j = i + 1;
      while (j < url.length && /[\w]/.test(url[j]!)) j++;
      if (url[j] === '(') {
        let depth = 0;
        let k = j;
        for (; k < url.length; k++) {
          if (url[k] === '\\') k++;
          else if (url[k] === '(') depth++;
          else if (url[k] === ')' && --depth === 0) break;
        }
        source += `(?:${url.slice(j + 1, k).replace(/^\^/, '').replace(/\$$/, '')})`;
        i = k + 1;
      } else {
        source += '[^/]+';
        i = j;
      }
    } else if (ch === '*') {
      source += '.*';
      i++;
    } else {
      source += ch.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
      i++;
    }
  }
  return new RegExp(`^${source}$`);
}

export class RouteTable {
  private readonly routes = new Map<string, RouteEntry>();

  add(url: string, methods: string | string[]): void {
    // Catch-alls (CORS's `OPTIONS *`) would make every unknown path "known".
    if (url === '*' || url === '/*') return;
    const entry = this.routes.get(url) ?? { pattern: routeRegExp(url), methods: new Set<string>() };
    for (const m of Array.isArray(methods) ? methods : [methods]) entry.methods.add(m.toUpperCase());
    this.routes.set(url, entry);
  }

  /** Every method some route answers on this path, sorted (HEAD wherever GET is, as Fastify adds it). */
  allowedMethods(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: ms } of this.routes.values()) if (pattern.test(path)) for (const m of ms) methods.add(m);
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/** Records every route added after this call (register it before the route plugins). */
export function recordRoutes(app: FastifyInstance): RouteTable {
  const table = new RouteTable();
  app.addHook('onRoute', (route: RouteOptions) => table.add(route.url, route.method));
  return table;
}

export function methodNotAllowedDetail(method: string): string {
  return `Method "${method}" not allowed.`;
}
