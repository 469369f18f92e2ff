/**
 * What a capability declares about each of its sources (architecture: a capability owns its
 * sources). The feed registry, the FEED_* variables, the default locations, the file names
 * `feeds:update` writes and calibration's data are all read from these declarations
 * (registry.ts), never listed again elsewhere.
 */
import { fileURLToPath } from 'node:url';
import type { ListFormat, TableFormat } from './feeds/importers/format.ts';
import type { FeedLimits } from './feeds/importers/imported-feed.ts';

/** The checked-in snapshots a machine without internet starts from. */
export const SEED_DIR = fileURLToPath(new URL('../../infra/feeds', import.meta.url));

/** A feed's name: the key its capability declares it under in `sources`. */
export type FeedName = string;

export interface FeedSource {
  /** Where a deployment reads it: an http(s) URL or a path; unset, the seed. */
  env: `FEED_${string}`;
  description: string;
  /** One file, a directory of `<calling code>.bson` files, or these files side by side. */
  layout: 'file' | 'bson-dir' | readonly string[];
  /**
   * The seed snapshot: a file name in infra/feeds/ (also the name `feeds:update` writes), or a
   * path resolved when read (the directory of an installed npm data package).
   */
  seed: { file: string } | { path: () => string };
  /**
   * The publisher's public files (recognised by their paths among `formats` or `tables` and
   * imported), fetched by a deployment that points the feed at them (docker-compose.yml does).
   * Empty: the feed is read only in the project's own format.
   */
  publishers: readonly string[];
  /**
   * The publishers' list formats it can be made from (`feeds:update` and the refresher read them
   * into its lines; importers/formats.ts gathers every source's).
   */
  formats?: readonly ListFormat[];
  /** The publishers' table formats it can be made from (a table feed: `layout` names its files). */
  tables?: readonly TableFormat[];
  /**
   * What its file may hold (a list of addresses and ranges): checked when `feeds:update` writes it,
   * when a publisher's file is imported into it and when the refresher reads it.
   */
  limits?: FeedLimits;
  /** The kinds its lines name after the range (`address,kind`), when they name one. */
  kinds?: readonly string[];
  /**
   * With no publisher: why, in a phrase that completes "it changes only with a release of the
   * service, or when an operator replaces it: ..." (health lists the feed; the start banner says
   * why). Required when `publishers` is empty (source.test.ts).
   */
  unpublished?: string;
  /** How often the refresher fetches it. */
  refreshEveryS: number;
  /** Fewer records than this is a truncated or broken download: refused, the current snapshot kept. */
  minRecords: number;
  /** Data older than this (its own date, not when it was fetched) is stale. */
  maxDataAgeS: number;
  /**
   * The capability builds without it when it has nothing to read: no seed is checked in and its
   * FEED_* variable is unset. Its data only ever adds to what the other sources say.
   */
  optional?: boolean;
}

/** The seed's path: where the feed is read from when its FEED_* variable is unset. */
export function seedPath(source: FeedSource): string {
  return 'file' in source.seed ? `${SEED_DIR}/${source.seed.file}` : source.seed.path();
}
