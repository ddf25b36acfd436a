/**
 * Admissions granted ahead of their calls (migration 22; src/store/granted-admissions.ts): an
 * instance that admits many calls of one kind takes a few admissions at once, in the background,
 * and hands them to its next calls without a round trip. The text shipped in the migration never
 * changes (see functions.ts).
 */

/**
 * gateway_grant: up to `p_count` admissions of one key, each a rate-cap take and a reservation
 * (either may be absent: NULL limit; both ceilings NULL), as the one-call functions would make
 * them, granted only while the key keeps wide headroom.
 *
 * - Locks: the key's rate counter, then its spend row, as every admission does; both must exist
 *   (the key's first calls go one by one).
 * - Money: the grant and `p_spare` calls more of the same amounts must fit every limit that is set
 *   (spent < limit and spent + reserved + (count + spare) × amount ≤ limit), checked once under
 *   the row lock: nothing is taken when they do not, so a refused grant leaves no trace.
 * - Rate cap, set-wise: the counter moves by `p_count` as its row is locked; granted admission
 *   n + j is allowed iff admission n + j − L' left the window, L' being the limit less `p_spare`
 *   (so the last `p_spare` places of any window are never granted; L' must be at least `p_count`,
 *   so that admission is never one of the grant's own): the slot that admission is in
 *   (the ring is at least L', else nothing is granted) holds a time at most `p_now − window`, or
 *   nothing. The first admission not allowed ends the grant (the counter is put back to it). The
 *   granted slots are stamped `p_now + p_lead`, when the grant's unused admissions end: one used
 *   any time before is counted as if made at that end, so no 60 s ever holds more than the limit,
 *   whichever instance made which admission.
 * - Answers one row per admission granted: its reservation's id, NULL when no money limit is set.
 */
export const GRANT_FUNCTION = `
  CREATE FUNCTION gateway_grant(p_key text, p_limit integer, p_window bigint, p_lead bigint,
      p_cycle text, p_nanos bigint, p_upstream bigint, p_ceiling bigint, p_upstream_limit bigint,
      p_instance text, p_now bigint, p_expires bigint, p_count integer, p_spare integer)
    RETURNS TABLE (reservation_id bigint)
    LANGUAGE plpgsql AS $$
  DECLARE
    held boolean := p_ceiling IS NOT NULL OR p_upstream_limit IS NOT NULL;
    granted integer := p_count;
    allowed integer := p_limit - p_spare;
    n bigint;
    ring integer;
    spent bigint;
    reserved bigint;
    upstream_spent bigint;
    upstream_reserved bigint;
  BEGIN
    IF p_count < 1 OR p_spare < 0 OR p_nanos < 0 OR p_upstream < 0 OR (p_limit IS NULL AND NOT held) OR (p_limit IS NOT NULL AND allowed < p_count) THEN
      RETURN;
    END IF;
    IF p_limit IS NOT NULL THEN
      UPDATE rate_counters c SET admitted = c.admitted + p_count WHERE c.key_id = p_key
        RETURNING c.admitted - p_count, c.rpm_limit INTO n, ring;
      IF NOT FOUND THEN
        RETURN;
      END IF;
      IF ring < allowed THEN
        granted := 0;
      ELSE
        SELECT COALESCE(MIN(j), p_count) INTO granted FROM generate_series(0, p_count - 1) AS j
          JOIN rate_slots s ON s.key_id = p_key AND s.slot = ((n + j - allowed) % ring)::integer
          WHERE n + j >= allowed AND s.at + p_window > p_now;
      END IF;
      IF granted < p_count THEN
        UPDATE rate_counters c SET admitted = n + granted WHERE c.key_id = p_key;
      END IF;
      IF granted = 0 THEN
        RETURN;
      END IF;
    END IF;
    IF held THEN
      SELECT s.charged_nano, s.reserved_nano, s.upstream_nano, s.reserved_upstream_nano
        INTO spent, reserved, upstream_spent, upstream_reserved
        FROM spend s WHERE s.key_id = p_key AND s.cycle = p_cycle FOR UPDATE;
      IF NOT FOUND OR NOT ((p_ceiling IS NULL OR (spent < p_ceiling AND spent + reserved + (p_count + p_spare) * p_nanos <= p_ceiling))
          AND (p_upstream_limit IS NULL OR (upstream_spent < p_upstream_limit
            AND upstream_spent + upstream_reserved + (p_count + p_spare) * p_upstream <= p_upstream_limit))) THEN
        IF p_limit IS NOT NULL THEN
          UPDATE rate_counters c SET admitted = n WHERE c.key_id = p_key;
        END IF;
        RETURN;
      END IF;
    END IF;
    IF p_limit IS NOT NULL THEN
      INSERT INTO rate_slots AS s (key_id, slot, at)
        SELECT p_key, ((n + j) % ring)::integer, p_now + p_lead FROM generate_series(0, granted - 1) AS j
        ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at;
    END IF;
    IF NOT held THEN
      RETURN QUERY SELECT NULL::bigint FROM generate_series(1, granted);
      RETURN;
    END IF;
    UPDATE spend s SET reserved_nano = s.reserved_nano + granted * p_nanos, reserved_upstream_nano = s.reserved_upstream_nano + granted * p_upstream
      WHERE s.key_id = p_key AND s.cycle = p_cycle;
    RETURN QUERY INSERT INTO reservations (key_id, cycle, amount_nano, upstream_nano, instance, created_at, expires_at)
      SELECT p_key, p_cycle, p_nanos, p_upstream, p_instance, p_now, p_expires FROM generate_series(1, granted) RETURNING id;
  END $$;`;
