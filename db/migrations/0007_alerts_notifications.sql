CREATE TABLE "alert_digests" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_digests_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alert_id" integer NOT NULL,
	"day" text NOT NULL,
	"match_count" integer NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"message_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_notifications" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alert_notifications_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"alert_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"listing_id" integer NOT NULL,
	"event" text NOT NULL,
	"event_key" text DEFAULT '' NOT NULL,
	"trigger" text NOT NULL,
	"channel" text NOT NULL,
	"frequency" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"price_usd" numeric(14, 2),
	"deal_score" integer,
	"message_key" text,
	"digest_id" integer,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"id" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "alerts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"user_id" integer NOT NULL,
	"category_id" integer NOT NULL,
	"price_min" integer,
	"price_max" integer,
	"state" text,
	"condition" text,
	"state_key" text GENERATED ALWAYS AS (coalesce(state, '')) STORED NOT NULL,
	"condition_key" text GENERATED ALWAYS AS (coalesce(condition, '')) STORED NOT NULL,
	"delivery_method" text DEFAULT 'email' NOT NULL,
	"frequency" text DEFAULT 'instant' NOT NULL,
	"min_deal_score" integer,
	"keywords" text,
	"keyword_terms" text[],
	"is_active" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sms_opt_outs" (
	"phone" text PRIMARY KEY NOT NULL,
	"keyword" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "alert_digests" ADD CONSTRAINT "alert_digests_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_notifications" ADD CONSTRAINT "alert_notifications_alert_id_alerts_id_fk" FOREIGN KEY ("alert_id") REFERENCES "public"."alerts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_notifications" ADD CONSTRAINT "alert_notifications_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_notifications" ADD CONSTRAINT "alert_notifications_listing_id_listings_id_fk" FOREIGN KEY ("listing_id") REFERENCES "public"."listings"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_notifications" ADD CONSTRAINT "alert_notifications_digest_id_alert_digests_id_fk" FOREIGN KEY ("digest_id") REFERENCES "public"."alert_digests"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_category_id_categories_id_fk" FOREIGN KEY ("category_id") REFERENCES "public"."categories"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_digests_alert_day_key" ON "alert_digests" USING btree ("alert_id","day");--> statement-breakpoint
CREATE UNIQUE INDEX "alert_notifications_event_key" ON "alert_notifications" USING btree ("alert_id","listing_id","event","event_key");--> statement-breakpoint
CREATE INDEX "alert_notifications_user_idx" ON "alert_notifications" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "alert_notifications_pending_idx" ON "alert_notifications" USING btree ("listing_id") WHERE status = 'pending' AND frequency = 'instant';--> statement-breakpoint
CREATE INDEX "alert_notifications_digest_due_idx" ON "alert_notifications" USING btree ("alert_id") WHERE status = 'pending' AND frequency = 'daily';--> statement-breakpoint
CREATE INDEX "alerts_user_idx" ON "alerts" USING btree ("user_id","created_at");--> statement-breakpoint
CREATE INDEX "alerts_active_match_idx" ON "alerts" USING btree ("category_id","state_key","condition_key") WHERE is_active;