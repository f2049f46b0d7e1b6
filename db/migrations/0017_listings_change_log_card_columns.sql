-- Listings API (issue 4): the API processes now keep the cards of recently listed listings in
-- memory (services/listings/card-cache.ts), so the change log also records changes to what a card
-- shows (title, make/model/year, prices, current bid, currency, first image and image count, link,
-- slug, source). The crawler touching only last_seen_at still logs nothing. Replaces the function
-- of migration 0014; the trigger keeps calling it.
CREATE OR REPLACE FUNCTION "listing_changes_log_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id")
  SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE (n."status", n."deal_score", n."price_usd", n."category_id", n."state", n."city", n."auction_end_at", n."search_vector",
         n."slug", n."title", n."make", n."model", n."year", n."price", n."current_bid", n."currency",
         n."first_image_url", n."image_count", n."original_url", n."source_id")
    IS DISTINCT FROM (o."status", o."deal_score", o."price_usd", o."category_id", o."state", o."city", o."auction_end_at", o."search_vector",
         o."slug", o."title", o."make", o."model", o."year", o."price", o."current_bid", o."currency",
         o."first_image_url", o."image_count", o."original_url", o."source_id");
  RETURN NULL;
END;
$$;
