/**
 * `admin correction add|remove|list`: the operator corrections (shared/capabilities/corrections.ts).
 * Every API node serves a change within one snapshot poll; the live set is never exported.
 */
import {
  CORRECTION_KINDS,
  CorrectionError,
  parseCorrection,
  unappliedCorrections,
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
  if (verb === 'list') return listed(store);
  // Parsed whole for `remove` too, so a malformed target or kind is refused the same way, except
  // that `remove` takes a stored target as `list` writes it (one stored before the rules changed).
  const held = verb === 'remove' ? new Set((await store.list()).map((c) => c.target)) : undefined;
  const c = parseCorrection(
    {
      ...(args.cidr !== undefined ? { cidr: args.cidr } : {}),
      ...(args.asn !== undefined ? { asn: args.asn } : {}),
      kind: need(args.set, 'set'),
      reason: need(args.reason, 'reason'),
      operator: need(args.operator, 'operator'),
    },
    new Date(),
    held,
  );
  if (verb === 'add') return { added: await store.add(c) };
  return { removed: await store.remove(c) };
}

/** The corrections in force, the latest records, and any stored correction no node applies. */
async function listed(store: CorrectionStore): Promise<unknown> {
  const corrections = await store.list();
  const unapplied = unappliedCorrections(corrections);
  return {
    corrections,
    history: await store.history(),
    ...(unapplied.length > 0 ? { not_applied: unapplied } : {}),
  };
}

function need(value: string | undefined, flag: string): string {
  if (value === undefined) throw new CorrectionError(`missing --${flag}`);
  return value;
}
