-- A city names about 1% of the listings: the default order over a city's listings should come off
-- one index instead of walking the whole score index filtering by city (48 ms at 1M rows).
DROP INDEX IF EXISTS "listings_open_city_idx";
--> statement-breakpoint
CREATE INDEX "listings_open_city_score_idx" ON "listings" (lower("city"), "deal_score" DESC NULLS LAST, "id") INCLUDE ("auction_end_at", "state", "price_usd") WHERE "status" = 'open';
