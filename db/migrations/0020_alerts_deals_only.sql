-- Issue #22: deals only by default. Existing alerts take the defaults (good or better, no unscored lots).
ALTER TABLE "alerts" ADD COLUMN "deal_level" text DEFAULT 'good' NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "include_unscored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX "alert_notifications_instant_day_idx" ON "alert_notifications" USING btree ("alert_id","created_at") WHERE frequency = 'instant';
