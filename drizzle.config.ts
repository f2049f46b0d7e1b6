import { defineConfig } from 'drizzle-kit';

// `drizzle-kit generate` diffs db/schema against the last snapshot; it needs no database.
export default defineConfig({
  dialect: 'postgresql',
  schema: './db/schema/index.ts',
  out: './db/migrations',
  casing: 'snake_case',
});
