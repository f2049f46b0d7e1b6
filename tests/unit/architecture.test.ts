/**
 * The house rules of docs/architecture.md ("Where a new file goes"), held by reading every import
 * specifier of the source (the TypeScript compiler's own pre-processor: static imports, `import
 * type`, re-exports and dynamic `import()`):
 * - `services/shared/` imports nothing from a stage or domain folder (any `services/<x>/` but
 *   `shared/`), types included;
 * - no import cycle in `services/`, `scripts/`, `web/src/` (type-only imports count: a circle of
 *   types is still a circle a reader has to hold);
 * - a web feature imports nothing from another feature (shared parts live in `web/src/lib` or
 *   `web/src/components`);
 * - no source file over 600 lines.
 * The checks are pure functions over a file map; the first tests plant each violation in a small
 * map to show they fail, the last ones run them over the repository.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE_DIRS = ['services', 'scripts', 'web/src', 'db', 'tests'];
const CYCLE_DIRS = ['services/', 'scripts/', 'web/src/'];
export const MAX_LINES = 600;
/** Files allowed past the limit by name (none: split a long file where its responsibilities part). */
const LONG_FILE_EXEMPTIONS = new Set<string>();

/** Repository-relative path (posix) → file text. */
type Sources = Map<string, string>;

function readSources(): Sources {
  const out: Sources = new Map();
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist' && !entry.name.startsWith('.')) walk(rel);
      } else if (/\.(ts|tsx)$/.test(entry.name)) {
        out.set(rel, readFileSync(path.join(ROOT, rel), 'utf8'));
      }
    }
  };
  for (const dir of SOURCE_DIRS) walk(dir);
  return out;
}

/** Every module specifier a file names (imports, `import type`, `export … from`, `import()`). */
export function specifiers(text: string): string[] {
  return ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName);
}

/** The repository file a relative specifier names (`./x.js` → `x.ts`/`x.tsx`, a folder → its index), or null. */
export function resolve(from: string, spec: string, files: ReadonlySet<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  const stem = base.replace(/\.(js|jsx|ts|tsx|mjs)$/, '');
  for (const candidate of [base, `${stem}.ts`, `${stem}.tsx`, `${stem}/index.ts`, `${stem}/index.tsx`]) {
    if (files.has(candidate)) return candidate;
  }
  return null;
}

/** file → the repository files it imports. */
export function importGraph(sources: Sources): Map<string, string[]> {
  const files = new Set(sources.keys());
  const graph = new Map<string, string[]>();
  for (const [file, text] of sources) {
    const targets = specifiers(text)
      .map((s) => resolve(file, s, files))
      .filter((t): t is string => t !== null);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Imports from the ground floor (`services/shared/`) into any other `services/` folder or file. */
export function sharedFloorViolations(graph: Map<string, string[]>): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    if (!file.startsWith('services/shared/')) continue;
    for (const t of targets) if (t.startsWith('services/') && !t.startsWith('services/shared/')) out.push(`${file} → ${t}`);
  }
  return out;
}

/** A web feature's imports of another feature (`web/src/features/<a>/…` → `web/src/features/<b>/…`). */
export function crossFeatureImports(graph: Map<string, string[]>): string[] {
  const feature = (f: string) => /^web\/src\/features\/([^/]+)\//.exec(f)?.[1] ?? null;
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const own = feature(file);
    if (own === null) continue;
    for (const t of targets) {
      const other = feature(t);
      if (other !== null && other !== own) out.push(`${file} → ${t}`);
    }
  }
  return out;
}

/** The import cycles among files under `dirs` (Tarjan's strongly connected components), each as its files. */
export function importCycles(graph: Map<string, string[]>, dirs: readonly string[] = CYCLE_DIRS): string[][] {
  const inScope = (f: string) => dirs.some((d) => f.startsWith(d));
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  // Iterative, so a deep import chain cannot overflow the call stack.
  for (const start of graph.keys()) {
    if (!inScope(start) || index.has(start)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: start, edge: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const frame = work[work.length - 1]!;
      const targets = (graph.get(frame.node) ?? []).filter(inScope);
      if (frame.edge < targets.length) {
        const t = targets[frame.edge++]!;
        if (!index.has(t)) {
          index.set(t, next);
          low.set(t, next++);
          stack.push(t);
          onStack.add(t);
          work.push({ node: t, edge: 0 });
        } else if (onStack.has(t)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(t)!));
        }
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1]!.node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) cycles.push(component.sort());
      }
    }
  }
  return cycles;
}

