-- Bid limits (issue 38): the deal score inverted, stored with the score by the scorer (never
-- recomputed per request). "bid_limits" holds what the deal page reads (the Excellent and Good
-- limits, the Poor bid, the bid at market, the premium rate, the hours left they were worked out
-- at and the best level reachable then); "good_bid_limit" is its Good limit as a column, for cards,
-- the listing index's change log and the watchlist. A watch's maximum can follow it
-- ("max_price_follows_good": the scorer moves it on a rescore; a buyer's own maximum stays), and a
-- following watch is notified once when the bid passes it. Additive only.
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "bid_limits" jsonb;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "good_bid_limit" integer;--> statement-breakpoint
ALTER TABLE "watched_lots" ADD COLUMN IF NOT EXISTS "max_price_follows_good" boolean DEFAULT false NOT NULL;--> statement-breakpoint
-- The card's Good limit is on the list's cards: the index follows its changes as it follows the fair
-- value (migration 0041's function, with good_bid_limit added).
CREATE OR REPLACE FUNCTION "listing_changes_log_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id")
  SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE (n."status", n."deal_score", n."price_usd", n."category_id", n."state", n."city", n."auction_end_at", n."search_vector",
         n."slug", n."title", n."make", n."model", n."year", n."price", n."current_bid", n."currency",
         n."first_image_url", n."image_count", n."original_url", n."source_id", n."lat", n."lon", n."geo_precision",
         n."buyers_premium_pct", n."fair_value", n."good_bid_limit")
    IS DISTINCT FROM (o."status", o."deal_score", o."price_usd", o."category_id", o."state", o."city", o."auction_end_at", o."search_vector",
         o."slug", o."title", o."make", o."model", o."year", o."price", o."current_bid", o."currency",
         o."first_image_url", o."image_count", o."original_url", o."source_id", o."lat", o."lon", o."geo_precision",
         o."buyers_premium_pct", o."fair_value", o."good_bid_limit");
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Migration 0040's function: a watch following the Good limit is due once, when the bid first passes
-- it (its limit moves with every rescore; the buyer hears of the crossing once); a buyer's own
-- maximum as before, once per maximum.
CREATE OR REPLACE FUNCTION "watched_lots_listing_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "watched_lots" w SET "due_at" = now(), "updated_at" = now()
  FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE w."listing_id" = n."id"
    AND (w."due_at" IS NULL OR w."due_at" > now())
    AND (n."status" IS DISTINCT FROM o."status"
      OR n."auction_end_at" IS DISTINCT FROM o."auction_end_at"
      OR (w."max_price" IS NOT NULL AND n."price_usd" > w."max_price"
          AND CASE WHEN w."max_price_follows_good" THEN w."price_notice_at" IS NULL
                   ELSE w."price_notice_max" IS DISTINCT FROM w."max_price" END));
  -- The outcome of a lot that just closed, with the valuation it was shown with while open.
  INSERT INTO "lot_outcomes" ("listing_id", "source_id", "status", "auction_end_at", "last_price_usd", "fair_value", "value_low", "value_high", "deal_score", "model_version")
  SELECT n."id", n."source_id", n."status", n."auction_end_at", n."price_usd", o."fair_value", o."value_low", o."value_high", o."deal_score", o."model_version"
  FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE o."status" = 'open' AND n."status" <> 'open'
  ON CONFLICT ("listing_id") DO NOTHING;
  RETURN NULL;
END;
$$;
