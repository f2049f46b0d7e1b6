DROP INDEX "alert_notifications_event_key";--> statement-breakpoint
DROP INDEX "alert_notifications_listing_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "alert_notifications_listing_event_key" ON "alert_notifications" USING btree ("listing_id","alert_id","event","event_key");--> statement-breakpoint
CREATE INDEX "alert_notifications_digest_idx" ON "alert_notifications" USING btree ("digest_id") WHERE digest_id IS NOT NULL;