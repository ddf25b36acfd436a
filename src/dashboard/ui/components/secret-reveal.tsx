import { useState } from 'preact/hooks';

/** A freshly minted secret, shown once with a copy button and a plain warning. */
export function SecretReveal({ label, value, note }: { label: string; value: string; note?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    // The clipboard is undefined outside a secure context (the dashboard over plain HTTP on another host).
    await (navigator.clipboard as Clipboard | undefined)?.writeText(value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <div class="secret" role="status">
      <p class="warning">
        <strong>You will not see this again.</strong> Copy the key now and store it safely.
      </p>
      <label>
        {label}
        <input class="mono" readOnly value={value} onFocus={(e) => e.currentTarget.select()} data-testid="secret-value" />
      </label>
      <button type="button" onClick={() => void copy()}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      {note && <p>{note}</p>}
    </div>
  );
}
