import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'webhook',
  directory: migrationsDirectory('webhook', new URL('../../migrations', import.meta.url)),
};
