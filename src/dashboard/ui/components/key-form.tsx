import { useState } from 'preact/hooks';
import { ApiError, type ModelInfo } from '../api.js';
import type { KeyView } from '../types.js';
import { ErrorNote } from './error-note.js';
import { ModelPicker } from './model-picker.js';

/** The create and edit form of a key: name, allowlist, monthly ceiling, upstream cost limit, rate cap, response cache ttl, expiry. */

export interface KeyFormValue {
  name: string;
  models: string[] | null;
  ceiling: string;
  upstreamLimit: string;
  /** Requests per minute; empty: the rate-limit plugin's default; 0: exempt. */
  rpm: string;
  /** Seconds the response cache keeps the key's answers; empty or 0: off. */
  cacheTtl: string;
  expires: string;
}

/** `datetime-local` has no zone: the form speaks UTC and says so. */
const toUtcIso = (local: string): string | null => (local ? `${local}:00Z` : null);
const toLocalInput = (iso: string | null): string => (iso ? iso.slice(0, 16) : '');

export function KeyForm({
  initial,
  models,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: KeyFormValue;
  models: ModelInfo[];
  submitLabel: string;
  onSubmit: (value: KeyFormValue) => Promise<void>;
  onCancel: () => void;
}) {
  const [value, setValue] = useState(initial);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await onSubmit(value);
    } catch (e) {
      setError(e instanceof ApiError ? e : new ApiError(0, String(e), null));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={(event) => void submit(event)} class="stack">
      <label>
        Name
        <input required maxLength={200} value={value.name} onInput={(e) => setValue({ ...value, name: e.currentTarget.value })} />
      </label>
      <ModelPicker models={models} value={value.models} onChange={(v) => setValue({ ...value, models: v })} />
      <label>
        Monthly spend ceiling in US dollars (empty for none)
        <input
          inputMode="decimal"
          pattern="\d+(\.\d{1,9})?"
          placeholder="50.00"
          value={value.ceiling}
          onInput={(e) => setValue({ ...value, ceiling: e.currentTarget.value })}
        />
      </label>
      <label>
        Monthly upstream cost limit in US dollars, at the vendors' list prices (empty for none)
        <input
          inputMode="decimal"
          pattern="\d+(\.\d{1,9})?"
          placeholder="100.00"
          value={value.upstreamLimit}
          onInput={(e) => setValue({ ...value, upstreamLimit: e.currentTarget.value })}
        />
      </label>
      <label>
        Rate cap in requests per minute (empty for the default, 0 for none)
        <input inputMode="numeric" placeholder="600" value={value.rpm} onInput={(e) => setValue({ ...value, rpm: e.currentTarget.value })} />
      </label>
      <label>
        Response cache: seconds to keep answers, up to 86400 (empty or 0 for off)
        <input inputMode="numeric" placeholder="300" value={value.cacheTtl} onInput={(e) => setValue({ ...value, cacheTtl: e.currentTarget.value })} />
      </label>
      <label>
        Expires (UTC, optional)
        <input type="datetime-local" value={value.expires} onInput={(e) => setValue({ ...value, expires: e.currentTarget.value })} />
      </label>
      <ErrorNote message={error?.message ?? null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** Empty: null. Anything but digits goes as typed, for the admin API's 400 naming the field (`rpm_limit`, `cache_ttl_s`: never a silent NaN → null). */
const wholeOf = (text: string): number | string | null => (text === '' ? null : /^\d+$/.test(text) ? Number(text) : text);

/** The form as it starts for a key (empty for a new one). */
export const formValueOf = (key: KeyView | null): KeyFormValue => ({
  name: key?.name ?? '',
  models: key ? key.models : null,
  ceiling: key?.monthly_ceiling_usd ?? '',
  upstreamLimit: key?.monthly_upstream_limit_usd ?? '',
  rpm: key && key.rpm_limit !== null ? String(key.rpm_limit) : '',
  cacheTtl: key && key.cache_ttl_s !== null ? String(key.cache_ttl_s) : '',
  expires: toLocalInput(key?.expires_at ?? null),
});

export const formBody = (value: KeyFormValue) => ({
  name: value.name,
  models: value.models,
  monthly_ceiling_usd: value.ceiling.trim() || null,
  monthly_upstream_limit_usd: value.upstreamLimit.trim() || null,
  rpm_limit: wholeOf(value.rpm.trim()),
  cache_ttl_s: wholeOf(value.cacheTtl.trim()),
  expires_at: toUtcIso(value.expires),
});
