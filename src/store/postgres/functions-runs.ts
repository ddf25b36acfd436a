/**
 * Admissions decided a run of calls at a time (migration 20): a batch's calls on one key, with the
 * same limits, in one pass over the key's rows instead of one pass per call. The text shipped in
 * the migration never changes (see functions.ts).
 */

/**
 * gateway_admit_runs: every admission of one batch (LedgerStore.reserve and reserveAfterTake),
 * the inputs in lock order (by key, then cycle). A run is a stretch of inputs with the same key,
 * cycle, rate limit and window (both NULL: no rate cap) and ceilings. A run of more than one call,
 * none of them with an amount below zero, is tried at once:
 *
 * 1. with a rate cap whose ring is the limit (the common case, migration 15): the key's counter
 *    moves by the run's length as its row is locked, and every slot the run's calls take must be
 *    free (its admission left the window at that call's time);
 * 2. one conditional UPDATE of the key's spend row adds the run's sums, if the whole run fits
 *    (then every call of it fits where it stands in the run: the amounts are not negative);
 * 3. the slots and the reservations are written set-wise, the reservation ids drawn first so that
 *    each call gets its own.
 *
 * Every other input (a lone call, a refusal, a first admission, a ring of another size; the
 * counter put back if it had moved) is decided by the one-call functions, gateway_take_then_admit
 * or gateway_admit, called per input by a lateral join over a stretch of them, as before this
 * function. The stretches are sent in order, each before the next run is tried: same locks in the
 * same order (a key's counter, then its spend row, key by key), and the same decisions and figures
 * as the calls made one by one (test/process/pg-admission-runs.test.ts compares outputs and tables over
 * random batches). `ord` is the input's position, from 1.
 */
