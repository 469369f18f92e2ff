import { Router, type Request, type Response } from 'express';
import { listCsv, parseListCsvCooperative } from '../../../shared/capabilities/org-lists/csv.ts';
import { ListEntryError, listEntryId, parseListEntry } from '../../../shared/capabilities/org-lists/entry.ts';
import {
  LIST_EFFECTS,
  LIST_ENTRY_KINDS,
  type ListEffect,
  type ListEntryInput,
  type ListEntryKind,
} from '../../../shared/capabilities/org-lists/types.ts';
import { MAX_LIST_CSV_BYTES } from '../../../shared/contract/lists.ts';
import { listPage, SortedEntries } from '../../../shared/orgs/list-pages.ts';
import type { OrgListStore } from '../../../shared/orgs/lists-store.ts';
import type { FlashStore } from '../flash.ts';
import { multipartForm, type FormRefused } from '../multipart.ts';
import { messagePage, type FormError } from '../views/layout.ts';
import { listsPage, type ListsView, type TypedEntry } from '../views/lists.ts';
import { formField, sessionOf, sidOf } from './guard.ts';

export interface ListsRouteDeps {
  listStore: Pick<OrgListStore, 'list' | 'version' | 'add' | 'remove' | 'replace'>;
  flash: FlashStore;
}

/** Entries per page. */
const PAGE_SIZE = 50;
/** Where the CSV upload posts: its multipart body is read before the CSRF check (app.ts). */
export const LISTS_UPLOAD_PATH = '/lists/upload';
/** A 10 MiB file and the form around it. */
const UPLOAD_MAX_BYTES = MAX_LIST_CSV_BYTES + 64 * 1024;

/** Who made a change from the portal: the signed-in user. */
const actorOf = (res: Response) => `user:${sessionOf(res).email}`;

const pick = <T extends string>(values: readonly T[], v: unknown): T | undefined =>
  (values as readonly unknown[]).includes(v) ? (v as T) : undefined;

function filterOf(req: Request): ListsView['filter'] {
  const cursor = typeof req.query.cursor === 'string' ? req.query.cursor : '';
  return {
    kind: pick<ListEntryKind>(LIST_ENTRY_KINDS, req.query.kind),
    effect: pick<ListEffect>(LIST_EFFECTS, req.query.effect),
    cursor: /^[A-Za-z0-9_-]{1,200}$/.test(cursor) ? cursor : undefined,
  };
}

type Page = Omit<ListsView, 'page' | 'filter' | 'held'>;

/** Renders the page (the first page, unless the request names another) with `extra` on top. */
async function render(sorted: SortedEntries, req: Request, res: Response, extra: Page, status = 200) {
  const session = sessionOf(res);
  const entries = await sorted.of(session.org_id);
  const filter = req.method === 'GET' ? filterOf(req) : {};
  const page = listPage(entries, { ...filter, limit: PAGE_SIZE });
  res
    .status(status)
    .type('html')
    .send(listsPage(session, { page, filter, held: entries.length, ...extra }).value);
}

/** The add form's fields as typed, or the refusal of one that is missing, repeated or too long. */
function typedEntry(req: Request): { typed: TypedEntry; errors: FormError[] } {
  const typed: TypedEntry = {};
  const errors: FormError[] = [];
  const fields = [
    ['kind', 'Kind', 20],
    ['value', 'Value', 64],
    ['effect', 'Effect', 10],
    ['reason', 'Reason', 800],
    ['expires_at', 'Expires', 40],
  ] as const;
  for (const [name, label, max] of fields) {
    const f = formField(req, name, label, max);
    if (f.ok) typed[name] = f.value;
    else errors.push({ field: name, text: f.message });
  }
  return { typed, errors };
}

/** A date from the form's date field is the start of that day, UTC; any other text is read as given. */
const expiryOf = (typed: string | undefined) =>
  typed && /^\d{4}-\d{2}-\d{2}$/.test(typed.trim()) ? `${typed.trim()}T00:00:00Z` : typed;

/** parseListEntry's refusal on the field it names (`value ...` is about #value). */
function entryError(err: ListEntryError): FormError {
  const field = /^(kind|value|effect|reason|expires_at)\b/.exec(err.message)?.[1];
  const label = { kind: 'Kind', value: 'Value', effect: 'Effect', reason: 'Reason', expires_at: 'Expires' };
  return field
    ? { field, text: `${label[field as keyof typeof label]}${err.message.slice(field.length)}` }
    : { text: err.message };
}

/** The typed entry checked (parseListEntry), or why it is refused. */
function checkedEntry(
  req: Request,
  now: Date,
): { typed: TypedEntry; entry?: ListEntryInput; errors: FormError[] } {
  const { typed, errors } = typedEntry(req);
  if (errors.length > 0) return { typed, errors };
  try {
    return {
      typed,
      entry: parseListEntry({ ...typed, expires_at: expiryOf(typed.expires_at) }, now),
      errors,
    };
  } catch (err) {
    if (!(err instanceof ListEntryError)) throw err;
    return { typed, errors: [entryError(err)] };
  }
}

