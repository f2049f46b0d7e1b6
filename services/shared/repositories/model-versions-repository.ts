/** SQL for stored model versions: register a trained model, find and load the newest. */
import { gunzipSync, gzipSync } from 'node:zlib';
import { desc, eq, sql } from 'drizzle-orm';
import { modelVersions } from '../../../db/schema/index.js';
import type { DbOrTx } from '../database/db.js';

export type ModelVersionInfo = {
  version: number;
  createdAt: Date;
  trainingRows: number;
  trainingOrigins: Record<string, number>;
  trainingSeconds: number;
  metrics: Record<string, number | string>;
  modelBytes: number;
};

const INFO_COLUMNS = {
  version: modelVersions.version,
  createdAt: modelVersions.createdAt,
  trainingRows: modelVersions.trainingRows,
  trainingOrigins: modelVersions.trainingOrigins,
  trainingSeconds: modelVersions.trainingSeconds,
  metrics: modelVersions.metrics,
  modelBytes: modelVersions.modelBytes,
};

export async function insertModelVersion(
  db: DbOrTx,
  input: {
    model: unknown;
    trainingRows: number;
    trainingOrigins: Record<string, number>;
    trainingSeconds: number;
    metrics: Record<string, number | string>;
    params: Record<string, unknown>;
    /** The training job that produced it (see findModelVersionByTrainJob). */
    trainJob?: string;
  },
): Promise<ModelVersionInfo> {
  const json = Buffer.from(JSON.stringify(input.model));
  const [row] = await db
    .insert(modelVersions)
    .values({
      trainingRows: input.trainingRows,
      trainingOrigins: input.trainingOrigins,
      trainingSeconds: input.trainingSeconds,
      metrics: input.metrics,
      params: input.params,
      modelGzip: gzipSync(json),
      modelBytes: json.length,
      trainJob: input.trainJob ?? null,
    })
    .returning(INFO_COLUMNS);
  return row!;
}

export async function latestModelVersion(db: DbOrTx): Promise<ModelVersionInfo | null> {
  const [row] = await db.select(INFO_COLUMNS).from(modelVersions).orderBy(desc(modelVersions.version)).limit(1);
  return row ?? null;
}

export async function listModelVersions(db: DbOrTx, limit = 20): Promise<ModelVersionInfo[]> {
  return db.select(INFO_COLUMNS).from(modelVersions).orderBy(desc(modelVersions.version)).limit(limit);
}

/** The stored model JSON of one version (parsed), or null when absent. */
export async function loadModelJson(db: DbOrTx, version: number): Promise<unknown | null> {
  const [row] = await db.select({ gz: modelVersions.modelGzip }).from(modelVersions).where(eq(modelVersions.version, version));
  if (!row) return null;
  return JSON.parse(gunzipSync(row.gz).toString('utf8'));
}

export async function countModelVersions(db: DbOrTx): Promise<number> {
  const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(modelVersions);
  return Number(row?.n ?? 0);
}

/** The model a training job already stored (it died before finishing the job), or null. */
export async function findModelVersionByTrainJob(db: DbOrTx, trainJob: string): Promise<ModelVersionInfo | null> {
  const [row] = await db.select(INFO_COLUMNS).from(modelVersions).where(eq(modelVersions.trainJob, trainJob));
  return row ?? null;
}
