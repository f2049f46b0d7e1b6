-- Deals near you (issue 30): the list filters and sorts by the price delivered (the stated buyer's
-- premium is part of it) and keeps lots "worth the trip" (the fair value is part of it), so the
-- listing index must follow a change of either. Replaces the function of migration 0035 with the
-- same columns plus these two; the trigger keeps calling it.
CREATE OR REPLACE FUNCTION "listing_changes_log_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id")
  SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE (n."status", n."deal_score", n."price_usd", n."category_id", n."state", n."city", n."auction_end_at", n."search_vector",
         n."slug", n."title", n."make", n."model", n."year", n."price", n."current_bid", n."currency",
         n."first_image_url", n."image_count", n."original_url", n."source_id", n."lat", n."lon", n."geo_precision",
         n."buyers_premium_pct", n."fair_value")
    IS DISTINCT FROM (o."status", o."deal_score", o."price_usd", o."category_id", o."state", o."city", o."auction_end_at", o."search_vector",
         o."slug", o."title", o."make", o."model", o."year", o."price", o."current_bid", o."currency",
         o."first_image_url", o."image_count", o."original_url", o."source_id", o."lat", o."lon", o."geo_precision",
         o."buyers_premium_pct", o."fair_value");
  RETURN NULL;
END;
$$;
