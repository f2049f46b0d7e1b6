-- Alerts by distance (issue 30): "within N miles of ZIP", beside or instead of a state. The ZIP
-- code as the user gave it and its point (from the gazetteer, fixed when the alert is saved, so
-- matching needs no lookup); `radius_miles` NULL with a ZIP code: no distance filter, but the
-- alert's messages carry the price delivered to that ZIP code.
ALTER TABLE "alerts" ADD COLUMN IF NOT EXISTS "near_zip" text;
ALTER TABLE "alerts" ADD COLUMN IF NOT EXISTS "near_lat" double precision;
ALTER TABLE "alerts" ADD COLUMN IF NOT EXISTS "near_lon" double precision;
ALTER TABLE "alerts" ADD COLUMN IF NOT EXISTS "radius_miles" integer;
