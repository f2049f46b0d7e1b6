-- Retraining that survives a crash (issue 29): a model version records the training job that
-- produced it, so a training job run again after its worker died between storing the model and
-- queueing the rescore goes on to the rescore instead of training (and storing) a second model.
ALTER TABLE "model_versions" ADD COLUMN IF NOT EXISTS "train_job" text;--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "model_versions_train_job_key" ON "model_versions" ("train_job") WHERE "train_job" IS NOT NULL;
