/**
 * `admin correction add|remove|list`: the operator corrections (shared/capabilities/corrections.ts).
 * Every API node serves a change within one snapshot poll; the live set is never exported.
 */
import {
  CORRECTION_KINDS,
  CorrectionError,
  parseCorrection,
  type CorrectionStore,
} from '../../shared/capabilities/corrections.ts';

export const CORRECTION_USAGE = `  admin correction add (--cidr CIDR | --asn AS) --set KIND --reason TEXT --operator NAME
                      (KIND: ${CORRECTION_KINDS.join(', ')}; applies after every feed)
  admin correction remove (--cidr CIDR | --asn AS) --set KIND --reason TEXT --operator NAME
  admin correction list                            (the corrections in force and the latest records)`;

interface CorrectionArgs {
  cidr?: string | undefined;
  asn?: string | undefined;
  set?: string | undefined;
  reason?: string | undefined;
  operator?: string | undefined;
}

export async function correctionCommand(
  store: CorrectionStore,
  verb: string,
  args: CorrectionArgs,
): Promise<unknown> {
  if (verb === 'list') return { corrections: await store.list(), history: await store.history() };
  // Parsed whole for `remove` too, so a malformed target or kind is refused the same way.
  const c = parseCorrection({
    ...(args.cidr !== undefined ? { cidr: args.cidr } : {}),
    ...(args.asn !== undefined ? { asn: args.asn } : {}),
    kind: need(args.set, 'set'),
    reason: need(args.reason, 'reason'),
    operator: need(args.operator, 'operator'),
  });
  if (verb === 'add') return { added: await store.add(c) };
  return { removed: await store.remove(c) };
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined) throw new CorrectionError(`missing --${flag}`);
  return value;
}
