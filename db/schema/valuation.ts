import { check, customType, doublePrecision, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';

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
  /** The training job (id and creation time) that stored it: a re-run of that job finds it instead of training again. */
  trainJob: text('train_job'),
}, (t) => [uniqueIndex('model_versions_train_job_key').on(t.trainJob).where(sql`${t.trainJob} IS NOT NULL`)]);

/**
 * Sales-history imports as recorded work: one row per imported file (the first-start import, or
 * `npm run import-sales`). `rows_done` counts the file's rows read and committed, so an import cut
 * off part-way resumes there. While it runs, the importing session holds an advisory lock on the
 * row's id (sales-imports-repository.ts): "importing" without that lock means it was cut off.
 */
export const salesImports = pgTable(
  'sales_imports',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    /** `import:fastiron` or `import:westauction`: the sales' origin. */
    origin: text('origin').notNull(),
    /** The file's absolute path. */
    file: text('file').notNull(),
    /** The Fast Iron `SalesID,SalePrice` file priced from, or ''. */
    pricesFile: text('prices_file').notNull().default(''),
    trigger: text('trigger').$type<'bootstrap' | 'cli'>().notNull(),
    status: text('status').$type<'importing' | 'complete' | 'interrupted'>().notNull(),
    /** Size and modification time of the file(s): a changed file is imported again from the start. */
    fingerprint: text('fingerprint').notNull().default(''),
    rowsDone: integer('rows_done').notNull().default(0),
    written: integer('written').notNull().default(0),
    attempts: integer('attempts').notNull().default(0),
    error: text('error'),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('sales_imports_file_key').on(t.origin, t.file, t.pricesFile),
    check('sales_imports_status_check', sql`${t.status} IN ('importing', 'complete', 'interrupted')`),
    check('sales_imports_trigger_check', sql`${t.trigger} IN ('bootstrap', 'cli')`),
  ],
);
