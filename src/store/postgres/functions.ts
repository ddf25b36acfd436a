/**
 * PL/pgSQL functions the migrations install, for decisions that must read a row only after
 * locking another one. In READ COMMITTED every statement of a function takes a fresh snapshot,
 * so what is read after the lock is granted includes everything committed before it; a single
 * statement (CTEs included) would read from a snapshot taken before it waited for the lock.
 * Each function is one round trip. Text shipped in a migration never changes: a later version
 * of a function is a new migration with CREATE OR REPLACE. This file: admission against a key's
 * spend limits, alone and after the rate cap's take (functions-rate.ts); admissions by runs and
 * granted ahead are in functions-runs.ts and functions-grants.ts.
 */

/**
 * Admission against a key's ceiling (LedgerStore.reserve). The key's spend row is locked first
 * (created by the cycle's first admission that could fit), so admissions and settlements of
 * the key queue on it. Then its reservations whose lease ended are dropped and taken off
 * `reserved_nano`, skipping those another transaction is deleting right now (a release or a
 * sweep, which subtracts them itself when it commits: never waiting on a reservation row
 * while holding the spend row, so no deadlock with them). Then the rule, and the reservation.
 * `reservation_id` is NULL when refused; `spent` and `reserved` are the figures decided on.
 */
export const RESERVE_FUNCTION = `
  CREATE FUNCTION gateway_reserve(p_key text, p_cycle text, p_nanos bigint, p_ceiling bigint, p_instance text,
      p_now bigint, p_expires bigint, OUT reservation_id bigint, OUT spent bigint, OUT reserved bigint)
    LANGUAGE plpgsql AS $$
  DECLARE
    freed bigint;
  BEGIN
    SELECT s.charged_nano, s.reserved_nano INTO spent, reserved FROM spend s
      WHERE s.key_id = p_key AND s.cycle = p_cycle FOR UPDATE;
    IF NOT FOUND THEN
      spent := 0;
      reserved := 0;
      IF NOT (0 < p_ceiling AND p_nanos <= p_ceiling) THEN
        RETURN;
      END IF;
      INSERT INTO spend (key_id, cycle, charged_nano, reserved_nano) VALUES (p_key, p_cycle, 0, 0)
        ON CONFLICT (key_id, cycle) DO NOTHING;
      SELECT s.charged_nano, s.reserved_nano INTO spent, reserved FROM spend s
        WHERE s.key_id = p_key AND s.cycle = p_cycle FOR UPDATE;
    END IF;
    WITH gone AS (
      DELETE FROM reservations r WHERE r.id IN (
        SELECT x.id FROM reservations x
        WHERE x.key_id = p_key AND x.cycle = p_cycle AND x.expires_at <= p_now FOR UPDATE SKIP LOCKED)
      RETURNING r.amount_nano)
    SELECT COALESCE(SUM(gone.amount_nano), 0)::bigint INTO freed FROM gone;
    reserved := reserved - freed;
    IF spent < p_ceiling AND spent + reserved + p_nanos <= p_ceiling THEN
      INSERT INTO reservations (key_id, cycle, amount_nano, instance, created_at, expires_at)
        VALUES (p_key, p_cycle, p_nanos, p_instance, p_now, p_expires) RETURNING id INTO reservation_id;
      UPDATE spend s SET reserved_nano = reserved + p_nanos WHERE s.key_id = p_key AND s.cycle = p_cycle;
    ELSIF freed <> 0 THEN
      UPDATE spend s SET reserved_nano = reserved WHERE s.key_id = p_key AND s.cycle = p_cycle;
    END IF;
  END $$;`;

/**
 * Admission against both of a key's monthly limits (LedgerStore.reserve; migration 12, which
 * succeeds gateway_reserve): the same locks in the same order — the key's spend row first
 * (created by the cycle's first admission), then its ended leases dropped with SKIP LOCKED —
 * and the rule of src/store/spend-limits.ts for each limit that is set (NULL: none), on the
 * charged figures and on the upstream ones. `reservation_id` is NULL when refused; the four
 * figures are those decided on (the store names the refusing limits from them).
 */
