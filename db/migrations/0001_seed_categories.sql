-- The spec's ten equipment types (§9), then Other. Fixed ids: ?category=N means the same everywhere.
INSERT INTO "categories" ("id", "name", "slug", "position") VALUES
  (1, 'Excavators', 'excavators', 1),
  (2, 'Bulldozers', 'bulldozers', 2),
  (3, 'Wheel Loaders', 'wheel-loaders', 3),
  (4, 'Backhoe Loaders', 'backhoe-loaders', 4),
  (5, 'Skid Steers', 'skid-steers', 5),
  (6, 'Cranes', 'cranes', 6),
  (7, 'Dump Trucks', 'dump-trucks', 7),
  (8, 'Generators', 'generators', 8),
  (9, 'Compactors', 'compactors', 9),
  (10, 'Graders', 'graders', 10),
  (11, 'Other', 'other', 11)
ON CONFLICT ("id") DO NOTHING;
