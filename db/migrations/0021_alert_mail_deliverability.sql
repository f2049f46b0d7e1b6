-- Issue #22: mail that reaches the inbox. Headers per message (List-Unsubscribe), addresses
-- suppressed by SendGrid's events, and Twilio's status callback finding a message by its SID.
ALTER TABLE "outbox_messages" ADD COLUMN "headers" jsonb;--> statement-breakpoint
CREATE INDEX "outbox_messages_provider_id_idx" ON "outbox_messages" USING btree ("provider_message_id") WHERE "outbox_messages"."provider_message_id" IS NOT NULL;--> statement-breakpoint
CREATE TABLE "email_suppressions" (
	"email" text PRIMARY KEY NOT NULL,
	"reason" text NOT NULL,
	"detail" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
