-- geo_distance_miles (migration 0035) answered 12,436 miles — half the Earth's circumference — when
-- a point was NULL: least(1, NULL) is 1 (least ignores NULLs), so asin(1). A distance from or to
-- nowhere is NULL now, as a radius filter or a sort by distance expects (unplaced lots never pass
-- a radius, and sort last). Still one SQL expression, not STRICT, so the planner inlines it (a
-- STRICT SQL function whose body is not strict is not inlined).
CREATE OR REPLACE FUNCTION "geo_distance_miles"(lat1 float8, lon1 float8, lat2 float8, lon2 float8) RETURNS float8
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN lat1 IS NULL OR lon1 IS NULL OR lat2 IS NULL OR lon2 IS NULL THEN NULL
    ELSE floor(2 * 3958.7613 * asin(least(1, sqrt(
      power(sin((lat2 - lat1) * pi() / 180 / 2), 2)
      + cos(lat1 * pi() / 180) * cos(lat2 * pi() / 180) * power(sin((lon2 - lon1) * pi() / 180 / 2), 2)
    ))) * 10 + 0.5) / 10 END
$$;
