/**
 * A fixture server on 127.0.0.1 in front of another local site: it forwards every request
 * unless an override answers it (a 429, a redirect, a 20 MB body, a recorded block page…), and
 * logs every hit, so tests can see what the crawler asked for and when.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Override = (req: IncomingMessage, res: ServerResponse, hitNumber: number) => boolean | Promise<boolean>;

export type FaultProxy = {
  url: string;
  port: number;
  hits: Map<string, number[]>;
  /** Path (with query) → handler; return false to forward after all. */
  overrides: Map<string, Override>;
  /** Added before answering each request (to make a crawl last long enough to interrupt it). */
  delayMs: number;
  close(): Promise<void>;
};

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const hits = new Map<string, number[]>();
  const overrides = new Map<string, Override>();
  const state = { delayMs: 0 };
  const server = createServer((req, res) => {
    void (async () => {
      if (state.delayMs > 0) await new Promise((r) => setTimeout(r, state.delayMs));
      const path = req.url ?? '/';
      const list = hits.get(path) ?? [];
      list.push(Date.now());
      hits.set(path, list);
      const override = overrides.get(path);
      if (override && (await override(req, res, list.length))) return;
      const upstream = await fetch(`${targetUrl}${path}`, { method: req.method, redirect: 'manual' });
      const headers: Record<string, string> = {};
      upstream.headers.forEach((value, key) => {
        if (!['content-encoding', 'content-length', 'transfer-encoding', 'connection'].includes(key)) headers[key] = value;
      });
      res.writeHead(upstream.status, headers);
      res.end(Buffer.from(await upstream.arrayBuffer()));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    hits,
    overrides,
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
