/**
 * `GET /docs/{page}.md`: the buyer-facing pages of `docs/` (e.g. deal-score.md, which the deal
 * page's "Why this score" links to), read-only, as plain text. Only the Markdown files found in
 * `docs/` at start are served, so a name can never reach outside that folder; they are read once.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AppContext } from '../../shared/context.js';
import { notFound } from '../../shared/errors.js';

export const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
const PAGE_NAME = /^[a-z0-9][a-z0-9-]{0,80}\.md$/;

/** The served pages by file name: every `*.md` directly in `dir` with a plain name. */
export function loadDocPages(dir: string): Map<string, string> {
  const pages = new Map<string, string>();
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return pages; // an image without docs/ serves none
  }
  for (const name of names) {
    if (PAGE_NAME.test(name)) pages.set(name, readFileSync(path.join(dir, name), 'utf8'));
  }
  return pages;
}

export function docsRoutes(_ctx: AppContext, dir = DOCS_DIR): FastifyPluginAsyncZod {
  return async (app) => {
    const pages = loadDocPages(dir);
    app.get(
      '/docs/:page',
      {
        schema: {
          tags: ['docs'],
          summary: 'A documentation page (Markdown, as plain text), e.g. deal-score.md',
          params: z.object({ page: z.string().min(1).max(100) }),
          response: { 200: z.string(), 404: z.object({ detail: z.string() }) },
        },
      },
      async (request, reply) => {
        const text = pages.get(request.params.page);
        if (text === undefined) throw notFound();
        // text/plain so every browser shows it instead of downloading it; nosniff so it is never run as anything else
        return reply
          .type('text/plain; charset=utf-8')
          .header('x-content-type-options', 'nosniff')
          .header('cache-control', 'public, max-age=300')
          .send(text);
      },
    );
  };
}
