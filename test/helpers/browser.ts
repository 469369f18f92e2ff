import { execFileSync } from 'node:child_process';
import { chromium, type Browser } from 'playwright-core';

/**
 * Debian's Chromium, installed by `infra/local/chromium.sh install` (which `stack.sh install` and
 * so `.ci/run` call); a browser is never downloaded.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = execFileSync('bash', ['infra/local/chromium.sh', 'path'], {
    encoding: 'utf8',
  }).trim();
  return chromium.launch({
    executablePath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
