import { type MigrationSet, migrationsDirectory } from '@voice/shared';

export const migrations: MigrationSet = {
  schema: 'telephony',
  directory: migrationsDirectory('telephony', new URL('../../migrations', import.meta.url)),
};
