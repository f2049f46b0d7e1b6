CREATE TABLE "crawl_errors" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "crawl_errors_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"run_id" integer,
	"source_id" integer NOT NULL,
	"url" text,
	"kind" text NOT NULL,
	"status_code" integer,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "crawl_run_steps" (
	"run_id" integer NOT NULL,
	"step_key" text NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	CONSTRAINT "crawl_run_steps_run_id_step_key_pk" PRIMARY KEY("run_id","step_key")
);
--> statement-breakpoint
CREATE TABLE "crawl_runs" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "crawl_runs_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"source_id" integer NOT NULL,
	"reason" text NOT NULL,
	"trigger_key" text NOT NULL,
	"state" text DEFAULT 'running' NOT NULL,
	"outcome" text,
	"dry_run" boolean DEFAULT false NOT NULL,
	"lot_limit" integer,
	"lots_queued" integer DEFAULT 0 NOT NULL,
	"steps_total" integer DEFAULT 0 NOT NULL,
	"pending_steps" integer DEFAULT 0 NOT NULL,
	"pages" integer DEFAULT 0 NOT NULL,
	"lots_new" integer DEFAULT 0 NOT NULL,
	"lots_updated" integer DEFAULT 0 NOT NULL,
	"lots_unchanged" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"blocked" boolean DEFAULT false NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "host_leases" (
	"host" text NOT NULL,
	"lease_id" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "host_leases_host_lease_id_pk" PRIMARY KEY("host","lease_id")
);
--> statement-breakpoint
CREATE TABLE "host_politeness" (
	"host" text PRIMARY KEY NOT NULL,
	"min_delay_ms" integer NOT NULL,
	"max_concurrency" integer NOT NULL,
	"next_allowed_at" timestamp with time zone DEFAULT now() NOT NULL,
	"backoff_until" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "robots_cache" (
	"origin" text PRIMARY KEY NOT NULL,
	"status_code" integer,
	"body" text DEFAULT '' NOT NULL,
	"policy" text NOT NULL,
	"fetched_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone DEFAULT now() + interval '1 day' NOT NULL
);
--> statement-breakpoint
ALTER TABLE "crawl_errors" ADD CONSTRAINT "crawl_errors_run_id_crawl_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."crawl_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crawl_errors" ADD CONSTRAINT "crawl_errors_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crawl_run_steps" ADD CONSTRAINT "crawl_run_steps_run_id_crawl_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."crawl_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "crawl_runs" ADD CONSTRAINT "crawl_runs_source_id_sources_id_fk" FOREIGN KEY ("source_id") REFERENCES "public"."sources"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "host_leases" ADD CONSTRAINT "host_leases_host_host_politeness_host_fk" FOREIGN KEY ("host") REFERENCES "public"."host_politeness"("host") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "crawl_errors_source_time_idx" ON "crawl_errors" USING btree ("source_id","created_at");--> statement-breakpoint
CREATE INDEX "crawl_errors_run_idx" ON "crawl_errors" USING btree ("run_id");--> statement-breakpoint
CREATE UNIQUE INDEX "crawl_runs_source_trigger_key" ON "crawl_runs" USING btree ("source_id","trigger_key");--> statement-breakpoint
CREATE INDEX "crawl_runs_source_started_idx" ON "crawl_runs" USING btree ("source_id","started_at");