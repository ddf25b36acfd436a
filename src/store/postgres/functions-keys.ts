/**
 * Every change of a key or of its values notifies the keys' channel when its transaction
 * commits (key-listener.ts): each instance then forgets the key lookups it remembered. Per
 * statement, and PostgreSQL folds identical notifications of one transaction into one.
 */
export const KEYS_CHANNEL = 'gateway_keys';

export const KEYS_CHANGED_TRIGGERS = `
  CREATE FUNCTION gateway_keys_changed() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    PERFORM pg_notify('${KEYS_CHANNEL}', '');
    RETURN NULL;
  END $$;
  CREATE TRIGGER keys_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON keys
    FOR EACH STATEMENT EXECUTE FUNCTION gateway_keys_changed();
  CREATE TRIGGER key_values_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON key_values
    FOR EACH STATEMENT EXECUTE FUNCTION gateway_keys_changed();`;
