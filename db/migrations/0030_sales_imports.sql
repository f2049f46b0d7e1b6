-- Sales-history imports as recorded work (issue 29): one row per imported file (the first-start
-- import and `npm run import-sales`), with how far it got. An import stopped part-way (Ctrl-C,
-- SIGTERM, kill -9) is resumed from `rows_done` at the scorer's next start; the first model waits
-- for every import to be complete. While an import runs, its process holds a PostgreSQL advisory
-- lock on the row's id, so a row still saying "importing" without that lock was cut off.
CREATE TABLE IF NOT EXISTS "sales_imports" (
  "id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY,
  "origin" text NOT NULL,
  "file" text NOT NULL,
  "prices_file" text DEFAULT '' NOT NULL,
  "trigger" text NOT NULL,
  "status" text NOT NULL,
  "fingerprint" text DEFAULT '' NOT NULL,
  "rows_done" integer DEFAULT 0 NOT NULL,
  "written" integer DEFAULT 0 NOT NULL,
  "attempts" integer DEFAULT 0 NOT NULL,
  "error" text,
  "started_at" timestamp with time zone DEFAULT now() NOT NULL,
  "updated_at" timestamp with time zone DEFAULT now() NOT NULL,
  "finished_at" timestamp with time zone,
  CONSTRAINT "sales_imports_status_check" CHECK ("status" IN ('importing', 'complete', 'interrupted')),
  CONSTRAINT "sales_imports_trigger_check" CHECK ("trigger" IN ('bootstrap', 'cli'))
);--> statement-breakpoint
CREATE UNIQUE INDEX IF NOT EXISTS "sales_imports_file_key" ON "sales_imports" ("origin", "file", "prices_file");
