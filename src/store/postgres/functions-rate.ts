/**
 * gateway_rate_take and its later versions (migrations 6, 14 and 15): a function for the reason
 * functions.ts gives, a slot read only after the key's counter is locked. Text shipped in a
 * migration never changes.
 */

/**
 * The rate cap's take (RateStore.take; src/store/limits.ts). The key's counter row is locked
 * first (created by its first take), so every instance's takes of the key queue on it; then
 * the slot of admission n − limit is read and, if that admission left the window, overwritten
 * with this one. Until migration 15, a changed limit first moved the newest admissions that fit
 * it into the slots it uses. Answers 0 when admitted, else the milliseconds until a call would be.
 */
const RATE_TAKE_HEADER = `gateway_rate_take(p_key text, p_limit integer, p_window bigint, p_now bigint) RETURNS bigint
    LANGUAGE plpgsql AS $$
  DECLARE
    n bigint;
    old_limit integer;
    moved_slots integer[];
    moved_times bigint[];
    last_at bigint;
`;

/** The newest admissions that fit `p_limit` move into the slots it uses (`n` admissions so far, in slots k % `old_limit`). */
const RATE_SLOTS_MOVE = `
      SELECT array_agg((k % p_limit)::integer), array_agg(s.at) INTO moved_slots, moved_times
        FROM generate_series(n - LEAST(n, old_limit, p_limit), n - 1) AS k
        JOIN rate_slots s ON s.key_id = p_key AND s.slot = (k % old_limit)::integer;
      DELETE FROM rate_slots s WHERE s.key_id = p_key;
      INSERT INTO rate_slots (key_id, slot, at) SELECT p_key, m.slot, m.at FROM unnest(moved_slots, moved_times) AS m(slot, at);
      UPDATE rate_counters c SET rpm_limit = p_limit WHERE c.key_id = p_key;
`;

/** A changed limit moves the slots (migrations 6 and 14; dropped by 15, which never shrinks them). */
const RATE_LIMIT_CHANGE = `
    IF old_limit <> p_limit THEN${RATE_SLOTS_MOVE}    END IF;
`;

export const RATE_TAKE_FUNCTION = `
  CREATE FUNCTION ${RATE_TAKE_HEADER}  BEGIN
    SELECT c.admitted, c.rpm_limit INTO n, old_limit FROM rate_counters c WHERE c.key_id = p_key FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO rate_counters (key_id, admitted, rpm_limit) VALUES (p_key, 0, p_limit) ON CONFLICT (key_id) DO NOTHING;
      SELECT c.admitted, c.rpm_limit INTO n, old_limit FROM rate_counters c WHERE c.key_id = p_key FOR UPDATE;
    END IF;
${RATE_LIMIT_CHANGE}    SELECT s.at INTO last_at FROM rate_slots s WHERE s.key_id = p_key AND s.slot = (n % p_limit)::integer;
    IF last_at IS NOT NULL AND last_at + p_window > p_now THEN
      RETURN last_at + p_window - p_now;
    END IF;
    INSERT INTO rate_slots (key_id, slot, at) VALUES (p_key, (n % p_limit)::integer, p_now)
      ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at;
    UPDATE rate_counters c SET admitted = n + 1 WHERE c.key_id = p_key;
    RETURN 0;
  END $$;`;

/** The key's counter moves to n + 1 as its row is locked (created by its first take); `old_limit`: its rpm_limit. */
const RATE_COUNTER_CLAIM = `    UPDATE rate_counters c SET admitted = c.admitted + 1 WHERE c.key_id = p_key RETURNING c.admitted - 1, c.rpm_limit INTO n, old_limit;
    IF NOT FOUND THEN
      INSERT INTO rate_counters (key_id, admitted, rpm_limit) VALUES (p_key, 0, p_limit) ON CONFLICT (key_id) DO NOTHING;
      UPDATE rate_counters c SET admitted = c.admitted + 1 WHERE c.key_id = p_key RETURNING c.admitted - 1, c.rpm_limit INTO n, old_limit;
    END IF;
`;

/**
 * gateway_rate_take, migration 14: an admitted take in two statements instead of four. The
 * counter moves to n + 1 as its row is locked (UPDATE … RETURNING); the slot of admission
 * n − limit is claimed in one upsert whose WHERE admits only if that admission left the
 * window. A refusal (the rarer case) puts the counter back and reads how long to wait.
 */
