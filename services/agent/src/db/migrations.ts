import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'agent',
  directory: migrationsDirectory('agent', new URL('../../migrations', import.meta.url)),
};
