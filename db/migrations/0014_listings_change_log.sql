-- Listings API (issue 4): the change log the API's in-memory listing index follows
-- (services/listings/listing-index-sync.ts). Every statement that inserts, deletes or truncates
-- listings, or changes what the list route filters, orders or searches on, logs the listing ids
-- with the writing transaction's id. A reader that remembers the snapshot of its last read asks
-- for the changes its snapshot could not see (xid ≥ its xmax, or in progress then), so a change
-- is never missed whatever order transactions commit in. Rows older than a few minutes are
-- pruned by the readers. Additive only.

CREATE TABLE "listing_changes" (
  "xid" xid8 NOT NULL DEFAULT pg_current_xact_id(),
  -- NULL: every listing may have changed (TRUNCATE): readers reload.
  "listing_id" integer,
  "changed_at" timestamptz NOT NULL DEFAULT clock_timestamp()
);
--> statement-breakpoint
CREATE INDEX "listing_changes_xid_idx" ON "listing_changes" ("xid");
--> statement-breakpoint
CREATE INDEX "listing_changes_changed_at_idx" ON "listing_changes" ("changed_at");
--> statement-breakpoint

CREATE FUNCTION "listing_changes_log_inserted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id") SELECT "id" FROM new_rows;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
-- Only changes to what the index holds: the crawler touching last_seen_at on every unchanged lot,
-- or a new image, costs the readers nothing (cards are read from the table by id).
CREATE FUNCTION "listing_changes_log_updated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id")
  SELECT n."id" FROM new_rows n JOIN old_rows o ON o."id" = n."id"
  WHERE (n."status", n."deal_score", n."price_usd", n."category_id", n."state", n."city", n."auction_end_at", n."search_vector")
    IS DISTINCT FROM (o."status", o."deal_score", o."price_usd", o."category_id", o."state", o."city", o."auction_end_at", o."search_vector");
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION "listing_changes_log_deleted"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id") SELECT "id" FROM old_rows;
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE FUNCTION "listing_changes_log_truncated"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "listing_changes" ("listing_id") VALUES (NULL);
  RETURN NULL;
END;
$$;
--> statement-breakpoint
CREATE TRIGGER "listing_changes_on_insert" AFTER INSERT ON "listings"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listing_changes_log_inserted"();
--> statement-breakpoint
CREATE TRIGGER "listing_changes_on_update" AFTER UPDATE ON "listings"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "listing_changes_log_updated"();
--> statement-breakpoint
CREATE TRIGGER "listing_changes_on_delete" AFTER DELETE ON "listings"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "listing_changes_log_deleted"();
--> statement-breakpoint
CREATE TRIGGER "listing_changes_on_truncate" AFTER TRUNCATE ON "listings"
  FOR EACH STATEMENT EXECUTE FUNCTION "listing_changes_log_truncated"();
