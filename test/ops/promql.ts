/** PromQL checks with Prometheus's own grammar (@prometheus-io/lezer-promql). */
import { parser } from '@prometheus-io/lezer-promql';

export interface Selector {
  metric: string;
  /** Equality matchers only (`label="value"`); regex and negative matchers are not resolved. */
  equals: Record<string, string>;
}

export interface Parsed {
  errors: string[];
  selectors: Selector[];
}

/** Parses one expression; `errors` lists where the grammar failed, `selectors` every vector selector. */
export function parsePromQL(expr: string): Parsed {
  const tree = parser.parse(expr);
  const errors: string[] = [];
  const selectors: Selector[] = [];
  const text = (from: number, to: number) => expr.slice(from, to);
  tree.iterate({
    enter: (node) => {
      if (node.type.isError)
        errors.push(`syntax error at ${node.from}: '${text(node.from, node.from + 20)}'`);
      if (node.name !== 'VectorSelector') return;
      const sel: Selector = { metric: '', equals: {} };
      const ident = node.node.getChild('Identifier');
      if (ident) sel.metric = text(ident.from, ident.to);
      for (const m of node.node.getChild('LabelMatchers')?.getChildren('UnquotedLabelMatcher') ?? []) {
        const name = m.getChild('LabelName');
        const op = m.getChild('MatchOp')?.firstChild?.name;
        const value = m.getChild('StringLiteral');
        if (!name || !value) continue;
        const label = text(name.from, name.to);
        const literal = JSON.parse(text(value.from, value.to).replace(/^'(.*)'$/, '"$1"')) as string;
        if (op === 'EqlSingle') sel.equals[label] = literal;
        if (label === '__name__' && op === 'EqlSingle') sel.metric = literal;
      }
      selectors.push(sel);
    },
  });
  return { errors, selectors };
}

/**
 * The metric families a scrape declares; a histogram `x` also exports `x_bucket`, `x_sum`,
 * `x_count`, and a summary `x_sum`, `x_count`.
 */
export function exportedSeries(types: Map<string, string>): Set<string> {
  const out = new Set<string>();
  for (const [name, type] of types) {
    out.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) out.add(name + s);
    if (type === 'summary') for (const s of ['_sum', '_count']) out.add(name + s);
  }
  return out;
}
