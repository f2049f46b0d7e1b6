-- Deals near you (issue 30): where each lot is. `zip` is the ZIP code its source gives (when it
-- gives one); `lat`/`lon` the place the offline gazetteer found for it (services/shared/geo/) and
-- `geo_precision` how exactly: 'zip', 'city' or 'state' (its centroid), or 'none' when what the
-- source gives places it nowhere (so the backfill does not try it again). NULL: not tried yet —
-- rows stored before this migration; `npm run cli -- geo:backfill` (and the crawler at start)
-- places them.
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "zip" text;
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "lat" double precision;
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "lon" double precision;
ALTER TABLE "listings" ADD COLUMN IF NOT EXISTS "geo_precision" text;

-- The backfill's work list: rows not tried yet (few once it ran).
CREATE INDEX IF NOT EXISTS "listings_geo_untried_idx" ON "listings" ("id") WHERE "geo_precision" IS NULL;

-- The distance every part of the product uses (services/shared/geo/distance.ts, distanceMiles):
-- haversine miles on a sphere of the Earth's mean radius, rounded half up to a tenth of a mile.
CREATE OR REPLACE FUNCTION "geo_distance_miles"(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT floor(2 * 3958.7613 * asin(least(1, sqrt(
      power(sin((lat2 - lat1) * pi() / 180 / 2), 2)
      + cos(lat1 * pi() / 180) * cos(lat2 * pi() / 180) * power(sin((lon2 - lon1) * pi() / 180 / 2), 2)
    ))) * 10 + 0.5) / 10
$$;

-- The list index filters and sorts by place, and a card shows its precision: a change of place is
-- a change the index must follow. Replaces the function of migration 0017; the trigger keeps calling it.
CREATE OR REPLACE FUNCTION "listing_changes_log_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id")
  SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE (n."status", n."deal_score", n."price_usd", n."category_id", n."state", n."city", n."auction_end_at", n."search_vector",
         n."slug", n."title", n."make", n."model", n."year", n."price", n."current_bid", n."currency",
         n."first_image_url", n."image_count", n."original_url", n."source_id", n."lat", n."lon", n."geo_precision")
    IS DISTINCT FROM (o."status", o."deal_score", o."price_usd", o."category_id", o."state", o."city", o."auction_end_at", o."search_vector",
         o."slug", o."title", o."make", o."model", o."year", o."price", o."current_bid", o."currency",
         o."first_image_url", o."image_count", o."original_url", o."source_id", o."lat", o."lon", o."geo_precision");
  RETURN NULL;
END;
$$;
