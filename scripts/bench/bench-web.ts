/**
 * `npm run bench:web`: builds the web app (production) and prints what a browser downloads on
 * the first load of the landing page (/) and of the dashboard (/dashboard): the entry chunk,
 * the route's lazy chunk (and the signed-in shell for the dashboard), every chunk they import
 * statically, and the CSS — raw and gzip (level 9) sizes. Target: landing JS ≤ 170 kB gzip.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

type ManifestChunk = { file: string; imports?: string[]; css?: string[]; isEntry?: boolean; dynamicImports?: string[] };
type Manifest = Record<string, ManifestChunk>;

const LANDING_JS_TARGET_KB = 170;

const ROUTES: Array<{ name: string; path: string; chunks: string[] }> = [
  { name: 'landing', path: '/', chunks: ['index.html', 'src/app/routes/landing.tsx'] },
  {
    name: 'dashboard',
    path: '/dashboard',
    chunks: ['index.html', 'src/components/layouts/app-layout.tsx', 'src/app/routes/dashboard.tsx'],
  },
  {
    name: 'deal detail',
    path: '/deal/:id',
    chunks: ['index.html', 'src/components/layouts/app-layout.tsx', 'src/app/routes/deal.tsx'],
  },
];

/** Every file the given manifest entries load before rendering: themselves and their static imports. */
export function firstLoadFiles(manifest: Manifest, keys: string[]): { js: string[]; css: string[] } {
  const js = new Set<string>();
  const css = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk) throw new Error(`manifest has no entry ${key}`);
    js.add(chunk.file);
    for (const c of chunk.css ?? []) css.add(c);
    for (const i of chunk.imports ?? []) visit(i);
  };
  keys.forEach(visit);
  return { js: [...js], css: [...css] };
}

function sizes(dir: string, files: string[]): { raw: number; gzip: number } {
  let raw = 0;
  let gzip = 0;
  for (const f of files) {
    const bytes = readFileSync(path.join(dir, f));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
  }
  return { raw, gzip };
}

const kb = (n: number) => `${(n / 1000).toFixed(1)} kB`;

async function main() {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'deal-radar-bench-web-'));
  try {
    const started = performance.now();
    await build({
      configFile: path.resolve('web/vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir, emptyOutDir: true, manifest: true },
    });
    const buildMs = performance.now() - started;
    const manifest = JSON.parse(readFileSync(path.join(outDir, '.vite/manifest.json'), 'utf8')) as Manifest;

    const rows = ROUTES.map((route) => {
      const files = firstLoadFiles(manifest, route.chunks);
      return { route, files, js: sizes(outDir, files.js), css: sizes(outDir, files.css) };
    });
    const allJs = Object.values(manifest).map((c) => c.file).filter((f) => f.endsWith('.js'));
    const total = sizes(outDir, [...new Set(allJs)]);

    console.log(`web build: ${(buildMs / 1000).toFixed(1)} s, ${allJs.length} JS chunks, all JS ${kb(total.raw)} (${kb(total.gzip)} gzip)\n`);
    console.log('| first load of | JS files | JS raw | JS gzip | CSS raw | CSS gzip |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const r of rows) {
      console.log(`| ${r.route.name} (\`${r.route.path}\`) | ${r.files.js.length} | ${kb(r.js.raw)} | ${kb(r.js.gzip)} | ${kb(r.css.raw)} | ${kb(r.css.gzip)} |`);
    }
    const landing = rows[0]!;
    const ok = landing.js.gzip <= LANDING_JS_TARGET_KB * 1000;
    console.log(`\nlanding first-load JS ${kb(landing.js.gzip)} gzip: ${ok ? 'within' : 'OVER'} the ${LANDING_JS_TARGET_KB} kB target`);
    if (!ok) process.exitCode = 1;
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
}

await main();
