/** A feed that cannot become a snapshot: unreachable, malformed, empty or suspiciously shrunk. */
export class FeedError extends Error {
  override name = 'FeedError';
}

/** The non-blank, non-comment lines of a text feed, with their 1-based line numbers. */
export function* feedLines(bytes: Buffer): Generator<[line: number, text: string]> {
  const lines = bytes.toString('utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.replace(/#.*$/, '').trim();
    if (text !== '') yield [i + 1, text];
  }
}
