-- Sources that survive a redesign (issue 21): two more source statuses, "layout-changed" (pages
-- that should hold listings stopped yielding any: parse failures, or a content page with none)
-- and "login-required" (the site answered with a login wall), each stored with what the
-- operator needs to act: the parser's or fetcher's message and the failing URLs. The source keeps
-- its listings and its schedule; only its status says what is wrong.
ALTER TABLE "sources" ADD COLUMN "status_message" text;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "status_urls" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "sources" ADD COLUMN "status_since" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "sources" ADD CONSTRAINT "sources_status_check" CHECK ("status" IN ('unknown', 'ok', 'empty', 'blocked', 'error', 'layout-changed', 'login-required'));
