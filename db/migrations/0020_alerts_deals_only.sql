-- Issue #22: deals only by default. Existing alerts take the defaults (good or better, no unscored lots).
ALTER TABLE "alerts" ADD COLUMN "deal_level" text DEFAULT 'good' NOT NULL;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "include_unscored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The daily cap counts on the alert (UTC day and instant messages kept that day) and marks each
-- notification it has decided, so a rerun neither counts twice nor rescans the day's rows.
ALTER TABLE "alerts" ADD COLUMN "cap_day" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD COLUMN "cap_used" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_notifications" ADD COLUMN "cap_counted" boolean DEFAULT false NOT NULL;
