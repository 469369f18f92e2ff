/**
 * What a source declares about each publisher file it can be made from (its `formats` and
 * `tables`, shared/capabilities/source.ts): how the file is recognised by its path, how it is
 * read, and how large a genuine one is. formats.ts gathers the declarations of every capability;
 * nothing lists a format a second time.
 */
import type { FeedLimits, ImportedFeed } from './imported-feed.ts';
import type { ImportedTable } from './network-tables.ts';

/** A publisher's file read into a list feed, checked against that feed's limits as it is read. */
export type Importer = (bytes: Buffer, fetchedAt: Date, limits: FeedLimits) => ImportedFeed;

export interface ListFormat {
  name: string;
  /** Matched against the path with `/` separators (a file name, or a folder and a name). */
  fileName: RegExp;
  importer: Importer;
  /** Fewer is a truncated download or an error page, not a smaller list. */
  minRecords: number;
  /** About ten times a genuine file: a larger one is refused before it is read. */
  maxBytes: number;
  /** Records it may yield, about ten times a genuine file's; the feed it becomes has its own bound. */
  maxRecords: number;
  /** The file carries no date of its own: its date is when it was fetched. */
  datedByFetch: boolean;
}

/** A publisher's file that becomes part of a table feed (the network type's multi-file tables). */
export interface TableFormat {
  name: string;
  fileName: RegExp;
  importer: (bytes: Buffer, fetchedAt: Date) => ImportedTable;
  minRecords: number;
  /** The file as served (gzipped where the publisher gzips it): about ten times a genuine one. */
  maxBytes: number;
}