const ADMIT_SIGNATURE = `gateway_admit(p_key text, p_cycle text, p_nanos bigint, p_upstream bigint, p_ceiling bigint,
      p_upstream_limit bigint, p_instance text, p_now bigint, p_expires bigint,
      OUT reservation_id bigint, OUT spent bigint, OUT reserved bigint, OUT upstream_spent bigint, OUT upstream_reserved bigint)`;

const ADMIT_DECLARATIONS = `
  DECLARE
    freed bigint;
    freed_upstream bigint;
`;

/** Admission under the key's spend row lock, its ended leases dropped first (the body of gateway_admit, migration 12). */
const ADMIT_LOCKED = `
    SELECT s.charged_nano, s.reserved_nano, s.upstream_nano, s.reserved_upstream_nano
      INTO spent, reserved, upstream_spent, upstream_reserved
      FROM spend s WHERE s.key_id = p_key AND s.cycle = p_cycle FOR UPDATE;
    IF NOT FOUND THEN
      INSERT INTO spend (key_id, cycle, charged_nano) VALUES (p_key, p_cycle, 0) ON CONFLICT (key_id, cycle) DO NOTHING;
      SELECT s.charged_nano, s.reserved_nano, s.upstream_nano, s.reserved_upstream_nano
        INTO spent, reserved, upstream_spent, upstream_reserved
        FROM spend s WHERE s.key_id = p_key AND s.cycle = p_cycle FOR UPDATE;
    END IF;
    WITH gone AS (
      DELETE FROM reservations r WHERE r.id IN (
        SELECT x.id FROM reservations x
        WHERE x.key_id = p_key AND x.cycle = p_cycle AND x.expires_at <= p_now FOR UPDATE SKIP LOCKED)
      RETURNING r.amount_nano, r.upstream_nano)
    SELECT COALESCE(SUM(gone.amount_nano), 0)::bigint, COALESCE(SUM(gone.upstream_nano), 0)::bigint INTO freed, freed_upstream FROM gone;
    reserved := reserved - freed;
    upstream_reserved := upstream_reserved - freed_upstream;
    IF (p_ceiling IS NULL OR (spent < p_ceiling AND spent + reserved + p_nanos <= p_ceiling))
        AND (p_upstream_limit IS NULL OR (upstream_spent < p_upstream_limit AND upstream_spent + upstream_reserved + p_upstream <= p_upstream_limit)) THEN
      INSERT INTO reservations (key_id, cycle, amount_nano, upstream_nano, instance, created_at, expires_at)
        VALUES (p_key, p_cycle, p_nanos, p_upstream, p_instance, p_now, p_expires) RETURNING id INTO reservation_id;
      UPDATE spend s SET reserved_nano = reserved + p_nanos, reserved_upstream_nano = upstream_reserved + p_upstream
        WHERE s.key_id = p_key AND s.cycle = p_cycle;
    ELSIF freed <> 0 OR freed_upstream <> 0 THEN
      UPDATE spend s SET reserved_nano = reserved, reserved_upstream_nano = upstream_reserved
        WHERE s.key_id = p_key AND s.cycle = p_cycle;
    END IF;
`;

export const ADMIT_FUNCTION = `
  CREATE FUNCTION ${ADMIT_SIGNATURE}
    LANGUAGE plpgsql AS $$${ADMIT_DECLARATIONS}  BEGIN${ADMIT_LOCKED}  END $$;`;

/**
 * gateway_admit, migration 14: the common case in two statements instead of four. One
 * conditional UPDATE of the key's spend row takes its lock and applies the rule to its newest
 * version (in READ COMMITTED an UPDATE that waited re-checks its WHERE on the version it then
 * locks), with the key's ended leases still counted: whatever fits with them fits without
 * them. Then the reservation. When that UPDATE changes nothing (the cycle's first admission, or
 * a refusal with ended leases counted) the locked path of migration 12 decides, dropping them.
 * Same decisions; ended leases that never stood in the way stay until the sweep takes them.
 */
