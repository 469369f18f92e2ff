/**
 * The public formats the service reads, gathered from the sources that declare them (each
 * capability's `sources`, its `formats` for a list feed and `tables` for a table feed): a file is
 * recognised by the end of its path (a file name, or a list's folder and name in the layout its
 * publisher uses; for a URL, its path) and read by its importer into the feed that declared it.
 * Nothing here names a format: a capability brings its own.
 */
import { CAPABILITY_DEFINITIONS } from '../../index.ts';
import type { FeedName } from '../../source.ts';
import type { ListFormat, TableFormat } from './format.ts';

export type { Importer, ListFormat, TableFormat } from './format.ts';

/** A list format with the feed it becomes. */
export interface PublicFormat extends ListFormat {
  feed: FeedName;
}

/** A table format with the table feed it becomes. */
export interface PublicTableFormat extends TableFormat {
  feed: FeedName;
}

const SOURCES = CAPABILITY_DEFINITIONS.flatMap((d) => Object.entries(d.sources));

export const PUBLIC_FORMATS: readonly PublicFormat[] = SOURCES.flatMap(([feed, s]) =>
  (s.formats ?? []).map((f) => ({ ...f, feed })),
);

export const TABLE_FORMATS: readonly PublicTableFormat[] = SOURCES.flatMap(([feed, s]) =>
  (s.tables ?? []).map((f) => ({ ...f, feed })),
);

const normalised = (path: string) => path.replace(/\\/g, '/');

/** The format of a file, by its path (`/`-separated) or a URL's path. */
export function recognise(path: string): PublicFormat | undefined {
  return PUBLIC_FORMATS.find((f) => f.fileName.test(normalised(path)));
}

/** The table format of a file for `feed`, by its path. */
export function recogniseTable(path: string, feed: string): PublicTableFormat | undefined {
  return TABLE_FORMATS.find((f) => f.feed === feed && f.fileName.test(normalised(path)));
}
