/**
 * The README and docs/*.md stay true to the tree: every relative link resolves (file, folder or
 * #heading) and every `npm run <script>` they tell a reader to type exists in package.json.
 * The reference pages stay short (what is true now); the history lives in docs/experiments/, one
 * dated entry per question, each listed in valuation.md's index.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anchorsOf, brokenLinks, headingSlug, missingScripts, relativeLinks } from '../support/markdown-check.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const EXPERIMENTS_DIR = path.join(ROOT, 'docs', 'experiments');
const EXPERIMENTS = readdirSync(EXPERIMENTS_DIR)
  .filter((f) => f.endsWith('.md'))
  .map((f) => path.join(EXPERIMENTS_DIR, f));
const PAGES = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(ROOT, 'docs', f)),
  ...EXPERIMENTS,
];
/** The reference pages' limits, in lines as `wc -l` counts them. */
const PAGE_LIMITS: Record<string, number> = { 'docs/deal-score.md': 120, 'docs/valuation.md': 350, 'docs/benchmarks.md': 250 };
const INDEX_PAGE = path.join(ROOT, 'docs', 'valuation.md');

function lineCount(text: string): number {
  return text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

/** An experiment entry's name and title both start with its date: `2026-11-27-….md`, `# 2026-11-27 — …`. */
function undatedEntry(file: string, markdown: string): string | null {
  const name = /^(\d{4}-\d{2}-\d{2})-[a-z0-9-]+\.md$/.exec(path.basename(file));
  if (!name) return `${file}: the name does not start with a date (YYYY-MM-DD-question.md)`;
  const title = /^# (\d{4}-\d{2}-\d{2})\b/.exec(markdown);
  if (!title) return `${file}: the first line is not a title starting with its date ("# ${name[1]} — …")`;
  if (title[1] !== name[1]) return `${file}: the title's date ${title[1]} is not the name's ${name[1]}`;
  return null;
}

/** Entries the index page does not link to. */
function unindexed(indexFile: string, indexMarkdown: string, entries: string[]): string[] {
  const linked = new Set(relativeLinks(indexMarkdown).map((t) => path.resolve(path.dirname(indexFile), decodeURIComponent(t.split('#')[0]!))));
  return entries.filter((e) => !linked.has(e));
}
const SCRIPTS = (JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('the documentation', () => {
  it('has the README and the docs pages the README indexes', () => {
    const names = PAGES.map((p) => path.relative(ROOT, p));
    for (const page of ['README.md', 'docs/architecture.md', 'docs/api.md', 'docs/deal-score.md', 'docs/benchmarks.md']) {
      expect(names).toContain(page);
    }
  });

  it('keeps the README short: at most 200 lines', () => {
    const lines = readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(200);
  });

  it.each(Object.entries(PAGE_LIMITS))('keeps %s a reference page: at most %i lines', (page, limit) => {
    expect(lineCount(readFileSync(path.join(ROOT, page), 'utf8'))).toBeLessThanOrEqual(limit);
  });

  it('keeps the history in docs/experiments/: every entry dated and listed in valuation.md', () => {
    expect(EXPERIMENTS.length).toBeGreaterThan(0);
    expect(EXPERIMENTS.map((f) => undatedEntry(f, readFileSync(f, 'utf8'))).filter(Boolean)).toEqual([]);
    expect(unindexed(INDEX_PAGE, readFileSync(INDEX_PAGE, 'utf8'), EXPERIMENTS)).toEqual([]);
  });

  it.each(PAGES.map((p) => [path.relative(ROOT, p), p]))('%s: every relative link resolves', (_name, file) => {
    expect(brokenLinks(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  it.each(PAGES.map((p) => [path.relative(ROOT, p), p]))('%s: every `npm run` script exists', (_name, file) => {
    expect(missingScripts(file, readFileSync(file, 'utf8'), SCRIPTS)).toEqual([]);
  });
});

describe('the checks themselves fail on a broken page', () => {
  const tree = new Map<string, string>([
    ['/repo/README.md', ''],
    ['/repo/docs/api.md', '# API\n\n## Error shape\n\n## Error shape\n'],
    ['/repo/docs/images/dashboard.png', ''],
  ]);
  const fakeFs = {
    exists: (p: string) => tree.has(p) || [...tree.keys()].some((k) => k.startsWith(`${p}/`)),
    read: (p: string) => tree.get(p) ?? '',
    isFile: (p: string) => tree.has(p),
  };

  it('reports a missing file, a missing heading, and passes good links', () => {
    const page = [
      '![Dashboard](docs/images/dashboard.png)',
      '[API](docs/api.md#error-shape) and the second one [again](docs/api.md#error-shape-1)',
      '[folder](docs/)',
      '[gone](docs/valuation.md)',
      '[wrong heading](docs/api.md#no-such-heading)',
      '[web](https://example.com/x.md) `[in code](nowhere.md)`',
      '```\n[in a block](nowhere.md)\n```',
      '<img src="docs/images/missing.png" width="600">',
    ].join('\n');
    const problems = brokenLinks('/repo/README.md', page, fakeFs);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toContain('"docs/valuation.md"');
    expect(problems[1]).toContain('#no-such-heading');
    expect(problems[2]).toContain('docs/images/missing.png');
  });

  it('checks anchors within the same page', () => {
    const page = '# Deal Radar\n\n## See it in one minute\n\n[up](#see-it-in-one-minute) [nowhere](#not-here)';
    expect(brokenLinks('/repo/README.md', page, fakeFs)).toEqual([
      '/repo/README.md: link "#not-here" names #not-here, which is no heading of /repo/README.md',
    ]);
  });

  it('reports a script package.json lacks, in prose and in code blocks', () => {
    const scripts = { demo: 'x', 'bench:api': 'x', 'start:api': 'x', cli: 'x' };
    const page = 'Run `npm run demo`, then `npm run cli -- queues` and `npm run start:<service>`.\n```sh\nnpm run bench:api\nnpm run bench:nothing\n```\nand npm run demos.';
    expect(missingScripts('README.md', page, scripts)).toEqual([
      'README.md: "npm run bench:nothing" names a script package.json does not have',
      'README.md: "npm run demos" names a script package.json does not have',
    ]);
    expect(missingScripts('README.md', 'npm run worker:<name>', scripts)).toEqual(['README.md: "npm run worker:<…>" matches no script of package.json']);
  });

  it('counts lines as wc -l does, and reports an undated or unindexed experiment', () => {
    expect(lineCount('a\nb\n')).toBe(2);
    expect(lineCount('a\nb')).toBe(2);
    expect(undatedEntry('/repo/docs/experiments/2026-11-27-x.md', '# 2026-11-27 — X\n')).toBeNull();
    expect(undatedEntry('/repo/docs/experiments/west-lots.md', '# 2026-11-27 — X\n')).toContain('does not start with a date');
    expect(undatedEntry('/repo/docs/experiments/2026-11-27-x.md', '# West lots\n')).toContain('not a title starting with its date');
    expect(undatedEntry('/repo/docs/experiments/2026-11-27-x.md', '# 2026-11-26 — X\n')).toContain('is not the name');
    const index = '[a](experiments/2026-11-25-a.md) [b](experiments/2026-11-26-b.md#found)';
    const entries = ['a', 'b', 'c'].map((n, i) => `/repo/docs/experiments/2026-11-2${5 + i}-${n}.md`);
    expect(unindexed('/repo/docs/valuation.md', index, entries)).toEqual(['/repo/docs/experiments/2026-11-27-c.md']);
  });

  it('makes GitHub heading anchors', () => {
    expect(headingSlug('See it in one minute')).toBe('see-it-in-one-minute');
    expect(headingSlug('Deploy with Docker Compose')).toBe('deploy-with-docker-compose');
    expect(headingSlug('`bench:match` — where time goes')).toBe('benchmatch--where-time-goes');
    expect([...anchorsOf('# A\n## B\n## B\n```\n# not a heading\n```')]).toEqual(['a', 'b', 'b-1']);
    expect(relativeLinks('[a](x.md "title") [c](mailto:a@b.c) [d](../d.md#x)')).toEqual(['x.md', '../d.md#x']);
  });
});
