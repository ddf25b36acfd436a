import type { ModelInfo } from '../api.js';

/** The allowlist: "every model", or a pick from GET /v1/models grouped by family. */
export function ModelPicker({ models, value, onChange }: { models: ModelInfo[]; value: string[] | null; onChange: (v: string[] | null) => void }) {
  const families = [...new Set(models.map((m) => m.family))];
  const toggle = (id: string, on: boolean) => {
    const current = new Set(value ?? []);
    if (on) current.add(id);
    else current.delete(id);
    onChange([...current]);
  };
  return (
    <fieldset class="models">
      <legend>Models this key may use</legend>
      <label class="inline">
        <input type="checkbox" checked={value === null} onChange={(e) => onChange(e.currentTarget.checked ? null : [])} />
        Every model (including ones added later)
      </label>
      {value !== null &&
        families.map((family) => (
          <fieldset key={family} class="family">
            <legend>{family}</legend>
            {models
              .filter((m) => m.family === family)
              .map((m) => (
                <label class="inline" key={m.id}>
                  <input type="checkbox" name="models" value={m.id} checked={value.includes(m.id)} onChange={(e) => toggle(m.id, e.currentTarget.checked)} />
                  <span class="mono">{m.id}</span>
                </label>
              ))}
          </fieldset>
        ))}
    </fieldset>
  );
}
