/** `npm run feeds:update -- --from <file|dir|url> ...`: see update-feeds.ts. */
import { parseUpdateArgs, updateFeeds, USAGE } from './update-feeds.ts';

const opts = parseUpdateArgs(process.argv.slice(2));
if (typeof opts === 'string') {
  console.error(`${opts}\n${USAGE}`);
  process.exitCode = 2;
} else {
  process.exitCode = await updateFeeds(opts);
}
