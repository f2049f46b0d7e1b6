-- Listings API (issue 4): full-text search with typo tolerance, and indexes for the list route.
-- Additive only: one generated column, one small lexicon table, indexes. No column renamed or dropped.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
--> statement-breakpoint

-- Ranked full-text search. make/model use the 'simple' configuration (model codes such as 310SJ
-- must not be stemmed) and weigh most; title and the first 4,000 characters of the description use
-- 'english' so plurals and word forms match ("excavators" finds "excavator").
ALTER TABLE "listings" ADD COLUMN "search_vector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('simple'::regconfig, coalesce("make", '') || ' ' || coalesce("model", '')), 'A')
  || setweight(to_tsvector('english'::regconfig, coalesce("title", '')), 'B')
  || setweight(to_tsvector('english'::regconfig, left(coalesce("description", ''), 4000)), 'C')
) STORED;
--> statement-breakpoint
CREATE INDEX "listings_search_vector_idx" ON "listings" USING gin ("search_vector");
--> statement-breakpoint

-- The words that occur in makes and models. Search corrects small typos ("catterpillar") by
-- looking a query word up here by trigram similarity: a few thousand rows instead of a million,
-- as the pg_trgm documentation recommends for spelling suggestions.
CREATE TABLE "listing_search_terms" (
  "term" text PRIMARY KEY
);
--> statement-breakpoint
CREATE INDEX "listing_search_terms_trgm_idx" ON "listing_search_terms" USING gin ("term" gin_trgm_ops);
--> statement-breakpoint

CREATE FUNCTION "listing_search_terms_collect"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_search_terms" ("term")
  SELECT DISTINCT t.word
  FROM new_rows r,
       LATERAL unnest(tsvector_to_array(to_tsvector('simple'::regconfig, coalesce(r."make", '') || ' ' || coalesce(r."model", '')))) AS t(word)
  WHERE length(t.word) BETWEEN 2 AND 40
  ON CONFLICT ("term") DO NOTHING;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Statement-level with a transition table: one INSERT … SELECT DISTINCT per statement, so bulk
-- upserts by the crawler and the seeder's COPY pay once, not once per row.
CREATE TRIGGER "listings_search_terms_on_insert" AFTER INSERT ON "listings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listing_search_terms_collect"();
--> statement-breakpoint
CREATE TRIGGER "listings_search_terms_on_update" AFTER UPDATE ON "listings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listing_search_terms_collect"();
--> statement-breakpoint
INSERT INTO "listing_search_terms" ("term")
SELECT DISTINCT t.word
FROM "listings" r,
     LATERAL unnest(tsvector_to_array(to_tsvector('simple'::regconfig, coalesce(r."make", '') || ' ' || coalesce(r."model", '')))) AS t(word)
WHERE length(t.word) BETWEEN 2 AND 40
ON CONFLICT ("term") DO NOTHING;
--> statement-breakpoint

-- The list route shows open listings in one of four orders, each total (id breaks ties, missing
-- values last). One partial index per order lets the first pages come straight off an index;
-- INCLUDE auction_end_at lets the "not yet ended" check and deep OFFSETs run index-only.
CREATE INDEX "listings_open_score_desc_idx" ON "listings" ("deal_score" DESC NULLS LAST, "id") INCLUDE ("auction_end_at") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "listings_open_score_asc_idx" ON "listings" ("deal_score" ASC NULLS LAST, "id") INCLUDE ("auction_end_at") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "listings_open_price_asc_idx" ON "listings" ("price_usd" ASC NULLS LAST, "id") INCLUDE ("auction_end_at") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "listings_open_price_desc_idx" ON "listings" ("price_usd" DESC NULLS LAST, "id") INCLUDE ("auction_end_at") WHERE "status" = 'open';
--> statement-breakpoint
-- Category with the default order is the dashboard's most common filtered view.
CREATE INDEX "listings_open_category_score_idx" ON "listings" ("category_id", "deal_score" DESC NULLS LAST, "id") INCLUDE ("auction_end_at", "price_usd") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "listings_open_state_idx" ON "listings" ("state", "category_id", "price_usd") INCLUDE ("auction_end_at") WHERE "status" = 'open';
--> statement-breakpoint
CREATE INDEX "listings_open_city_idx" ON "listings" (lower("city"), "state") WHERE "status" = 'open';
