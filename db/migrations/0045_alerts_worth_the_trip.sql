-- Deals "worth the trip" (issue 30): an alert can keep a lot only when its discount under fair
-- value exceeds the estimated haul's high end from the alert's ZIP code (services/valuation/
-- delivered-price.ts `worthTheTrip`; the matcher's SQL and its pure rule agree). It needs the
-- alert's ZIP code to measure the haul from, so an alert with the option but no ZIP code cannot
-- be stored. Existing alerts keep the default (off), so the check holds for every existing row.
ALTER TABLE "alerts" ADD COLUMN IF NOT EXISTS "worth_the_trip" boolean NOT NULL DEFAULT false;
DO $$
BEGIN
  ALTER TABLE "alerts" ADD CONSTRAINT "alerts_worth_the_trip_zip_check" CHECK (NOT "worth_the_trip" OR "near_zip" IS NOT NULL);
EXCEPTION WHEN duplicate_object THEN NULL;
END $$;
