/**
 * The checks behind tests/unit/docs.test.ts, as pure functions over a page's text so the test
 * can also show them failing on a broken page. A problem is a sentence naming the page and what
 * is wrong with it.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** Fenced code blocks removed (links there are examples, not links); inline code kept apart. */
function withoutFences(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor a page offers, duplicates numbered as GitHub does (`x`, `x-1`, `x-2`). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  for (const match of withoutFences(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const slug = headingSlug(match[1]!);
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  for (const match of markdown.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) anchors.add(match[1]!);
  return anchors;
}

/** The relative link targets of a page: markdown links and images, and HTML src/href attributes. */
export function relativeLinks(markdown: string): string[] {
  const text = withoutFences(markdown).replace(/`[^`\n]*`/g, '');
  const targets: string[] = [];
  for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) targets.push(match[1]!);
  for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) targets.push(match[1]!);
  for (const match of text.matchAll(/\b(?:src|href)="([^"]+)"/g)) targets.push(match[1]!);
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('//'));
}

/**
 * Links of the page at `file` that do not resolve: a missing file or folder, or an #anchor that
 * no heading of the target page makes. `read` is injectable so a test can check an imagined tree.
 */
export function brokenLinks(file: string, markdown: string, fsLike: { exists(p: string): boolean; read(p: string): string; isFile(p: string): boolean } = realFs): string[] {
  const problems: string[] = [];
  for (const target of relativeLinks(markdown)) {
    const [rawPath, anchor] = target.split('#', 2) as [string, string | undefined];
    const targetFile = rawPath === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(rawPath));
    if (!fsLike.exists(targetFile)) {
      problems.push(`${file}: link "${target}" points at ${targetFile}, which does not exist`);
      continue;
    }
    if (anchor && targetFile.endsWith('.md') && fsLike.isFile(targetFile)) {
      const anchors = anchorsOf(targetFile === file ? markdown : fsLike.read(targetFile));
      if (!anchors.has(anchor.toLowerCase())) problems.push(`${file}: link "${target}" names #${anchor}, which is no heading of ${targetFile}`);
    }
  }
  return problems;
}

/** `npm run <script>` mentions whose script package.json lacks (code blocks included: they are instructions too). */
export function missingScripts(file: string, markdown: string, scripts: Record<string, string>): string[] {
  const problems: string[] = [];
  // The whole name (no shorter prefix of it), and not `start:<service>`: a family, checked below.
  for (const match of markdown.matchAll(/\bnpm run ([A-Za-z0-9:_.-]*[A-Za-z0-9_])(?![A-Za-z0-9_]|:<)/g)) {
    const name = match[1]!;
    if (scripts[name] !== undefined) continue;
    problems.push(`${file}: "npm run ${name}" names a script package.json does not have`);
  }
  for (const match of markdown.matchAll(/\bnpm run ([A-Za-z0-9_-]+):<[^>]+>/g)) {
    if (!Object.keys(scripts).some((s) => s.startsWith(`${match[1]}:`))) problems.push(`${file}: "npm run ${match[1]}:<…>" matches no script of package.json`);
  }
  return problems;
}

const realFs = {
  exists: (p: string) => existsSync(p),
  read: (p: string) => readFileSync(p, 'utf8'),
  isFile: (p: string) => statSync(p).isFile(),
};
