-- What the deal page says about a valuation (issue 18): "score_reason" is the buyer-facing reason a
-- listing has no deal score ("Not enough sales of this type yet", or that the first model is still
-- being trained), null once scored; "valuation_as_of" is the date whose market and dollars the fair
-- value and the comparables' adjusted prices are in.
ALTER TABLE "listings" ADD COLUMN "score_reason" text;--> statement-breakpoint
ALTER TABLE "listings" ADD COLUMN "valuation_as_of" date;