/** Source files over the limit (lines as an editor counts them), but those exempted by name. */
export function longFiles(sources: Sources, max = MAX_LINES, exempt: ReadonlySet<string> = LONG_FILE_EXEMPTIONS): string[] {
  const out: string[] = [];
  for (const [file, text] of sources) {
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > max && !exempt.has(file)) out.push(`${file}: ${lines} lines`);
  }
  return out;
}

describe('architecture checks (each fails on a planted violation)', () => {
  const planted: Sources = new Map([
    ['services/shared/repositories/a-repository.ts', "import type { Rule } from '../../alerts/rule.js';\nimport { db } from '../database/db.js';\n"],
    ['services/shared/database/db.ts', 'export const db = 1;\n'],
    ['services/alerts/rule.ts', "export type Rule = 1;\nexport { db } from '../shared/database/db.js';\n"],
    ['services/valuation/a.ts', "import { b } from './b.js';\nexport const a = 1;\n"],
    ['services/valuation/b.ts', "export { a as b } from './a.js';\n"],
    ['scripts/self.ts', "export * from './self.js';\n"],
    ['web/src/features/watchlist/page.tsx', "import { ZipField } from '../auctions/components/zip-field.js';\nimport { cn } from '../../lib/cn.js';\n"],
    ['web/src/features/auctions/components/zip-field.tsx', "import { cn } from '../../../lib/cn.js';\nexport const ZipField = () => null;\n"],
    ['web/src/lib/cn.ts', 'export const cn = 1;\n'],
  ]);
  const graph = importGraph(planted);

  it('reads type-only, re-export and dynamic specifiers', () => {
    expect(specifiers("import type { A } from './a.js';\nexport * from './b.js';\nconst c = await import('./c.js');\n")).toEqual(['./a.js', './b.js', './c.js']);
  });

  it('finds a shared module importing a domain (a type import too), and nothing else', () => {
    expect(sharedFloorViolations(graph)).toEqual(['services/shared/repositories/a-repository.ts → services/alerts/rule.ts']);
  });

  it('finds a two-file cycle and a file importing itself', () => {
    expect(importCycles(graph)).toEqual([['services/valuation/a.ts', 'services/valuation/b.ts'], ['scripts/self.ts']]);
  });

  it('finds a web feature importing another feature, not its imports of lib', () => {
    expect(crossFeatureImports(graph)).toEqual(['web/src/features/watchlist/page.tsx → web/src/features/auctions/components/zip-field.tsx']);
  });

  it('finds a file over the limit', () => {
    const long: Sources = new Map([
      ['services/a.ts', 'x\n'.repeat(601)],
      ['services/b.ts', 'x\n'.repeat(600)],
      ['services/valuation/gbdt.ts', 'x\n'.repeat(900)],
    ]);
    expect(longFiles(long)).toEqual(['services/a.ts: 601 lines', 'services/valuation/gbdt.ts: 900 lines']);
  });
});

describe('the repository keeps the house rules', () => {
  const sources = readSources();
  const graph = importGraph(sources);

  it('reads the source (a sanity floor: the walk found the services and the web app)', () => {
    expect(sources.has('services/shared/config.ts')).toBe(true);
    expect(sources.has('web/src/main.tsx')).toBe(true);
    expect(graph.get('services/shared/config.ts')).toContain('services/shared/fault-points.ts');
  });

  it('services/shared/ imports nothing from a stage or domain folder', () => {
    expect(sharedFloorViolations(graph)).toEqual([]);
  });

  it('no import cycle in services/, scripts/, web/src/', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('no web feature imports another feature', () => {
    expect(crossFeatureImports(graph)).toEqual([]);
  });

  it(`no source file over ${MAX_LINES} lines`, () => {
    expect(longFiles(sources)).toEqual([]);
  });
});
