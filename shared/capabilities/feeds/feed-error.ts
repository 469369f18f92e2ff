/** A feed that cannot become a snapshot: unreachable, malformed, empty or suspiciously shrunk. */
export class FeedError extends Error {
  override name = 'FeedError';
}

/**
 * The non-blank, non-comment lines of a text feed, with their 1-based line numbers and the
 * comment that ends a data line, if any (range feeds read it as the range's service name).
 */
export function* feedLines(bytes: Buffer): Generator<[line: number, text: string, comment: string]> {
  const lines = bytes.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const hash = raw.indexOf('#');
    const text = (hash < 0 ? raw : raw.slice(0, hash)).trim();
    if (text !== '') yield [i + 1, text, hash < 0 ? '' : raw.slice(hash + 1).trim()];
  }
}
