import { useState } from 'preact/hooks';
import { ApiError, type ModelInfo } from '../api.js';
import { ErrorNote } from './error-note.js';
import { ModelPicker } from './model-picker.js';

/** The create and edit form of a key: name, allowlist, monthly ceiling, expiry, rate cap. */

export interface KeyFormValue {
  name: string;
  models: string[] | null;
  ceiling: string;
  expires: string;
}

/** `datetime-local` has no zone: the form speaks UTC and says so. */
const toUtcIso = (local: string): string | null => (local ? `${local}:00Z` : null);
export const toLocalInput = (iso: string | null): string => (iso ? iso.slice(0, 16) : '');

export function KeyForm({ initial, models, submitLabel, onSubmit, onCancel }: {
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
    <form onSubmit={submit} class="stack">
      <label>
        Name
        <input required maxLength={200} value={value.name} onInput={(e) => setValue({ ...value, name: (e.currentTarget as HTMLInputElement).value })} />
      </label>
      <ModelPicker models={models} value={value.models} onChange={(v) => setValue({ ...value, models: v })} />
      <label>
        Monthly spend ceiling in US dollars (empty for none)
        <input inputMode="decimal" pattern="\d+(\.\d{1,9})?" placeholder="50.00" value={value.ceiling} onInput={(e) => setValue({ ...value, ceiling: (e.currentTarget as HTMLInputElement).value })} />
      </label>
      <label>
        Expires (UTC, optional)
        <input type="datetime-local" value={value.expires} onInput={(e) => setValue({ ...value, expires: (e.currentTarget as HTMLInputElement).value })} />
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

export const formBody = (value: KeyFormValue) => ({
  name: value.name,
  models: value.models,
  monthly_ceiling_usd: value.ceiling.trim() || null,
  expires_at: toUtcIso(value.expires),
});
