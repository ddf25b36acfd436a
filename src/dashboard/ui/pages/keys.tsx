import { useEffect, useState } from 'preact/hooks';
import { admin, listModels, type ModelInfo } from '../api.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { Dialog } from '../components/dialog.js';
import { ErrorNote } from '../components/error-note.js';
import { formBody, formValueOf, KeyForm } from '../components/key-form.js';
import { SecretReveal } from '../components/secret-reveal.js';
import { approx, day, usd, when } from '../format.js';
import type { KeyActivityView, KeyView } from '../types.js';

const STATUS_TEXT: Record<KeyView['status'], string> = {
  active: 'Active',
  revoked: 'Revoked',
  expired: 'Expired',
};

/** The status a person reads: a rotated key whose old value still works is "in grace". */
const statusOf = (key: KeyView): { css: string; text: string } =>
  key.status === 'active' && key.previous_valid_until ? { css: 'in_grace', text: 'In grace' } : { css: key.status, text: STATUS_TEXT[key.status] };

type Modal =
  | { kind: 'create' }
  | { kind: 'created'; key: KeyView }
  | { kind: 'edit'; key: KeyView }
  | { kind: 'revoke'; key: KeyView }
  | { kind: 'rotate'; key: KeyView }
  | { kind: 'rotated'; key: string; previousValidUntil: string };

function SpendMeter({ keyView, activity }: { keyView: KeyView; activity: KeyActivityView | undefined }) {
  const spent = activity?.cycle_spent_usd ?? '0.00';
  if (keyView.monthly_ceiling_usd === null)
    return (
      <span>
        {usd(spent)} <span class="muted">(no ceiling)</span>
      </span>
    );
  return (
    <div class="spend">
      <meter
        min={0}
        max={approx(keyView.monthly_ceiling_usd) || 1}
        value={approx(spent)}
        aria-label={`Spent ${usd(spent)} of ${usd(keyView.monthly_ceiling_usd)} this month`}
      />
      <span>
        {usd(spent)} / {usd(keyView.monthly_ceiling_usd)}
      </span>
    </div>
  );
}