const ADMIT_FAST = `
    UPDATE spend s SET reserved_nano = s.reserved_nano + p_nanos, reserved_upstream_nano = s.reserved_upstream_nano + p_upstream
      WHERE s.key_id = p_key AND s.cycle = p_cycle
        AND (p_ceiling IS NULL OR (s.charged_nano < p_ceiling AND s.charged_nano + s.reserved_nano + p_nanos <= p_ceiling))
        AND (p_upstream_limit IS NULL OR (s.upstream_nano < p_upstream_limit AND s.upstream_nano + s.reserved_upstream_nano + p_upstream <= p_upstream_limit))
      RETURNING s.charged_nano, s.reserved_nano - p_nanos, s.upstream_nano, s.reserved_upstream_nano - p_upstream
      INTO spent, reserved, upstream_spent, upstream_reserved;
    IF FOUND THEN
      INSERT INTO reservations (key_id, cycle, amount_nano, upstream_nano, instance, created_at, expires_at)
        VALUES (p_key, p_cycle, p_nanos, p_upstream, p_instance, p_now, p_expires) RETURNING id INTO reservation_id;
      RETURN;
    END IF;
`;

export const ADMIT_FUNCTION_2 = `
  CREATE OR REPLACE FUNCTION ${ADMIT_SIGNATURE}
    LANGUAGE plpgsql AS $$${ADMIT_DECLARATIONS}  BEGIN${ADMIT_FAST}${ADMIT_LOCKED}  END $$;`;

/**
 * A call's whole admission when its key has a rate cap and a limit (LedgerStore.reserveAfterTake;
 * migration 14): gateway_rate_take, then gateway_admit only if the take admitted — one round
 * trip where the two plugins' steps would take two. Locks the key's rate counter, then its
 * spend row: for each key that order, as every other batch takes them (counters alone, spend
 * rows alone, or both in this order), so no two transactions wait on each other in a cycle.
 */
/** gateway_take_then_admit's signature and its first step: the rate cap's take, a refusal returned at once. */
const TAKE_THEN_ADMIT_OPENING = `gateway_take_then_admit(p_key text, p_limit integer, p_window bigint, p_take_now bigint,
      p_cycle text, p_nanos bigint, p_upstream bigint, p_ceiling bigint, p_upstream_limit bigint, p_instance text, p_now bigint, p_expires bigint,
      OUT wait bigint, OUT reservation_id bigint, OUT spent bigint, OUT reserved bigint, OUT upstream_spent bigint, OUT upstream_reserved bigint)
    LANGUAGE plpgsql AS $$
  BEGIN
    wait := gateway_rate_take(p_key, p_limit, p_window, p_take_now);
    IF wait > 0 THEN
      RETURN;
    END IF;`;

/** gateway_admit called as a table function: its answer read into the OUT parameters. */
const ADMIT_CALL = `
    SELECT a.reservation_id, a.spent, a.reserved, a.upstream_spent, a.upstream_reserved
      INTO reservation_id, spent, reserved, upstream_spent, upstream_reserved
      FROM gateway_admit(p_key, p_cycle, p_nanos, p_upstream, p_ceiling, p_upstream_limit, p_instance, p_now, p_expires) AS a;`;

export const TAKE_THEN_ADMIT_FUNCTION = `
  CREATE FUNCTION ${TAKE_THEN_ADMIT_OPENING}${ADMIT_CALL}
  END $$;`;

/**
 * gateway_take_then_admit, migration 19: gateway_admit's common case (the conditional UPDATE of
 * the spend row, then the reservation) written inline, so an admitted call runs no nested table
 * function — in PostgreSQL a function called in FROM starts an executor of its own and
 * materialises its row. Otherwise gateway_admit decides, as before (its own conditional UPDATE
 * tries again on the newest row version, then the locked path). Same locks, same order, same
 * decisions; about 5 µs less server CPU per call (docs/performance.md).
 */
export const TAKE_THEN_ADMIT_FUNCTION_2 = `
  CREATE OR REPLACE FUNCTION ${TAKE_THEN_ADMIT_OPENING}${ADMIT_FAST}${ADMIT_CALL}
  END $$;`;