export const RATE_TAKE_FUNCTION_2 = `
  CREATE OR REPLACE FUNCTION ${RATE_TAKE_HEADER}  BEGIN
${RATE_COUNTER_CLAIM}${RATE_LIMIT_CHANGE}    INSERT INTO rate_slots AS s (key_id, slot, at) VALUES (p_key, (n % p_limit)::integer, p_now)
      ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at WHERE s.at + p_window <= p_now;
    IF FOUND THEN
      RETURN 0;
    END IF;
    UPDATE rate_counters c SET admitted = n WHERE c.key_id = p_key;
    SELECT s.at INTO last_at FROM rate_slots s WHERE s.key_id = p_key AND s.slot = (n % p_limit)::integer;
    RETURN last_at + p_window - p_now;
  END $$;`;

/**
 * gateway_rate_take, migration 15: the slots never move for a lower limit. The counter's
 * rpm_limit (`old_limit`) is now the ring size, the largest limit a take brought; admission k
 * is in slot k % ring, and a take under a limit L ≤ ring admits iff admission n − L, still in
 * its slot (fewer than `ring` admissions were written since), left the window. So takes that
 * alternate two limits (instances that have and have not yet seen a key edit) keep every
 * admission counted. A larger limit first grows the ring, keeping all it held. When L is the
 * ring (the common case) that slot is the one admission n takes: one conditional upsert, as in
 * migration 14; under a smaller L, a read of that slot and an upsert of slot n % ring.
 */
export const RATE_TAKE_FUNCTION_3 = `
  CREATE OR REPLACE FUNCTION ${RATE_TAKE_HEADER}  BEGIN
${RATE_COUNTER_CLAIM}    IF old_limit < p_limit THEN${RATE_SLOTS_MOVE}    END IF;
    IF old_limit <= p_limit THEN
      INSERT INTO rate_slots AS s (key_id, slot, at) VALUES (p_key, (n % p_limit)::integer, p_now)
        ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at WHERE s.at + p_window <= p_now;
      IF FOUND THEN
        RETURN 0;
      END IF;
      SELECT s.at INTO last_at FROM rate_slots s WHERE s.key_id = p_key AND s.slot = (n % p_limit)::integer;
    ELSE
      SELECT s.at INTO last_at FROM rate_slots s WHERE n >= p_limit AND s.key_id = p_key AND s.slot = ((n - p_limit) % old_limit)::integer;
      IF last_at IS NULL OR last_at + p_window <= p_now THEN
        INSERT INTO rate_slots (key_id, slot, at) VALUES (p_key, (n % old_limit)::integer, p_now)
          ON CONFLICT (key_id, slot) DO UPDATE SET at = EXCLUDED.at;
        RETURN 0;
      END IF;
    END IF;
    UPDATE rate_counters c SET admitted = n WHERE c.key_id = p_key;
    RETURN last_at + p_window - p_now;
  END $$;`;

/**
 * gateway_rate_headroom, migration 28: a key's headroom after its take (RateAnswer in
 * src/store/limits.ts), called in the take's own statement after it (a lateral join on its
 * answer), so it reads the counter and slots as the take left them; the same binary search as
 * SqliteRateStore.headroom: the first of admissions n − limit … n − 1 still in the window (their
 * times rise with their numbers) has that many calls of room before it, and leaves the window
 * when the remaining count next rises. A refusal answers 0 and its wait.
 */
export const RATE_HEADROOM_FUNCTION = `
  CREATE FUNCTION gateway_rate_headroom(p_key text, p_limit integer, p_window bigint, p_now bigint, p_wait bigint,
      OUT remaining bigint, OUT reset bigint)
    LANGUAGE plpgsql AS $$
  DECLARE
    n bigint;
    ring integer;
    low bigint;
    high bigint;
    middle bigint;
    at_time bigint;
  BEGIN
    IF p_limit IS NULL THEN
      RETURN;
    END IF;
    IF p_wait > 0 THEN
      remaining := 0;
      reset := p_wait;
      RETURN;
    END IF;
    SELECT c.admitted, c.rpm_limit INTO n, ring FROM rate_counters c WHERE c.key_id = p_key;
    low := GREATEST(0, n - p_limit);
    high := n;
    WHILE low < high LOOP
      middle := (low + high) / 2;
      SELECT s.at INTO at_time FROM rate_slots s WHERE s.key_id = p_key AND s.slot = (middle % ring)::integer;
      IF FOUND AND at_time + p_window > p_now THEN
        high := middle;
      ELSE
        low := middle + 1;
      END IF;
    END LOOP;
    remaining := low - (n - p_limit);
    reset := 0;
    IF low < n THEN
      SELECT s.at + p_window - p_now INTO reset FROM rate_slots s WHERE s.key_id = p_key AND s.slot = (low % ring)::integer;
    END IF;
  END $$;`;
