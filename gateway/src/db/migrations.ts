import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'gateway',
  directory: migrationsDirectory('gateway', new URL('../../migrations', import.meta.url)),
};
