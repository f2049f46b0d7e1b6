ALTER TABLE "alert_notifications" DROP CONSTRAINT "alert_notifications_alert_id_alerts_id_fk";
--> statement-breakpoint
ALTER TABLE "alert_notifications" DROP CONSTRAINT "alert_notifications_user_id_users_id_fk";
--> statement-breakpoint
ALTER TABLE "alert_notifications" DROP CONSTRAINT "alert_notifications_listing_id_listings_id_fk";
--> statement-breakpoint
ALTER TABLE "alert_notifications" DROP CONSTRAINT "alert_notifications_digest_id_alert_digests_id_fk";
--> statement-breakpoint
DROP INDEX "alert_notifications_pending_idx";