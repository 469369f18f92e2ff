import { Writable } from 'node:stream';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { createLogger } from './logger.ts';

/** What a service logger writes, one string per line. */
function capture(): { lines: string[]; stream: Writable } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('createLogger', () => {
  it("logs an error's message and stack but never the arguments of the Redis command it carries", () => {
    const { lines, stream } = capture();
    const err = Object.assign(new ReplyError('WRONGPASS invalid username-password pair'), {
      command: { name: 'hello', args: ['3', 'AUTH', 'frs-api', 'a-secret-password'] },
    });
    createLogger('test', 'info', stream).warn({ err }, 'redis refused');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain('WRONGPASS');
    expect(lines[0]).toContain('"stack"');
    expect(lines[0]).toContain('"hello"');
    expect(lines[0]).not.toContain('a-secret-password');
  });

  it('censors subjects and keys in any field that could carry them', () => {
    const { lines, stream } = capture();
    createLogger('test', 'info', stream).info(
      { subject: { phone_number: '+447911123456' }, apiKey: 'frs_live_x', ip_address: '81.2.69.142' },
      'scored',
    );
    expect(lines[0]).not.toMatch(/447911123456|frs_live_x|81\.2\.69\.142/);
  });
});
