import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { openApiYaml } from '../../services/api/openapi/document.ts';

const ROOT = join(import.meta.dirname, '../..');

/** Every file of the checkout that git would ship (tracked, or new and not ignored). */
function repoFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: ROOT });
  return out
    .toString('utf8')
    .split('\0')
    .filter((f) => f && existsSync(join(ROOT, f)));
}

const TEXT =
  /\.(ts|js|mjs|cjs|json|md|ya?ml|sh|lua|sql|py|http|txt|csv|xml|toml)$|^(Dockerfile|LICENSE|\.ci\/run|\.gitignore)$/;

// Names of documents outside the repository; spelt in pieces so this file does not match itself.
const OUTSIDE = [
  ['..', 'shared', 'spec'].join('/'),
  ['..', 'shared', 'guide'].join('/'),
  ['decisions', 'md'].join('.'),
  ['interface-spec', 'md'].join('.'),
  ['guide', 'architecture.md'].join('/'),
  ['field-facts', 'md'].join('.'),
];

describe('the repository is self-contained', () => {
  const files = repoFiles().filter((f) => TEXT.test(f) && !f.endsWith('package-lock.json'));

  it('names no document outside it', () => {
    expect(files.length).toBeGreaterThan(50);
    const hits: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(ROOT, f), 'utf8');
      for (const name of OUTSIDE) if (text.includes(name)) hits.push(`${f}: ${name}`);
    }
    expect(hits).toEqual([]);
  });

  it('every relative link of its Markdown resolves to a file inside it', () => {
    const broken: string[] = [];
    for (const f of files.filter((x) => x.endsWith('.md'))) {
      // Code is not a link: a regex pattern in backticks can look like `[a](b)`.
      const text = readFileSync(join(ROOT, f), 'utf8')
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (!target || /^[a-z]+:/i.test(target)) continue;
        const resolved = normalize(join(dirname(f), target));
        if (resolved.startsWith('..') || !existsSync(join(ROOT, resolved))) broken.push(`${f}: ${m[1]}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('is licensed Apache-2.0 in LICENSE, package.json and the OpenAPI document', () => {
    const licence = readFileSync(join(ROOT, 'LICENSE'), 'utf8');
    expect(licence).toMatch(/Apache License\s+Version 2\.0, January 2004/);
    expect(licence).toContain('TERMS AND CONDITIONS FOR USE, REPRODUCTION, AND DISTRIBUTION');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { license?: string };
    expect(pkg.license).toBe('Apache-2.0');
    const doc = parse(openApiYaml()) as { info: { license: { name: string; identifier: string } } };
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', identifier: 'Apache-2.0' });
  });
});
