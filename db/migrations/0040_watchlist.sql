-- Issue 31: watch a lot to its close. A buyer's watched lots with their reminder settings and the
-- state of each notice sent; `due_at` is when the watchlist dispatcher next looks at the row (the
-- reminder's time, or "now" when the listing changed in a way that may call for a notice), so one
-- indexed query finds what is due however many lots are watched. Closed lots' outcomes (final
-- price vs the fair value and deal score shown while open) are kept for every lot, watched or not.
-- Additive only.
CREATE TABLE IF NOT EXISTS "watched_lots" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"listing_id" integer NOT NULL REFERENCES "listings"("id") ON DELETE CASCADE,
	"remind_before_minutes" integer DEFAULT 60 NOT NULL,
	"max_price" numeric(14, 2),
	"delivery_method" text DEFAULT 'email' NOT NULL,
	"notify" boolean DEFAULT true NOT NULL,
	"due_at" timestamp with time zone,
	"reminder_end_at" timestamp with time zone,
	"reminder_sent_at" timestamp with time zone,
	"price_notice_max" numeric(14, 2),
	"price_notice_at" timestamp with time zone,
	"closed_notice_at" timestamp with time zone,
	"gone_notice_at" timestamp with time zone,
	"last_notice_error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "watched_lots_remind_before_check" CHECK ("remind_before_minutes" IN (15, 60, 180, 1440)),
	CONSTRAINT "watched_lots_delivery_method_check" CHECK ("delivery_method" IN ('email', 'sms'))
);
--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "watched_lots_user_listing_key" ON "watched_lots" ("user_id", "listing_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "watched_lots_listing_idx" ON "watched_lots" ("listing_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "watched_lots_due_idx" ON "watched_lots" ("due_at") WHERE "due_at" IS NOT NULL;
--> statement-breakpoint
-- The per-user daily cap of watchlist messages (UTC day).
CREATE TABLE IF NOT EXISTS "watch_notice_days" (
	"user_id" integer NOT NULL REFERENCES "users"("id") ON DELETE CASCADE,
	"day" text NOT NULL,
	"email_used" integer DEFAULT 0 NOT NULL,
	"sms_used" integer DEFAULT 0 NOT NULL,
	PRIMARY KEY ("user_id", "day")
);
--> statement-breakpoint
CREATE TABLE IF NOT EXISTS "lot_outcomes" (
	"listing_id" integer PRIMARY KEY NOT NULL REFERENCES "listings"("id") ON DELETE CASCADE,
	"source_id" integer NOT NULL,
	"status" text NOT NULL,
	"closed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"auction_end_at" timestamp with time zone,
	"last_price_usd" numeric(14, 2),
	"fair_value" numeric(14, 2),
	"value_low" numeric(14, 2),
	"value_high" numeric(14, 2),
	"deal_score" integer,
	"model_version" integer
);
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "lot_outcomes_closed_at_idx" ON "lot_outcomes" ("closed_at");
--> statement-breakpoint
-- A listing's status, end time or price changed: its watched rows are due now (the dispatcher
-- decides what, if anything, to send, and when to look again). Only rows that may need a notice
-- are touched, so a crawl refreshing prices costs nothing where no maximum is passed.
CREATE OR REPLACE FUNCTION "watched_lots_listing_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "watched_lots" w SET "due_at" = now(), "updated_at" = now()
  FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE w."listing_id" = n."id"
    AND (w."due_at" IS NULL OR w."due_at" > now())
    AND (n."status" IS DISTINCT FROM o."status"
      OR n."auction_end_at" IS DISTINCT FROM o."auction_end_at"
      OR (w."max_price" IS NOT NULL AND n."price_usd" > w."max_price" AND w."price_notice_max" IS DISTINCT FROM w."max_price"));
  -- The outcome of a lot that just closed, with the valuation it was shown with while open.
  INSERT INTO "lot_outcomes" ("listing_id", "source_id", "status", "auction_end_at", "last_price_usd", "fair_value", "value_low", "value_high", "deal_score", "model_version")
  SELECT n."id", n."source_id", n."status", n."auction_end_at", n."price_usd", o."fair_value", o."value_low", o."value_high", o."deal_score", o."model_version"
  FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE o."status" = 'open' AND n."status" <> 'open'
  ON CONFLICT ("listing_id") DO NOTHING;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
DROP TRIGGER IF EXISTS "watched_lots_on_listing_update" ON "listings";
--> statement-breakpoint
CREATE TRIGGER "watched_lots_on_listing_update" AFTER UPDATE ON "listings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "watched_lots_listing_changed"();
