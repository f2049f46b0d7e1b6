import { buildApp, type ApiApp } from '../../services/api/app.js';
import { createTestContext, type TestContext } from './context.js';

/** A real API over a fresh database, driven with `app.inject`. */
export async function createTestApp(
  opts: Parameters<typeof createTestContext>[0] & { beforeReady?: (app: ApiApp) => void } = {},
): Promise<{ app: ApiApp; ctx: TestContext; close(): Promise<void> }> {
  const ctx = await createTestContext(opts);
  const app = await buildApp(ctx, { webDist: '/nonexistent' });
  opts.beforeReady?.(app);
  await app.ready();
  return {
    app,
    ctx,
    async close() {
      await app.close();
      await ctx.close();
    },
  };
}