export const ADMIT_RUNS_FUNCTION = `
  CREATE FUNCTION gateway_admit_runs(p_keys text[], p_limits integer[], p_windows bigint[], p_take_nows bigint[],
      p_cycles text[], p_nanos bigint[], p_upstreams bigint[], p_ceilings bigint[], p_upstream_limits bigint[],
      p_instances text[], p_nows bigint[], p_expires bigint[])
    RETURNS TABLE (ord integer, wait bigint, reservation_id bigint, spent bigint, reserved bigint, upstream_spent bigint, upstream_reserved bigint)
    LANGUAGE plpgsql AS $$
  DECLARE
    total integer := cardinality(p_keys);
    -- The run [lo, hi]; inputs from pending on are not decided yet.
    lo integer := 1;
    hi integer;
    pending integer := 1;
    k integer;
    tried boolean;
    n bigint;
    moved boolean;
    counted boolean;
    decided boolean;
    ids bigint[];
    run_nanos bigint;
    run_upstream bigint;
    base_spent bigint;
    base_reserved bigint;
    base_upstream_spent bigint;
    base_upstream_reserved bigint;
  BEGIN
    LOOP
      IF lo <= total THEN
        hi := lo;
        WHILE hi < total AND p_keys[hi + 1] = p_keys[lo] AND p_cycles[hi + 1] = p_cycles[lo]
            AND p_limits[hi + 1] IS NOT DISTINCT FROM p_limits[lo] AND p_windows[hi + 1] IS NOT DISTINCT FROM p_windows[lo]
            AND p_ceilings[hi + 1] IS NOT DISTINCT FROM p_ceilings[lo]
            AND p_upstream_limits[hi + 1] IS NOT DISTINCT FROM p_upstream_limits[lo] LOOP
          hi := hi + 1;
        END LOOP;
        k := hi - lo + 1;
        tried := k > 1 AND (p_limits[lo] IS NULL OR k <= p_limits[lo]) AND 0 <= ALL (p_nanos[lo:hi]) AND 0 <= ALL (p_upstreams[lo:hi]);
      END IF;
      -- The inputs before a run that is tried, or before the end, are decided first, one by one.
      IF (lo > total OR tried) AND pending < lo THEN
        RETURN QUERY SELECT (pending + i.o - 1)::integer, a.wait, a.reservation_id, a.spent, a.reserved, a.upstream_spent, a.upstream_reserved
          FROM unnest(p_keys[pending:lo - 1], p_limits[pending:lo - 1], p_windows[pending:lo - 1], p_take_nows[pending:lo - 1],
              p_cycles[pending:lo - 1], p_nanos[pending:lo - 1], p_upstreams[pending:lo - 1], p_ceilings[pending:lo - 1],
              p_upstream_limits[pending:lo - 1], p_instances[pending:lo - 1], p_nows[pending:lo - 1], p_expires[pending:lo - 1])
            WITH ORDINALITY AS i(key_id, rpm_limit, window_ms, take_now, cycle, nanos, upstream, ceiling, upstream_limit, instance, now, expires, o)
          CROSS JOIN LATERAL (
            SELECT c.wait, c.reservation_id, c.spent, c.reserved, c.upstream_spent, c.upstream_reserved
              FROM gateway_take_then_admit(i.key_id, i.rpm_limit, i.window_ms, i.take_now, i.cycle, i.nanos, i.upstream, i.ceiling,
                i.upstream_limit, i.instance, i.now, i.expires) AS c
              WHERE i.rpm_limit IS NOT NULL
            UNION ALL
            SELECT 0::bigint, d.reservation_id, d.spent, d.reserved, d.upstream_spent, d.upstream_reserved
              FROM gateway_admit(i.key_id, i.cycle, i.nanos, i.upstream, i.ceiling, i.upstream_limit, i.instance, i.now, i.expires) AS d
              WHERE i.rpm_limit IS NULL) AS a;
        pending := lo;
      END IF;
      EXIT WHEN lo > total;
      IF tried THEN
        moved := false;
        counted := true;
        IF p_limits[lo] IS NOT NULL THEN
          UPDATE rate_counters c SET admitted = c.admitted + k WHERE c.key_id = p_keys[lo] AND c.rpm_limit = p_limits[lo]
            RETURNING c.admitted - k INTO n;
          moved := FOUND;
          counted := moved AND NOT EXISTS (SELECT 1 FROM generate_series(0, k - 1) AS t
            JOIN rate_slots s ON s.key_id = p_keys[lo] AND s.slot = ((n + t) % p_limits[lo])::integer
            WHERE s.at + p_windows[lo] > p_take_nows[lo + t]);
        END IF;
        decided := false;
        IF counted THEN
          SELECT SUM(x)::bigint, SUM(y)::bigint INTO run_nanos, run_upstream FROM unnest(p_nanos[lo:hi], p_upstreams[lo:hi]) AS u(x, y);
          UPDATE spend s SET reserved_nano = s.reserved_nano + run_nanos, reserved_upstream_nano = s.reserved_upstream_nano + run_upstream
            WHERE s.key_id = p_keys[lo] AND s.cycle = p_cycles[lo]
              AND (p_ceilings[lo] IS NULL OR (s.charged_nano < p_ceilings[lo] AND s.charged_nano + s.reserved_nano + run_nanos <= p_ceilings[lo]))
              AND (p_upstream_limits[lo] IS NULL OR (s.upstream_nano < p_upstream_limits[lo]
                AND s.upstream_nano + s.reserved_upstream_nano + run_upstream <= p_upstream_limits[lo]))
            RETURNING s.charged_nano, s.reserved_nano - run_nanos, s.upstream_nano, s.reserved_upstream_nano - run_upstream
            INTO base_spent, base_reserved, base_upstream_spent, base_upstream_reserved;
          decided := FOUND;
        END IF;
        IF decided THEN
          IF p_limits[lo] IS NOT NULL THEN
            INSERT INTO rate_slots (key_id, slot, at)
              SELECT p_keys[lo], ((n + t) % p_limits[lo])::integer, p_take_nows[lo + t] FROM generate_series(0, k - 1) AS t
              ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at;
          END IF;
          SELECT array_agg(nextval('reservations_id_seq')) INTO ids FROM generate_series(1, k);
          INSERT INTO reservations (id, key_id, cycle, amount_nano, upstream_nano, instance, created_at, expires_at) OVERRIDING SYSTEM VALUE
            SELECT ids[t + 1], p_keys[lo], p_cycles[lo], p_nanos[lo + t], p_upstreams[lo + t], p_instances[lo + t], p_nows[lo + t], p_expires[lo + t]
              FROM generate_series(0, k - 1) AS t;
          -- Each call's figures are the spend row's as it stood before it: the run's calls before it added.
          RETURN QUERY SELECT (lo + t)::integer, 0::bigint, ids[t + 1], base_spent,
              base_reserved + COALESCE(SUM(p_nanos[lo + t]) OVER before_it, 0)::bigint, base_upstream_spent,
              base_upstream_reserved + COALESCE(SUM(p_upstreams[lo + t]) OVER before_it, 0)::bigint
            FROM generate_series(0, k - 1) AS t WINDOW before_it AS (ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING);
          pending := hi + 1;
        ELSIF moved THEN
          -- Decided one by one after all: the counter back where it stood.
          UPDATE rate_counters c SET admitted = n WHERE c.key_id = p_keys[lo];
        END IF;
      END IF;
      lo := hi + 1;
    END LOOP;
  END $$;`;
