CREATE TABLE "model_versions" (
	"version" integer PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "model_versions_version_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 2147483647 START WITH 1 CACHE 1),
	"kind" text DEFAULT 'fair-value' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"training_rows" integer NOT NULL,
	"training_origins" jsonb DEFAULT '{}'::jsonb NOT NULL,
	"training_seconds" double precision NOT NULL,
	"metrics" jsonb NOT NULL,
	"params" jsonb NOT NULL,
	"model_gzip" "bytea" NOT NULL,
	"model_bytes" integer NOT NULL
);
