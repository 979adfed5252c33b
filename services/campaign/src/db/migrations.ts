import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'campaign',
  directory: migrationsDirectory('campaign', new URL('../../migrations', import.meta.url)),
};
