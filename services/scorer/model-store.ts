/**
 * The newest stored model, loaded once per version: each job asks for the newest version number
 * (one small query) and reloads only when a newer model was registered.
 */
import type { Db } from '../shared/database/db.js';
import { latestModelVersion, loadModelJson } from '../shared/repositories/model-versions-repository.js';
import { FairValueModel } from '../valuation/fair-value-model.js';

export class ModelStore {
  private current: { version: number; model: FairValueModel } | null = null;

  constructor(private readonly db: Db) {}

  async newest(): Promise<{ version: number; model: FairValueModel } | null> {
    const info = await latestModelVersion(this.db);
    if (!info) return null;
    if (this.current?.version !== info.version) {
      const json = await loadModelJson(this.db, info.version);
      if (!json) return null;
      this.current = { version: info.version, model: FairValueModel.fromJSON(json) };
    }
    return this.current;
  }
}