export function KeysPage() {
  const [keys, setKeys] = useState<KeyView[] | null>(null);
  const [activity, setActivity] = useState<Map<string, KeyActivityView>>(new Map());
  const [models, setModels] = useState<ModelInfo[]>([]);
  const [modal, setModal] = useState<Modal | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async () => {
    try {
      setKeys((await admin<{ data: KeyView[] }>('GET', '/keys')).data);
      // Spend and last use come from the ledger; without it the table simply shows none.
      const usage = await admin<{ data: KeyActivityView[] }>('GET', '/usage/keys').catch(() => ({ data: [] }));
      setActivity(new Map(usage.data.map((a) => [a.key_id, a])));
    } catch (e) {
      setError((e as Error).message);
    }
  };
  useEffect(() => {
    void load();
    listModels().then(setModels, (e: unknown) => setError((e as Error).message));
  }, []);

  const act = async (action: () => Promise<Modal | null>) => {
    try {
      setModal(await action());
      await load();
    } catch (e) {
      setError((e as Error).message);
      setModal(null);
    }
  };

  return (
    <section aria-labelledby="keys-title">
      <div class="title-row">
        <h1 id="keys-title">API keys</h1>
        <button type="button" class="primary" onClick={() => setModal({ kind: 'create' })}>
          Create key
        </button>
      </div>
      <ErrorNote message={error} />
      {keys === null ? (
        <p>Loading…</p>
      ) : keys.length === 0 ? (
        <p>No keys yet.</p>
      ) : (
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Models</th>
                <th scope="col">This month</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <td data-label="Name" class="name">
                    {key.name}
                  </td>
                  <td data-label="Key" class="mono key">
                    {key.key}
                  </td>
                  <td data-label="Status">
                    <span class={`badge ${statusOf(key).css}`}>{statusOf(key).text}</span>
                    {key.previous_valid_until && <div class="muted small">old value until {when(key.previous_valid_until)}</div>}
                    {key.status === 'active' && key.expires_at && <div class="muted small">expires {when(key.expires_at)}</div>}
                  </td>
                  <td data-label="Models" class="small">
                    {key.models === null ? (
                      'All models'
                    ) : key.models.length === 0 ? (
                      'None'
                    ) : (
                      <ul class="chips">
                        {key.models.map((m) => (
                          <li key={m}>{m}</li>
                        ))}
                      </ul>
                    )}
                  </td>
                  <td data-label="This month">
                    <SpendMeter keyView={key} activity={activity.get(key.id)} />
                  </td>
                  <td data-label="Created" class="small date" title={when(key.created_at)}>
                    {day(key.created_at)}
                  </td>
                  <td data-label="Last used" class="small date" title={when(activity.get(key.id)?.last_used_at)}>
                    {day(activity.get(key.id)?.last_used_at)}
                  </td>
                  <td>
                    <div class="row-actions">
                      {key.status !== 'revoked' && (
                        <>
                          <button type="button" onClick={() => setModal({ kind: 'edit', key })} aria-label={`Edit ${key.name}`}>
                            Edit
                          </button>
                          <button type="button" onClick={() => setModal({ kind: 'rotate', key })} aria-label={`Rotate ${key.name}`}>
                            Rotate
                          </button>
                          <button type="button" class="danger" onClick={() => setModal({ kind: 'revoke', key })} aria-label={`Revoke ${key.name}`}>
                            Revoke
                          </button>
                        </>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {modal?.kind === 'create' && (
        <Dialog title="Create a key" onClose={() => setModal(null)}>
          <KeyForm
            initial={formValueOf(null)}
            models={models}
            submitLabel="Create"
            onCancel={() => setModal(null)}
            onSubmit={async (value) => {
              const key = await admin<KeyView>('POST', '/keys', formBody(value));
              setModal({ kind: 'created', key });
              await load();
            }}
          />
        </Dialog>
      )}
      {modal?.kind === 'created' && (
        <Dialog title={`Key “${modal.key.name}” created`} onClose={() => setModal(null)}>
          <SecretReveal label="Your new key" value={modal.key.key} />
          <button type="button" onClick={() => setModal(null)}>
            Done
          </button>
        </Dialog>
      )}
      {modal?.kind === 'edit' && (
        <Dialog title={`Edit “${modal.key.name}”`} onClose={() => setModal(null)}>
          <KeyForm
            initial={formValueOf(modal.key)}
            models={models}
            submitLabel="Save"
            onCancel={() => setModal(null)}
            onSubmit={async (value) => {
              await admin('PATCH', `/keys/${modal.key.id}`, formBody(value));
              setModal(null);
              await load();
            }}
          />
        </Dialog>
      )}
      {modal?.kind === 'revoke' && (
        <ConfirmDialog
          title={`Revoke “${modal.key.name}”?`}
          text="Requests with this key will be refused at once. This cannot be undone."
          action="Revoke key"
          danger
          onClose={() => setModal(null)}
          onConfirm={() => void act(async () => (await admin('POST', `/keys/${modal.key.id}/revoke`), null))}
        />
      )}
      {modal?.kind === 'rotate' && (
        <ConfirmDialog
          title={`Rotate “${modal.key.name}”?`}
          text="A new value is minted. The current value keeps working for 24 hours, then stops. Usage and ceiling carry over."
          action="Rotate key"
          onClose={() => setModal(null)}
          onConfirm={() =>
            void act(async () => {
              const rotated = await admin<{ key: string; previous_valid_until: string }>('POST', `/keys/${modal.key.id}/rotate`);
              return { kind: 'rotated', key: rotated.key, previousValidUntil: rotated.previous_valid_until };
            })
          }
        />
      )}
      {modal?.kind === 'rotated' && (
        <Dialog title="Key rotated" onClose={() => setModal(null)}>
          <SecretReveal label="The new key" value={modal.key} note={`The old value works until ${when(modal.previousValidUntil)}.`} />
          <button type="button" onClick={() => setModal(null)}>
            Done
          </button>
        </Dialog>
      )}
    </section>
  );
}
