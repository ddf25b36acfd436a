import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The node flags a checkout's `npm start` passes to the gateway (`node <flags> dist/src/main.js`
 * in package.json's start script), so the bench runs each gateway as its own checkout starts it
 * in production: an older commit without flags runs without them.
 */
export function startFlags(root: string): string[] {
  const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts;
  const command = /(?:^|[\s;&|])node((?:\s+-\S+)*)\s+dist\/src\/main\.js\b/.exec(scripts?.['start'] ?? '');
  return command?.[1]?.trim().split(/\s+/).filter(Boolean) ?? [];
}
