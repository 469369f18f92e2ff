import escape from 'escape-html';

/**
 * Server-side HTML with escaping by default: every value interpolated into `html` is escaped
 * unless it is itself the output of `html` (or `raw`, used only for trusted constant markup).
 */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

function render(v: unknown): string {
  if (v instanceof SafeHtml) return v.value;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  // escape-html (Express's own escaper): & < > " ' — safe in text and in quoted attributes.
  return escape(String(v));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new SafeHtml(out);
}
