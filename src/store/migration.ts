/** A numbered schema change. Each backend has its own list with the same versions and names. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The core's migration track, as reported; an extension's is its name (extension.ts). */
export const CORE_TRACK = 'core';

/** Told which migrations of a track an open applied (none reported when another instance had). */
export type MigrationReport = (versions: readonly number[], track: string) => void;
