-- Where the buyer is (issue 30): a US ZIP code on the profile; the dashboard measures distances
-- and the price delivered from it.
ALTER TABLE "users" ADD COLUMN IF NOT EXISTS "zip" text;
