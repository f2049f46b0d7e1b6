-- Listings API (issue 4): the list route no longer asks PostgreSQL which listings match or in what
-- order (the API's in-memory listing index does, following the change log of migration 0014), so
-- the indexes built for those queries only cost every crawl and rescore a write each. Dropped:
-- the GIN index on search_vector (the column stays: the index is loaded from it) and the partial
-- sort/filter indexes on open listings. The detail, the crawler and the matcher do not use them.
DROP INDEX IF EXISTS "listings_search_vector_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_score_desc_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_score_asc_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_price_asc_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_price_desc_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_category_score_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_state_idx";
--> statement-breakpoint
DROP INDEX IF EXISTS "listings_open_city_score_idx";
