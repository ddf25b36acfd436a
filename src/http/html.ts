/**
 * HTML built from templates where every interpolated value is escaped unless it is already
 * SafeHtml (made by `html` itself): pages cannot be injected into by a title or a model ID.
 */

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class SafeHtml {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = SafeHtml | string | number | null | undefined | false | readonly Value[];

function render(value: Value): string {
  if (value instanceof SafeHtml) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: Value[]): SafeHtml {
  let out = strings[0] as string;
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] as string);
  });
  return new SafeHtml(out);
}
