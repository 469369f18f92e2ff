import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The docs are read by following links from the README: every page must be reachable that way,
// and every relative link (and its #anchor) must land somewhere.
const ROOT = resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return markdownFiles(path);
    return name.endsWith('.md') ? [path] : [];
  });
}

/** GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    if (fenced) continue;
    for (const m of line.matchAll(/<a id="([^"]+)">/g)) ids.add(m[1] ?? '');
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (!heading) continue;
    const base = (heading[1] ?? '')
      .trim()
      .toLowerCase()
      .replace(/<[^>]+>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    ids.add(n === 0 ? base : `${base}-${n}`);
  }
  return ids;
}

/** Relative link targets of a page (no URLs, no mail), outside code blocks and code spans. */
function links(markdown: string): string[] {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/i.test(target));
}

const pages = [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...markdownFiles(join(ROOT, 'docs'))];

/**
 * docs/performance.md is the present: what the bench measures and the current figures, in about
 * 200 lines. Dated runs, and what was tried on a day, go to docs/performance-log/ (one page a
 * round); twice the page grew past 300 lines by keeping them.
 */
const PERFORMANCE_PAGE_MAX_LINES = 210;

/** Why a performance page is not the present any more: too long, or a heading that dates a run. */
export function performancePageProblems(markdown: string): string[] {
  const lines = markdown.replace(/\n$/, '').split('\n');
  const problems =
    lines.length > PERFORMANCE_PAGE_MAX_LINES
      ? [
          `${lines.length} lines, over ${PERFORMANCE_PAGE_MAX_LINES}: move dated runs to docs/performance-log/`,
        ]
      : [];
  for (const line of lines)
    if (/^#{1,6}\s.*\b20\d\d-\d\d-\d\d\b/.test(line))
      problems.push(`a dated heading belongs in docs/performance-log/: ${line}`);
  return problems;
}

describe('documentation links', () => {
  it('every relative link and anchor lands on a file and a heading that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const target of links(readFileSync(page, 'utf8'))) {
        const [path = '', anchor] = target.split('#');
        const file = path === '' ? page : resolve(dirname(page), decodeURIComponent(path));
        if (!existsSync(file)) {
          broken.push(`${relative(ROOT, page)}: ${target} (no such file)`);
          continue;
        }
        if (anchor && file.endsWith('.md') && !headingIds(readFileSync(file, 'utf8')).has(anchor)) {
          broken.push(`${relative(ROOT, page)}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('every page under docs/ is reachable from the README', () => {
    const reached = new Set<string>();
    const queue = [join(ROOT, 'README.md')];
    while (queue.length > 0) {
      const page = queue.shift() ?? '';
      if (reached.has(page) || !existsSync(page)) continue;
      reached.add(page);
      for (const target of links(readFileSync(page, 'utf8'))) {
        const path = target.split('#')[0] ?? '';
        if (path.endsWith('.md')) queue.push(resolve(dirname(page), decodeURIComponent(path)));
      }
    }
    const unreached = markdownFiles(join(ROOT, 'docs'))
      .filter((p) => !reached.has(p))
      .map((p) => relative(ROOT, p));
    expect(unreached).toEqual([]);
  });

  it('computes heading ids as GitHub does', () => {
    const ids = headingIds('# A `b`: c/d (e)\n## A `b`: c/d (e)\n<a id="x"></a>\n```\n# not a heading\n```');
    expect([...ids].sort()).toEqual(['a-b-cd-e', 'a-b-cd-e-1', 'x']);
  });
});

describe('the performance page', () => {
  const page = readFileSync(join(ROOT, 'docs/performance.md'), 'utf8');

  it('stays the present: at most about 200 lines, dated runs in docs/performance-log/', () => {
    expect(performancePageProblems(page)).toEqual([]);
  });

  it('fails once it grows past its limit, or dates a run in a heading', () => {
    const grown = page + '\nA run.\n'.repeat(PERFORMANCE_PAGE_MAX_LINES);
    expect(performancePageProblems(grown)).toEqual([expect.stringMatching(/^\d+ lines, over 210/)]);
    const atLimit = 'line\n'.repeat(PERFORMANCE_PAGE_MAX_LINES);
    expect(performancePageProblems(atLimit)).toEqual([]);
    expect(performancePageProblems(`${atLimit}one more\n`)).toHaveLength(1);
    expect(performancePageProblems('# Performance\n## Five runs (2026-11-28)\n')).toEqual([
      'a dated heading belongs in docs/performance-log/: ## Five runs (2026-11-28)',
    ]);
  });
});
