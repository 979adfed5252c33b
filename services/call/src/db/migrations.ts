import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'call',
  directory: migrationsDirectory('call', new URL('../../migrations', import.meta.url)),
};
