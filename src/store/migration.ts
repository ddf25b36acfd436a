/** A numbered schema change. Each backend has its own list with the same versions and names. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}