async function addEntry(deps: ListsRouteDeps, sorted: SortedEntries, req: Request, res: Response) {
  const now = new Date();
  const { typed, entry, errors } = checkedEntry(req, now);
  try {
    if (entry) await deps.listStore.add(sessionOf(res).org_id, [entry], actorOf(res), now);
  } catch (err) {
    // Refused by the store (the list is full): nothing changed.
    if (!(err instanceof ListEntryError)) throw err;
    errors.push({ text: err.message });
  }
  // Refused: the page again, with what was typed and why; nothing changed.
  if (!entry || errors.length > 0) return render(sorted, req, res, { addErrors: errors, typed }, 422);
  await deps.flash.put(sidOf(res), {
    notice: `Added: ${entry.effect} ${entry.kind} ${entry.value}. Every API node applies it within 5 seconds.`,
  });
  res.redirect(303, '/lists');
}

/** The entry id the remove form names, or why it names none. */
function removedId(req: Request, now: Date): string | { error: string } {
  const kind = formField(req, 'kind', 'Kind', 20);
  if (!kind.ok) return { error: kind.message };
  const value = formField(req, 'value', 'Value', 64);
  if (!value.ok) return { error: value.message };
  try {
    // Only the kind and the value name an entry; the effect and reason are placeholders.
    return listEntryId(
      parseListEntry({ kind: kind.value, value: value.value, effect: 'deny', reason: '-' }, now),
    );
  } catch (err) {
    if (!(err instanceof ListEntryError)) throw err;
    return { error: err.message };
  }
}

async function removeEntry(deps: ListsRouteDeps, req: Request, res: Response) {
  const now = new Date();
  const id = removedId(req, now);
  let message: { notice?: string; error?: string };
  if (typeof id !== 'string') message = { error: `Nothing was removed: ${id.error}` };
  else {
    const { removed } = await deps.listStore.remove(sessionOf(res).org_id, [id], actorOf(res), now);
    message = removed
      ? { notice: `Removed: ${id.replace(':', ' ')}. Every API node drops it within 5 seconds.` }
      : { error: `The list holds no entry ${id.replace(':', ' ')}; nothing was removed.` };
  }
  await deps.flash.put(sidOf(res), message);
  res.redirect(303, '/lists');
}

async function uploadList(deps: ListsRouteDeps, sorted: SortedEntries, req: Request, res: Response) {
  const file = formField(req, 'csv', 'CSV file', MAX_LIST_CSV_BYTES);
  if (!file.ok || file.value.trim() === '') {
    const message = file.ok ? 'Choose a CSV file to upload.' : file.message;
    return render(sorted, req, res, { upload: { message, lines: [], count: 0 } }, 422);
  }
  const now = new Date();
  const parsed = await parseListCsvCooperative(file.value, now);
  if (!parsed.ok) {
    const { errors, count } = parsed;
    const message = `${count.toLocaleString('en')} bad line${count === 1 ? '' : 's'}${count > errors.length ? `; the first ${errors.length} are listed` : ''}. Correct the file and upload it again.`;
    return render(sorted, req, res, { upload: { message, lines: errors, count } }, 422);
  }
  const { before, after } = await deps.listStore.replace(
    sessionOf(res).org_id,
    parsed.entries,
    actorOf(res),
    now,
  );
  await deps.flash.put(sidOf(res), {
    notice: `The list was replaced: it holds ${after.toLocaleString('en')} entries (it held ${before.toLocaleString('en')}). Every API node applies it within 5 seconds.`,
  });
  res.redirect(303, '/lists');
}

/** An upload the form reader refused (too large, not a form, not UTF-8): nothing changed. */
export function uploadRefused(res: Response, err: FormRefused): void {
  res
    .status(err.status)
    .type('html')
    .send(messagePage('Upload refused', `${err.message} The list was not changed.`, sessionOf(res)).value);
}

/** The CSV upload's body reader, mounted before the CSRF check (see LISTS_UPLOAD_PATH). */
export const listsUploadForm = multipartForm(UPLOAD_MAX_BYTES, ['_csrf', 'csv'], uploadRefused);

/**
 * The Lists page: the organisation's entries a page at a time, add one, remove one, replace the
 * whole list from a CSV (checked whole; a refusal names the bad lines and changes nothing), and
 * download it. Changes are made as `user:<email>` and audited like every other.
 */
export function listsRoutes(deps: ListsRouteDeps): Router {
  const sorted = new SortedEntries(deps.listStore);
  const router = Router();
  router.get('/lists', async (req, res) => {
    const message = await deps.flash.take(sidOf(res));
    await render(sorted, req, res, {
      ...(message?.notice && { notice: message.notice }),
      ...(message?.error && { error: message.error }),
    });
  });
  router.get('/lists.csv', async (_req, res) => {
    const entries = await sorted.of(sessionOf(res).org_id);
    res
      .type('text/csv; charset=utf-8')
      .set('Content-Disposition', 'attachment; filename="lists.csv"')
      .send(listCsv(entries));
  });
  router.post('/lists', (req, res) => addEntry(deps, sorted, req, res));
  router.post('/lists/remove', (req, res) => removeEntry(deps, req, res));
  router.post(LISTS_UPLOAD_PATH, (req, res) => uploadList(deps, sorted, req, res));
  return router;
}
