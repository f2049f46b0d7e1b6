import { customType, doublePrecision, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const bytea = customType<{ data: Buffer; driverData: Buffer }>({
  dataType: () => 'bytea',
});

/**
 * Trained fair-value models, newest = highest version. The scorer loads the newest; listings
 * record the version that scored them. The model itself is gzip-compressed JSON (trees with
 * category lists run to megabytes as plain jsonb).
 */
export const modelVersions = pgTable('model_versions', {
  version: integer('version').primaryKey().generatedAlwaysAsIdentity(),
  kind: text('kind').notNull().default('fair-value'),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  /** Sales the model was trained on, by origin (`import:fastiron`, `crawl:<source>`…). */
  trainingRows: integer('training_rows').notNull(),
  trainingOrigins: jsonb('training_origins').$type<Record<string, number>>().notNull().default({}),
  trainingSeconds: doublePrecision('training_seconds').notNull(),
  /** Holdout RMSLE, range coverage, trees… as measured at training. */
  metrics: jsonb('metrics').$type<Record<string, number | string>>().notNull(),
  params: jsonb('params').$type<Record<string, unknown>>().notNull(),
  modelGzip: bytea('model_gzip').notNull(),
  modelBytes: integer('model_bytes').notNull(),
});
